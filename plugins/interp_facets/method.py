"""The ``facets`` method of ``interp run``: data -> readable 0/1 features -> FacetsClassifier
for a binary target, FacetsRegressor for a numeric one (at most ``max_rows`` rows by the card
search, or at a fixed or CV-chosen (lam, gamma)) -> an Explanation with the score card and its
table (the risk, or the prediction, at every total), the rounded baseline beside it, the plots
and the metrics."""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import numpy as np
from sklearn.base import clone, is_regressor
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

from interp import Explanation, InputError
from interp.data import check_finite
from interp.preprocessing import binary_labels, infer_task

from .cv import FacetsClassifierCV, FacetsRegressorCV, IntegrityWarning, grid_load
from .estimators import FacetsClassifier, FacetsRegressor
from .export import CardPipeline
from .features import CardFeatures, card_features
from .path import fit_path
from .plots import plot_cv, plot_path, plot_predictions, plot_risk
from .problem import Objective
from .render import method_sections, pool_payload
from .scorecard import ScoreCard, no_card_reason, rounded_baseline, score_card
from .solver import SolverOptions
from .space import RowLimits, space_of
from .validation import check_fit_memory, check_positive, check_snap_tol

#: the fixed-(lam, gamma) path plot: betas from 10^1.5 times the chosen one down to 10^-1.5 times
PATH_DECADES, PATH_POINTS, PATH_MAX_ITER = 1.5, 25, 500


@attrs.frozen(eq=False)
class Fit:
    """What the fitting step hands on: the ``estimator`` that ran (saved with ``--out``), the
    delivered classifier (regressor) ``model``, the (``lam``, ``gamma``) it was fitted at, its figures and,
    after a CV, the grid's ``metrics``, its ``cv`` payload and whether it fell back to the most
    integral point (``fallback``) and, when the grid ran on a subsample, its rows (``cv_sample``,
    indices; None when it ran on all of them)."""

    estimator: Any
    model: FacetsClassifier | FacetsRegressor
    lam: float
    gamma: float
    figures: dict
    metrics: dict = attrs.field(factory=dict)
    cv: dict | None = None
    fallback: bool = False
    cv_sample: np.ndarray | None = None


@attrs.frozen(eq=False)
class Baseline:
    """The rounded logistic regression (least squares, for a regressor's card) the card is
    compared with: what it is, the card's grid step it was rounded to, its own card and its
    accuracies (R^2)."""

    description: str
    grid: float
    card: ScoreCard
    train_score: float
    cv_score: float | None
    regression: bool = False

    @property
    def score_name(self) -> str:
        """What the scores are, as a table heads them: accuracy, or R^2."""
        return "R^2" if self.regression else "accuracy"


def run(data, ctx, *, lam, gamma, cv, penalty, penalty_params, solver, n_gammas, n_betas, tol, max_iter,
        snap_tol, baseline, binarize, n_thresholds, max_cv_rows, max_rows, max_points, pool,
        monotone, card_ridge) -> Explanation:
    """Fit a score card at (lam, gamma), or choose them by CV, and explain it.

    Why so many parameters: beside ``data`` and ``ctx``, one keyword per option of
    ``FACETS_METHOD`` (19, and ``penalty_params``: the chosen penalty's parameters, ``--eps``
    among them), with no defaults.  The options are declared once, in ``plugin.py``; the core
    (``interp.component_options.resolve_options``) converts, checks and defaults every one, resolves the penalty
    and its parameters, and calls ``run(data, ctx, **options)``, so the signature is the option
    list, named, and a record bundling them here would declare them a second time.  The core
    also records them as the explanation's ``params``; the run adds the (lam, gamma) it chose.
    """
    regression = _check_data(data)
    folds = _check_options(lam, gamma, cv, snap_tol)
    design = _design(data, binarize, n_thresholds)
    X, names = design.X, list(design.names)
    check_finite(X, names)
    if pool and not folds:
        raise InputError("--pool needs the card search of a CV fit: leave out --lam and --gamma")
    y = data.y.astype(float) if regression else data.y
    _check_memory(data, design, folds, n_gammas, n_betas, max_rows, ctx.n_jobs)
    settings = dict(penalty=penalty, penalty_params=penalty_params, solver=solver, tol=tol, max_iter=max_iter,
                    snap_tol=snap_tol, max_rows=max_rows or None, max_points=max_points,
                    groups=design.groups or None, card_ridge=card_ridge,
                    monotone=design.data_directions() if monotone == "auto" else None)
    seed = 0 if ctx.seed is None else ctx.seed
    splitter = ((KFold if regression else StratifiedKFold)(folds, shuffle=True, random_state=seed)
                if folds else None)
    if folds:
        cv_class = FacetsRegressorCV if regression else FacetsClassifierCV
        fit = _fit_cv(cv_class(gammas=n_gammas, betas=n_betas, cv=folds, n_jobs=ctx.n_jobs, random_state=seed,
                               max_cv_rows=max_cv_rows or None, pool=pool or None, **settings), X, y, names, splitter)
    else:
        fixed_class = FacetsRegressor if regression else FacetsClassifier
        fit = _fit_fixed(fixed_class(lam=lam, gamma=gamma, **settings), X, y, names)
    no_card = no_card_reason(fit.model)
    card = None if no_card else score_card(fit.model, names, X, y=y, target=data.target_name or "y")
    figures = {**fit.figures, **(_card_figure(card, X, y) if card is not None else {})}
    base = _baseline(X, y, names, fit, baseline, splitter, seed, data.target_name or "y")
    accuracy = float(fit.model.score(X, y))
    return Explanation(
        params={"lam": fit.lam, "gamma": fit.gamma, "cv": folds},
        metrics=_metrics(fit, base, accuracy, regression),
        payload=_payload(fit, card, base, names, no_card),
        sections=method_sections(card, fit, base, accuracy, names, no_card),
        figures=figures,
        estimator=_saved_model(design, fit.estimator),
        **card_headline(card, no_card),
    )


def _card_figure(card: ScoreCard, X, y) -> dict:
    """The card's own figure: its risk by total, or a regressor's prediction by total over the
    training rows."""
    if card.regression:
        return {"predictions": plot_predictions(card, X @ np.asarray(card.points, dtype=float), y)}
    return {"risk": plot_risk(card)}


def card_headline(card, no_card: str | None) -> dict:
    """The report's summary of a card: its number of rows, and its three heaviest rows."""
    if card is None:
        return {"size": "no card", "finding": no_card or ""}
    rows = sorted((p, f) for f, p in zip(card.features, card.points) if p != 0)
    heaviest = sorted(rows, key=lambda r: -abs(r[0]))[:3]
    finding = "; ".join(f"{f} {p:+d}" for p, f in heaviest)
    return {"size": f"{len(rows)} rows", "finding": f"heaviest rows: {finding}" if finding else "no row has points"}


def _saved_model(design: CardFeatures, estimator):
    """The model ``--out`` saves: ``Pipeline([("features", binarizer), ("card", estimator)])``,
    which takes the user's own columns (a DataFrame of the raw rows, text columns included, or
    an array in their order) and predicts as the card does; ``estimator`` alone when the card
    is written in the columns as given (``binarize`` never: no binarizer).

    Without it a saved model would need the card's design, which only the binarizer fitted here
    can rebuild from new rows.  The fitted ``estimator`` (with ``cv_results_``, ``best_estimator_`` after
    a CV) is the pipeline's last step, ``model[-1]``.
    """
    if design.binarizer is None:
        return estimator
    return CardPipeline([("features", design.binarizer), ("card", estimator)])


def _design(data, binarize, n_thresholds) -> CardFeatures:
    """The features the card is written in: readable columns such as ``age >= 50`` and integer
    codes counted per unit (see `.features`; ``binarize`` auto or always), or the columns
    as given (never: no binarizer).

    Points on raw measurements (areas in the thousands beside ratios below one) cannot share one
    grid step; thresholded 0/1 features give a card a person can add up.  0/1 columns pass
    through the card features unchanged (once: a twin or complement column is dropped), so
    auto, which binarises when some column is not 0/1, and always give the same design.
    """
    if binarize == "never":
        if np.isnan(data.X).any():
            raise InputError("missing values need the card's readable features, where a missing value "
                             "is a row of its own ('x is missing'): leave out --binarize never")
        return CardFeatures(np.asarray(data.X, dtype=float), tuple(data.feature_names))
    return card_features(data.X, data.feature_names, raw=data.raw, n_thresholds=n_thresholds)


def _check_data(data) -> bool:
    """Whether the card predicts a number (a numeric target with more values than classes,
    ``interp.preprocessing.infer_task``) rather than a class; a one-line InputError unless the
    target is binary or numeric and no input column constant (a constant column's points would
    only shift the threshold; a column missing on every row is constant).  Missing numbers are
    NaN here: the design makes them a row of their own."""
    X, names = data.X, data.feature_names
    if data.y is None:
        raise InputError("facets needs a target column")
    regression = infer_task(data.y) == "regression"
    classes = np.unique(data.y)
    if not regression and classes.size != 2:
        shown = ", ".join(map(str, classes[:5])) + (", ..." if classes.size > 5 else "")
        raise InputError(
            f"facets needs a binary target; {data.target_name!r} has {classes.size} classes ({shown})"
        )
    present = ~np.isnan(X)
    lowest = np.where(present, X, np.inf).min(axis=0)
    const = [names[j] for j in np.flatnonzero(np.where(present, X, -np.inf).max(axis=0) <= lowest)]
    if const:
        more = f" and {len(const) - 3} more" if len(const) > 3 else ""
        raise InputError(
            f"constant feature{'s' if len(const) > 1 else ''} {', '.join(map(repr, const[:3]))}{more}: "
            "drop them (an intercept already plays their role)"
        )
    return regression


def _check_options(lam, gamma, cv, snap_tol) -> int:
    """One-line errors before any work; the number of CV folds (0: fit at the given lam, gamma).
    The penalty and its parameters are checked by the core."""
    if (lam is None) != (gamma is None):
        raise InputError("give both --lam and --gamma, or --cv K to choose them by cross-validation")
    if lam is not None:
        check_positive("lam", lam)
        check_positive("gamma", gamma)
    check_snap_tol(snap_tol)
    if cv == 1:
        raise InputError("--cv needs at least 2 folds")
    return cv or (0 if lam is not None else 5)


def _check_memory(data, design: CardFeatures, folds: int, n_gammas, n_betas, max_rows, n_jobs) -> None:
    """The memory check of the fit asked for, before any work, in the command line's words."""
    n, d = design.X.shape
    points, workers = grid_load(n_gammas, n_betas, max_rows=max_rows or None, folds=folds or 5,
                                n_jobs=n_jobs if folds else 1)
    columns = f" (from {data.n_features:,} columns)" if design.binarizer is not None else ""
    check_fit_memory(n, d, points, workers=workers, folds=folds or 5,
                     what=f"facets on {n:,} rows x {d:,} card features{columns}",
                     advice={"n_features": "drop columns" + (", or lower --n-thresholds" if columns else ""),
                             "n_rows": "subsample the rows", "grid_points": "lower --n-gammas or --n-betas"})


def score_key(regression: bool) -> str:
    """The name of the card's score in the metrics and the payload: accuracy, or a regressor's
    R^2."""
    return "r2" if regression else "accuracy"


def _fit_cv(est: FacetsClassifierCV | FacetsRegressorCV, X, y, names, splitter) -> Fit:
    """Choose the card: by CV over the (lam, gamma) grid (noting whether no grid point was
    integral on every fold) or, with ``max_rows``, by the card search, whose accuracy (R^2) is
    then measured by ``splitter``'s folds, the whole search rerun on each."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IntegrityWarning)
        est.fit(X, y)
    key = f"cv_{score_key(is_regressor(est))}"
    cv = {"folds": int(est.cv), "gammas": est.gammas_, "betas": est.betas_, "best_gamma": est.best_gamma_,
          "best_beta": est.best_beta_, "best_lam": est.best_lam_}
    if hasattr(est, "cv_results_"):
        metrics = {key: est.best_score_, "grid_points": int(est.gammas_.size * est.betas_.size),
                   "integral_points": est.n_integral_, "null_points": est.n_null_}
        cv.update({f"best_{key}": est.best_score_, "integral_points": est.n_integral_, "null_points": est.n_null_,
                   "selected_fully_integral": bool(est.selected_integral_)})
    else:
        rows = slice(None) if est.cv_sample_ is None else est.cv_sample_
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = cross_val_score(clone(est).set_params(max_cv_rows=None, pool=None), X[rows], np.asarray(y)[rows],
                                     cv=splitter)
        metrics = {key: float(np.mean(scores)), "grid_points": int(est.gammas_.size * est.betas_.size)}
        cv.update({f"best_{key}": metrics[key], "search": est.search_results_})
    if est.subsampled_:
        metrics["cv_rows"] = cv["rows"] = est.cv_rows_
        cv["total_rows"] = int(X.shape[0])
    return Fit(est, est.best_estimator_, est.best_lam_, est.best_gamma_, plot_cv(est, names), metrics, cv,
               fallback=any(issubclass(w.category, IntegrityWarning) for w in caught),
               cv_sample=est.cv_sample_)


def _fit_fixed(model: FacetsClassifier | FacetsRegressor, X, y, names) -> Fit:
    """Fit at the given (lam, gamma), and plot the path through it (a short one: betas over
    ``PATH_DECADES`` decades either side, at most ``PATH_MAX_ITER`` iterations per fit, in the
    model's bounds: its points and directions)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    lam, gamma = model.lam, model.gamma
    beta = lam / gamma**2
    betas = beta * np.logspace(PATH_DECADES, -PATH_DECADES, PATH_POINTS)
    loss, target = ("squared", y) if is_regressor(model) else ("logistic", binary_labels(y, signed=True).values)
    space = space_of(model, X, target, RowLimits(model.max_rows, model.max_points, model.max_features))
    objective = Objective(loss, model.penalty_, model.penalty_params_, gamma=gamma,
                          max_points=model.max_points, bounds=space.solver_box)
    options = SolverOptions(model.solver, model.tol, min(model.max_iter, PATH_MAX_ITER))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = fit_path(X, target, objective, betas * gamma**2, options)
    figure = plot_path(betas, gamma * path.coefs, gamma, names, selected_beta=beta)
    return Fit(model, model, lam, gamma, {"path": figure})


def _baseline(X, y, names, fit: Fit, kind: str, splitter, seed: int, target: str) -> Baseline:
    """Logistic regression (least squares, for a regressor's card) rounded to the grid step of
    ``fit``'s card, on the whole data and, with a ``splitter`` (else None), in CV on the card's
    CV rows (``fit.cv_sample``, indices; None: all), so that the two CV scores are measured on
    the same folds; ``seed`` is the L1 solver's random state; ``target`` the name a regressor's
    card predicts."""
    grid, cv_sample, regression = float(fit.model.gamma_), fit.cv_sample, is_regressor(fit.model)
    base = rounded_baseline(X, y, grid, kind=kind, random_state=seed, regression=regression)
    cv_score = None
    if splitter is not None:
        Xc, yc = (X, y) if cv_sample is None else (X[cv_sample], y[cv_sample])
        scores = [rounded_baseline(Xc[tr], yc[tr], grid, kind=kind, random_state=seed, regression=regression)
                  .score(Xc[te], yc[te]) for tr, te in splitter.split(Xc, yc)]
        cv_score = float(np.mean(scores))
    penalty = "unpenalised" if kind == "none" else "L1"
    description = (f"least squares ({penalty}), rounded to the same grid, scale and intercept refitted" if regression
                   else f"logistic regression ({penalty}), rounded to the same grid, threshold refitted")
    return Baseline(description, grid, score_card(base, names, X, target=target), base.score(X, y), cv_score,
                    regression)


def _metrics(fit: Fit, base: Baseline, accuracy: float, regression: bool) -> dict:
    """The run's metrics: the card's training score (accuracy, or R^2) and CV score, its
    integrity and size, and the baseline's scores."""
    model, key = fit.model, score_key(regression)
    metrics = {
        f"train_{key}": accuracy,
        **fit.metrics,
        "integrity": model.integrity_,
        "integrity_nonzero": model.integrity_nonzero_,
        "snapped_coefficients": model.n_snapped_,
        "nonzeros": int(np.count_nonzero(model.points_)),
        "max_points": int(np.max(np.abs(model.points_), initial=0)),
        f"baseline_train_{key}": base.train_score,
        "n_iter": int(fit.estimator.n_iter_),
    }
    if base.cv_score is not None:
        metrics[f"baseline_cv_{key}"] = base.cv_score
    return metrics


def _payload(fit: Fit, card: ScoreCard | None, base: Baseline, names, no_card: str | None) -> dict:
    """The JSON payload: the card (None, and ``no_card`` saying why, when the model is not
    integral), the fit, the baseline and, with a pool, its cards and feature shares."""
    model = fit.model
    key = score_key(base.regression)
    baseline = {"kind": base.description, "score_card": base.card.to_dict(), f"train_{key}": base.train_score}
    if base.cv_score is not None:
        baseline[f"cv_{key}"] = base.cv_score
    return {
        **({"cv": fit.cv} if fit.cv is not None else {}),
        **({"pool": pool_payload(fit.estimator, names)} if hasattr(fit.estimator, "pool_") else {}),
        "score_card": card.to_dict() if card is not None else None,
        **({"no_card": no_card} if no_card else {}),
        "lam": fit.lam,
        "gamma": fit.gamma,
        "beta": fit.lam / fit.gamma**2,
        "penalty": model.penalty_.name,
        "penalty_params": model.penalty_params_,
        "coef": np.ravel(model.coef_),
        "intercept": float(np.ravel(model.intercept_)[0]),
        "feature_names": names,
        "integrity": model.integrity_,
        "integrity_nonzero": model.integrity_nonzero_,
        "snapped_coefficients": model.n_snapped_,
        "snap_objective_increase": model.snap_gap_,
        "fully_integral": not model.integrity_ < 1,
        "integral_on_every_fold": not fit.fallback,
        "baseline": baseline,
    }
