"""explain_blackbox: train (or take) a black box, fit symbolic pursuit on its outputs, report."""

from __future__ import annotations

import time

import numpy as np
import sympy
from interp import Explanation, InputError
from interp.data import check_finite

from .estimator import SymbolicPursuitClassifier, SymbolicPursuitRegressor
from .plots import plot_fidelity

BLACK_BOXES = ("mlp", "gbm", "rf", "svm")


def make_blackbox(kind: str, classification: bool, random_state=None):
    from sklearn.ensemble import (GradientBoostingClassifier, GradientBoostingRegressor,
                                  RandomForestClassifier, RandomForestRegressor)
    from sklearn.neural_network import MLPClassifier, MLPRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, SVR

    from sklearn.compose import TransformedTargetRegressor

    def scaled_target(reg):  # networks and SVR need a standardised target
        return TransformedTargetRegressor(regressor=reg, transformer=StandardScaler())

    if kind == "mlp":
        if classification:
            return make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(64, 64), alpha=1e-2,
                                                                 max_iter=2000, random_state=random_state))
        return scaled_target(make_pipeline(StandardScaler(), MLPRegressor(
            hidden_layer_sizes=(64, 64), alpha=1.0, max_iter=2000, early_stopping=True,
            random_state=random_state)))
    if kind == "gbm":
        cls = GradientBoostingClassifier if classification else GradientBoostingRegressor
        return cls(random_state=random_state)
    if kind == "rf":
        cls = RandomForestClassifier if classification else RandomForestRegressor
        return cls(n_estimators=200, random_state=random_state)
    if kind == "svm":
        if classification:
            return make_pipeline(StandardScaler(), SVC(probability=True, random_state=random_state))
        return scaled_target(make_pipeline(StandardScaler(), SVR()))
    raise InputError(f"unknown black box {kind!r}: choose one of {', '.join(BLACK_BOXES)}")


def _outputs(model, X, classification):
    if classification:
        if not hasattr(model, "predict_proba"):
            raise InputError("the black box has no predict_proba: symbolic classification needs probabilities")
        P = np.asarray(model.predict_proba(X), dtype=float)
        if P.ndim != 2 or P.shape[1] != 2:
            raise InputError(f"symbolic classification handles two classes, the black box gives {P.shape[-1]}")
        out = P[:, 1]
    else:
        out = np.asarray(model.predict(X), dtype=float).ravel()
    if not np.all(np.isfinite(out)):
        raise InputError(f"the black box returned {int(np.sum(~np.isfinite(out)))} NaN/inf outputs")
    return out


def explain_blackbox(model, X, y=None, *, feature_names=None, task=None, max_terms=3, test_size=0.25,
                     random_state=None, n_jobs=None, **estimator_options) -> Explanation:
    """Fit a symbolic model to a black box and report fidelity, error, expression, importances.

    ``model``: "mlp", "gbm", "rf" or "svm" (trained here on the train split, ``y`` needed), or a
    fitted estimator (its ``predict``/``predict_proba`` is the black box).  ``task``:
    "regression" or "classification" (default: from ``y``'s type, or regression).
    """
    from sklearn.model_selection import train_test_split

    if hasattr(X, "columns") and feature_names is None:
        feature_names = [str(c) for c in X.columns]
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise InputError(f"X must be a 2-d table, got shape {X.shape}")
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(X.shape[1])]
    check_finite(X, names)
    if X.shape[0] < 4:
        raise InputError(f"symbolic needs at least 4 rows (train and held-out), got {X.shape[0]}")
    if y is not None:
        y = np.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise InputError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        if y.dtype.kind in "fc":
            check_finite(y.astype(float), what="y")
    if task is None:
        task = "classification" if (y is not None and (y.dtype.kind in "OUSb")) else "regression"
    classification = task == "classification"
    if y is not None and len(np.unique(y)) < 2:
        raise InputError("the target is constant: there is nothing to explain")
    idx = np.arange(X.shape[0])
    tr, te = train_test_split(idx, test_size=test_size, random_state=random_state)
    if isinstance(model, str):
        if y is None:
            raise InputError(f"training the {model!r} black box needs a target y")
        bb = make_blackbox(model, classification, random_state)
        bb.fit(X[tr], y[tr])
        bb_name = model
    else:
        bb = model
        bb_name = type(model).__name__
    out_tr = _outputs(bb, X[tr], classification)
    out_te = _outputs(bb, X[te], classification)
    if np.ptp(out_tr) == 0:
        raise InputError("the black box is constant on the training rows: there is nothing to explain")
    Est = SymbolicPursuitClassifier if classification else SymbolicPursuitRegressor
    est = Est(max_terms=max_terms, random_state=random_state, n_jobs=n_jobs, **estimator_options)
    import pandas as pd

    t0 = time.perf_counter()
    est.fit(pd.DataFrame(X[tr], columns=names), out_tr)
    fit_s = time.perf_counter() - t0
    sym_te = est.predict(pd.DataFrame(X[te], columns=names))
    mse = float(np.mean((sym_te - out_te) ** 2))
    var = float(np.var(out_te))
    r2 = 1 - mse / var if var > 0 else float("nan")
    metrics = dict(fidelity_r2=r2, fidelity_mse=mse, n_terms=est.n_terms_, fit_seconds=fit_s,
                   n_train=len(tr), n_test=len(te))
    if y is not None:
        if classification:
            classes = np.unique(y[tr])
            bb_pred = np.asarray(bb.predict(X[te]))
            sym_pred = np.where(sym_te >= 0.5, classes[-1], classes[0])
            metrics.update(blackbox_accuracy=float(np.mean(bb_pred == y[te])),
                           symbolic_accuracy=float(np.mean(sym_pred == y[te])))
        else:
            yt = y[te].astype(float)
            vy = float(np.var(yt)) or 1.0
            for key, pred in (("blackbox", out_te), ("symbolic", sym_te)):
                e = float(np.mean((pred - yt) ** 2))
                metrics[f"{key}_mse"] = e
                metrics[f"{key}_r2"] = 1 - e / vy
    imp = {n: float(v) for n, v in zip(names, est.feature_importances_)}
    order = sorted(imp, key=lambda n: -abs(imp[n]))
    d = len(names)
    pairs = sorted(((abs(est.interactions_[i, j]), names[i], names[j], float(est.interactions_[i, j]))
                    for i in range(d) for j in range(i + 1, d)), reverse=True)[:10]
    expr = est.expression_
    payload = dict(
        expression=str(expr), latex=est.to_latex(), mathml=est.to_mathml(),
        terms=[tm.as_dict() for tm in est.terms_], intercept=est.intercept_,
        feature_importances=imp, interactions=[dict(a=a, b=b, value=v) for _, a, b, v in pairs],
        loss_history=est.loss_history_, closed_forms=est.closed_forms_, blackbox=bb_name,
        scaling=dict(min=est.data_min_.tolist(), range=est.data_range_.tolist()),
    )
    shown = expr.xreplace({c: sympy.Float(c, 4) for c in expr.atoms(sympy.Float)})  # 4 digits to read
    lines = [f"Symbolic model of the {bb_name} black box ({est.n_terms_} terms, {task}):",
             f"  f(x) = {shown}", "",
             f"fidelity on {len(te)} held-out rows: R^2 = {r2:.4f}, MSE = {mse:.4g}   (fit {fit_s:.1f} s)"]
    for key in ("blackbox_r2", "symbolic_r2", "blackbox_accuracy", "symbolic_accuracy"):
        if key in metrics:
            lines.append(f"  {key.replace('_', ' ')} vs true target: {metrics[key]:.4f}")
    lines += ["", "feature importances (first-order Taylor coefficients at the data mean):"]
    lines += [f"  {n:<24s} {imp[n]: .4g}" for n in order[:15]]
    params = dict(estimator_options)
    params.update(model=bb_name, max_terms=max_terms, test_size=test_size, task=task, families=est.families_)
    figure = plot_fidelity(out_te, sym_te, imp, r2)
    return Explanation(params=params, metrics=metrics, payload=payload, text="\n".join(lines),
                       figures={"fidelity": figure}, estimator=est)


def run_method(data, ctx, *, model="mlp", max_terms=3, test_size=0.25, **options):
    task = data.task if data.y is not None else "regression"
    bb = ctx.model if getattr(ctx, "model", None) is not None else model
    return explain_blackbox(bb, data.X, data.y, feature_names=list(data.feature_names), task=task,
                            max_terms=max_terms, test_size=test_size, random_state=ctx.seed,
                            n_jobs=ctx.n_jobs, **options)
