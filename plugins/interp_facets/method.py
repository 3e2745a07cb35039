"""The ``facets`` method of ``interp run``: fit (or choose by CV) a score card, with the rounded
baseline beside it, its plots and its metrics."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold

from interp import Explanation, InputError
from interp.binarize import TabularBinarizer
from interp.data import check_finite

from .cv import FacetsClassifierCV, IntegrityWarning
from .estimators import (
    FacetsClassifier,
    _check_eps,
    _check_positive,
    _check_snap_tol,
    fit_path,
    resolve_penalty,
)
from .plots import plot_heatmaps, plot_path
from .scorecard import rounded_baseline, score_card


def _design(data, binarize, n_thresholds):
    """The features the card is written in: as given, or 0/1 columns such as ``age>52``.

    Points on raw measurements (areas in the thousands beside ratios below one) cannot share one
    grid step; thresholded 0/1 features give a card a person can add up.
    """
    X = np.asarray(data.X, dtype=float)
    names = list(data.feature_names)
    if binarize == "never" or (binarize == "auto" and np.isin(X, (0.0, 1.0)).all()):
        return X, names
    if int(n_thresholds) < 1:
        raise InputError("--n-thresholds must be at least 1")
    source = data.raw if data.raw is not None else data.frame()
    binarizer = TabularBinarizer(n_thresholds=int(n_thresholds)).fit(source)
    return binarizer.transform(source), [str(n) for n in binarizer.get_feature_names_out()]


def _check_data(data, X, names):
    check_finite(X, names)
    classes = np.unique(data.y)
    if classes.size != 2:
        shown = ", ".join(map(str, classes[:5])) + (", ..." if classes.size > 5 else "")
        raise InputError(
            f"facets needs a binary target; {data.target_name!r} has {classes.size} classes ({shown})"
        )
    if data.y.dtype.kind == "f" and not np.all(np.isfinite(data.y)):
        raise InputError(f"target {data.target_name!r} contains NaN")
    const = [names[j] for j in range(X.shape[1]) if np.all(X[:, j] == X[0, j])]
    if const:
        more = f" and {len(const) - 3} more" if len(const) > 3 else ""
        raise InputError(
            f"constant feature{'s' if len(const) > 1 else ''} {', '.join(map(repr, const[:3]))}{more}: "
            "drop them (an intercept already plays their role)"
        )
    return X, names


def run(data, ctx, *, lam=None, gamma=None, cv=0, penalty="scf", eps=0.01, solver="newton",
         n_gammas=12, n_betas=40, tol=1e-4, max_iter=2000, snap_tol=1e-4, baseline="none",
         binarize="auto", n_thresholds=3):
    X, names = _check_data(data, *_design(data, binarize, n_thresholds))
    y = data.y
    if (lam is None) != (gamma is None):
        raise InputError("give both --lam and --gamma, or --cv K to choose them by cross-validation")
    if lam is not None:
        lam = _check_positive("lam", lam)
        gamma = _check_positive("gamma", gamma)
    _check_eps(eps)
    _check_snap_tol(snap_tol)
    resolve_penalty(penalty, eps)  # one-line error for an unknown penalty, before any work
    if cv is None or cv <= 0:
        cv = 0 if lam is not None else 5
    if cv == 1:
        raise InputError("--cv needs at least 2 folds")
    seed = 0 if ctx.seed is None else ctx.seed
    figures = {}
    payload: dict = {}
    metrics: dict = {}
    if cv:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IntegrityWarning)
            est = FacetsClassifierCV(
                gammas=int(n_gammas), betas=int(n_betas), cv=int(cv), penalty=penalty, eps=eps,
                solver=solver, tol=tol, max_iter=max_iter, snap_tol=snap_tol, n_jobs=ctx.n_jobs,
                random_state=seed,
            ).fit(X, y)
        fallback = any(issubclass(w.category, IntegrityWarning) for w in caught)
        model = est.best_estimator_
        not_integral = model.integrity_ < 1
        gi = int(np.argmin(np.abs(est.gammas_ - est.best_gamma_)))
        figures["path"] = plot_path(est.betas_, est.coefs_path_[gi], est.best_gamma_, names,
                                    selected_beta=est.best_beta_)
        figures["heatmaps"] = plot_heatmaps(est.gammas_, est.betas_, est.heatmap("mean_test_score"),
                                            est.heatmap("integrity"),
                                            selected=(est.best_gamma_, est.best_beta_))
        metrics.update(cv_accuracy=est.best_score_, grid_points=int(est.gammas_.size * est.betas_.size),
                       integral_points=est.n_integral_, null_points=est.n_null_)
        payload["cv"] = {
            "folds": int(cv),
            "gammas": est.gammas_,
            "betas": est.betas_,
            "best_gamma": est.best_gamma_,
            "best_beta": est.best_beta_,
            "best_lam": est.best_lam_,
            "best_cv_accuracy": est.best_score_,
            "integral_points": est.n_integral_,
            "null_points": est.n_null_,
            "selected_fully_integral": bool(est.selected_integral_),
        }
        lam, gamma = est.best_lam_, est.best_gamma_
        estimator = est
    else:
        model = FacetsClassifier(lam=lam, gamma=gamma, penalty=penalty, eps=eps, solver=solver,
                                 tol=tol, max_iter=max_iter, snap_tol=snap_tol)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        not_integral = model.integrity_ < 1
        fallback = False
        pen, hyper = resolve_penalty(penalty, eps)
        beta = lam / gamma**2
        betas = beta * np.logspace(1.5, -1.5, 25)
        y_num = np.where(y == model.classes_[1], 1.0, -1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            U, _, _, _ = fit_path(X, y_num, loss="logistic", penalty=pen, hyper=hyper, gamma=gamma,
                                  lams=betas * gamma**2, solver=solver, tol=tol,
                                  max_iter=min(max_iter, 500))
        figures["path"] = plot_path(betas, gamma * U, gamma, names, selected_beta=beta)
        estimator = model

    card = score_card(model, names, X)
    acc = float(model.score(X, y))
    grid = float(model.gamma_)  # one point of the card, in the units of the linear model
    base = rounded_baseline(X, y, grid, kind=baseline)
    base_card = score_card(base, names, X)
    base_acc = base.score(X, y)
    metrics = {
        "train_accuracy": acc,
        **metrics,
        "integrity": model.integrity_,
        "integrity_nonzero": model.integrity_nonzero_,
        "snapped_coefficients": model.n_snapped_,
        "nonzeros": int(np.count_nonzero(card.points)),
        "max_points": int(np.max(np.abs(card.points), initial=0)),
        "baseline_train_accuracy": base_acc,
        "n_iter": int(estimator.n_iter_),
    }
    if cv:
        folds = StratifiedKFold(int(cv), shuffle=True, random_state=seed)
        scores = []
        for tr, te in folds.split(X, y):
            scores.append(rounded_baseline(X[tr], y[tr], grid, kind=baseline).score(X[te], y[te]))
        metrics["baseline_cv_accuracy"] = float(np.mean(scores))
    payload.update(
        score_card=card.to_dict(),
        lam=lam,
        gamma=gamma,
        beta=lam / gamma**2,
        penalty=penalty,
        coef=np.ravel(model.coef_),
        intercept=float(np.ravel(model.intercept_)[0]),
        feature_names=names,
        integrity=model.integrity_,
        integrity_nonzero=model.integrity_nonzero_,
        snapped_coefficients=model.n_snapped_,
        snap_objective_increase=model.snap_gap_,
        fully_integral=not not_integral,
        integral_on_every_fold=not fallback,
        baseline={
            "kind": f"logistic regression ({'unpenalised' if baseline == 'none' else 'L1'}), "
                    f"rounded to the same grid, threshold refitted",
            "score_card": base_card.to_dict(),
            "train_accuracy": base_acc,
            **({"cv_accuracy": metrics["baseline_cv_accuracy"]} if cv else {}),
        },
    )
    text = [card.text(), ""]
    if model.n_snapped_:
        text.append(f"note: {model.n_snapped_} coefficient(s) of the minimiser were off the grid; "
                    f"rounding them raised the objective by {model.snap_gap_:.1e} (relative), "
                    f"within --snap-tol")
    if not_integral:
        text.append("warning: this model is not fully integral; the card shows rounded points")
    elif fallback:
        text.append("note: no grid point was integral on every CV fold; this is the most integral "
                    "model on the full data")
    shown = ", ".join(f"{f} {p:+d}" for f, p in base_card.rows()[:12]) or "none"
    more = " ..." if len(base_card.rows()) > 12 else ""
    text += [f"baseline: logistic regression rounded to the same grid (step {grid:.4g}), "
             f"then threshold refitted:",
             f"  train accuracy {base_acc:.4f} (facets {acc:.4f})"
             + (f", CV accuracy {metrics['baseline_cv_accuracy']:.4f} (facets "
                f"{metrics['cv_accuracy']:.4f})" if cv else ""),
             f"  points: {shown}{more}; {base_card.rule()}"]
    params = {"lam": lam, "gamma": gamma, "cv": cv, "penalty": penalty, "eps": eps, "solver": solver,
              "n_gammas": n_gammas, "n_betas": n_betas, "tol": tol, "max_iter": max_iter,
              "snap_tol": snap_tol, "baseline": baseline, "binarize": binarize, "n_thresholds": n_thresholds}
    return Explanation(params=params, metrics=metrics, payload=payload, text="\n".join(text),
                       figures=figures, estimator=estimator)
