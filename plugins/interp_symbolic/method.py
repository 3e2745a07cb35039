"""The ``symbolic`` method: data -> black box -> symbolic surrogate on its outputs -> Explanation.

The rows are split once; the black box is trained (or taken) and read on the training rows, the
symbolic model is fitted to those outputs, and both are compared on the held-out rows.  Above
``--max-blackbox-rows`` / ``--max-fit-rows`` training rows, the black box is trained and the
symbolic model fitted on random subsamples of them (the output says so), which keeps the time
and memory of both fits bounded; fidelity is measured on every held-out row.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import attrs
import numpy as np
from interp import Explanation, InputError
from interp.blas import single_threaded_blas
from interp.data import check_finite, columns_for_model
from interp.preprocessing import infer_task
from interp.resources import ResourceError

from .blackbox import MAX_BLACKBOX_ROWS, MAX_FIT_ROWS, blackbox_outputs, make_blackbox
from .estimator import (SymbolicPursuitClassifier, SymbolicPursuitRegressor, _sigmoid, check_fit_memory,
                        check_fit_work, starts_per_step)
from .render import explanation, headline, model_formula

MIN_ROWS = 4  # two to fit on (the pursuit needs 2) and at least one held out
#: the most features the method takes: every term's projection, and so every formula printed,
#: has one coefficient per feature (2,000 features on 50 rows took a minute; 10,000 over four)
MAX_FEATURES = 2_000
TASKS = ("regression", "classification")
HEADLINE_CHARS = 120  # the formula's first line in the report's summary table


def run(data, ctx, *, model, max_terms, test_size, max_blackbox_rows, max_fit_rows,
        **estimator_options) -> Explanation:
    """``interp run --method symbolic``: the options declared by ``SYMBOLIC_METHOD``, checked
    and defaulted by the core; the estimator's options (n_restarts, maxiter, loss_tol,
    ratio_tol, simplify_tol, model_selection, and families: the names the core selected) pass
    through.  A model given with ``--model-file`` is the black box; the task is the data set's
    (``explain_blackbox`` infers it by the same rule)."""
    if data.n_features > MAX_FEATURES:
        raise ResourceError(f"symbolic writes every feature into each term's formula: {data.n_features:,} features "
                            f"are beyond its bound of {MAX_FEATURES:,}; select at most {MAX_FEATURES:,} features "
                            "first (SymbolicPursuitRegressor from Python has no such bound)")
    box = ctx.model if ctx.model is not None else model
    return explain_blackbox(box, data.X, data.y, feature_names=list(data.feature_names),
                            max_terms=max_terms, test_size=test_size, random_state=ctx.seed,
                            n_jobs=ctx.n_jobs, max_blackbox_rows=max_blackbox_rows,
                            max_fit_rows=max_fit_rows, **estimator_options)


@dataclass(frozen=True)
class Inputs:
    """The checked table, target (or None) and feature names."""

    X: np.ndarray
    y: np.ndarray | None
    names: list[str]


@dataclass(frozen=True)
class Split:
    """Training and held-out row indices, and the training rows the black box is trained on
    (``blackbox``) and the symbolic model fitted on (``fit``): all of ``train`` up to the row
    limits, random subsamples of it above them."""

    train: np.ndarray
    test: np.ndarray
    blackbox: np.ndarray
    fit: np.ndarray

    def notes(self, trained: bool) -> list[str]:
        """What the output says about the subsamples used (nothing when none was)."""
        out = []
        if trained and len(self.blackbox) < len(self.train):
            out.append(f"The black box was trained on a random {len(self.blackbox):,} of the "
                       f"{len(self.train):,} training rows (--max-blackbox-rows).")
        if len(self.fit) < len(self.train):
            out.append(f"The symbolic model was fitted to the black box's outputs on a random "
                       f"{len(self.fit):,} of the {len(self.train):,} training rows (--max-fit-rows); "
                       f"fidelity is measured on all {len(self.test):,} held-out rows.")
        return out


@dataclass(frozen=True)
class BlackBox:
    """The model being explained, the name the report gives it and the data's ``columns`` it
    takes, in its order (None: all, as they are, as a black box trained here takes them)."""

    model: Any
    name: str
    columns: list[int] | None = None

    def rows(self, X: np.ndarray):
        """Rows of the data as the model takes them: its columns in its order, as a DataFrame
        with its column names when it was fitted with names."""
        X = X if self.columns is None else X[:, self.columns]
        names = getattr(self.model, "feature_names_in_", None)
        if names is None:
            return X
        import pandas as pd

        return pd.DataFrame(X, columns=[str(n) for n in names])


@dataclass(frozen=True)
class Surrogate:
    """A fitted symbolic model, the rows it was fitted on (``rows``, a DataFrame with the
    feature names) and the outputs it was compared on (the held-out rows); a classifier's
    predicted labels there too (``symbolic_labels``, else None)."""

    estimator: Any
    blackbox: str
    task: str
    names: list[str]
    rows: Any
    blackbox_test: np.ndarray
    symbolic_test: np.ndarray
    fit_seconds: float
    symbolic_labels: np.ndarray | None = None


def explain_blackbox(model, X, y=None, *, feature_names=None, task=None, max_terms=3, test_size=0.25,
                     random_state=None, n_jobs=None, max_blackbox_rows=MAX_BLACKBOX_ROWS,
                     max_fit_rows=MAX_FIT_ROWS, **estimator_options) -> Explanation:
    """Fit a symbolic model to a black box and report fidelity, error, expression, importances.

    ``model``: "mlp", "gbm", "rf" or "svm" (trained here on the train split, ``y`` needed), or a
    fitted estimator (its ``predict``/``predict_proba`` is the black box).  ``task``:
    "regression" or "classification" (default: ``interp.preprocessing.infer_task(y)``, or
    regression without ``y``).  ``max_blackbox_rows`` / ``max_fit_rows``: above this many
    training rows, the black box is trained / the symbolic model fitted on a random subsample
    of them.  ``estimator_options`` (n_restarts, maxiter, families, model_selection, ...) go to
    the estimator; a ``model_selection`` given as digits (from the command line) is that
    number of terms.

    Eleven parameters, on purpose: ``feature_names`` and ``task`` describe the data, and every
    other keyword is one option of the ``symbolic`` method (``run`` passes them on as the core
    resolved them), taken as keywords the way a scikit-learn estimator takes its
    hyperparameters, so a Python call reads like the command line.  A settings record would
    only make every caller build one; the body groups them at once (the rows in ``Split``, the
    estimator's settings in one dict).
    """
    inputs = _inputs(X, y, feature_names)
    task = _task(task, inputs.y)
    split = _split(inputs, test_size, random_state, max_blackbox_rows=max_blackbox_rows,
                   max_fit_rows=max_fit_rows)
    options = dict(max_terms=max_terms, random_state=random_state, n_jobs=n_jobs, **estimator_options)
    if isinstance(options.get("model_selection"), str) and options["model_selection"].strip().isdigit():
        options["model_selection"] = int(options["model_selection"])
    n_starts = starts_per_step(options.get("families"), options.get("n_restarts", 3), options.get("monomials", True))
    check_fit_memory(len(split.fit), len(inputs.names), n_starts,
                     what=f"symbolic on {len(split.fit):,} fitted rows x {len(inputs.names):,} features",
                     advice={"n_rows": "lower --max-fit-rows", "n_features": "drop columns",
                             "n_starts": "lower --n-restarts"})
    check_fit_work(max_terms, n_starts, options.get("maxiter", SymbolicPursuitRegressor().maxiter), len(split.fit),
                   "--max-terms, --n-restarts, --maxiter or --max-fit-rows")
    box = _blackbox(model, inputs, split, task, random_state)
    fit = _fit_surrogate(box, inputs, split, task, options)
    metrics = _fidelity(fit, split)
    if inputs.y is not None:
        metrics.update(_accuracy_vs_target(fit, box, inputs, split))
    params = dict(estimator_options)
    params.update(model=box.name, max_terms=max_terms, test_size=test_size, task=task,
                  families=fit.estimator.families_, max_blackbox_rows=max_blackbox_rows,
                  max_fit_rows=max_fit_rows)
    result = explanation(fit, metrics, params, notes=split.notes(trained=isinstance(model, str)))
    return _with_headline(result, fit)


def _with_headline(result: Explanation, fit: Surrogate) -> Explanation:
    """``result`` with the report's summary: terms and features read, and the formula's first
    line with a classifier's link (``render.headline``, at most ``HEADLINE_CHARS``)."""
    est = fit.estimator
    used = int(np.count_nonzero(np.asarray(est.feature_importances_) != 0))
    cut = headline(model_formula(est), HEADLINE_CHARS) if est.expression_ is not None else ""
    return attrs.evolve(result, size=f"{est.n_terms_} term{'s' if est.n_terms_ != 1 else ''}, {used} of {len(fit.names)} features", finding=cut)


def _inputs(X, y, feature_names) -> Inputs:
    if hasattr(X, "columns") and feature_names is None:
        feature_names = [str(c) for c in X.columns]
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise InputError(f"X must be a 2-d table, got shape {X.shape}")
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(X.shape[1])]
    check_finite(X, names)
    if X.shape[0] < MIN_ROWS:
        raise InputError(f"symbolic needs at least {MIN_ROWS} rows (train and held-out), got {X.shape[0]}")
    if y is not None:
        y = np.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise InputError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        if y.dtype.kind in "fc":
            check_finite(y.astype(float), what="y")
    return Inputs(X=X, y=y, names=names)


def _task(task, y) -> str:
    if task is None:
        task = infer_task(y) if y is not None else "regression"
    if task not in TASKS:
        raise InputError(f"task must be regression or classification, got {task!r}")
    if y is not None and len(np.unique(y)) < 2:
        raise InputError("the target is constant: there is nothing to explain")
    return task


def _split(inputs: Inputs, test_size, random_state, *, max_blackbox_rows, max_fit_rows) -> Split:
    """The train/held-out split, and the random subsamples of the training rows within the row
    limits (the black box's first, then the fit's, from one generator)."""
    from sklearn.model_selection import train_test_split

    n = inputs.X.shape[0]
    if not 0 < test_size < 1:
        raise InputError(f"test_size must be strictly between 0 and 1, got {test_size}")
    n_test = int(np.ceil(test_size * n))
    if n - n_test < 2:
        raise InputError(f"test_size {test_size} leaves {n - n_test} of {n} rows to fit on: 2 are needed")
    for limit, flag in ((max_blackbox_rows, "--max-blackbox-rows"), (max_fit_rows, "--max-fit-rows")):
        if not (isinstance(limit, (int, np.integer)) and limit >= 2):
            raise InputError(f"{flag} must be an integer >= 2, got {limit!r}")
    train, test = train_test_split(np.arange(n), test_size=test_size, random_state=random_state)
    rng = np.random.default_rng(random_state)
    return Split(train=train, test=test, blackbox=_subsample(train, max_blackbox_rows, rng),
                 fit=_subsample(train, max_fit_rows, rng))


def _subsample(rows: np.ndarray, limit: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` itself when it holds at most ``limit`` rows, else ``limit`` of them drawn by
    ``rng`` without replacement (in their original order)."""
    if len(rows) <= limit:
        return rows
    return np.sort(rng.choice(rows, size=limit, replace=False))


def _blackbox(model, inputs: Inputs, split: Split, task, random_state) -> BlackBox:
    """The black box: ``model`` itself, or trained here on the training rows when it is a name."""
    if not isinstance(model, str):
        return BlackBox(model, type(model).__name__, columns_for_model(model, inputs.names, "the model"))
    if inputs.y is None:
        raise InputError(f"training the {model!r} black box needs a target y")
    box = make_blackbox(model, task == "classification", random_state)
    # BLAS on one thread: the MLP's products are minibatches of 200 rows, and threading them
    # only adds synchronisation (the weights are the same; docs/methods/symbolic.md, "Scale").
    # Reading the box stays threaded: its large products round differently on one thread.
    with single_threaded_blas():
        box.fit(inputs.X[split.blackbox], inputs.y[split.blackbox])
    return BlackBox(box, model)


def _fit_surrogate(box: BlackBox, inputs: Inputs, split: Split, task, options) -> Surrogate:
    """The symbolic model fitted to the black box's outputs on the training rows.

    A classifier is fitted to the black box's probabilities, with the true labels (or the black
    box's own, without a target) as its classes.
    """
    classification = task == "classification"
    out_tr = blackbox_outputs(box.model, box.rows(inputs.X[split.fit]), classification)
    out_te = blackbox_outputs(box.model, box.rows(inputs.X[split.test]), classification)
    if np.ptp(out_tr) == 0:
        raise InputError("the black box is constant on the training rows: there is nothing to explain")
    X_tr, X_te = _frame(inputs, split.fit), _frame(inputs, split.test)
    t0 = time.perf_counter()
    sym_labels = None
    if classification:
        labels = inputs.y[split.fit] if inputs.y is not None else box.model.predict(box.rows(inputs.X[split.fit]))
        est = SymbolicPursuitClassifier(**options).fit(X_tr, labels, proba=out_tr)
        fit_seconds = time.perf_counter() - t0
        # predict_proba's and predict's rules on one evaluation of the sum (every held-out row)
        decision = est.decision_function(X_te)
        sym_te, sym_labels = _sigmoid(decision), est.classes_[(decision > 0).astype(int)]
    else:
        est = SymbolicPursuitRegressor(**options).fit(X_tr, out_tr)
        fit_seconds = time.perf_counter() - t0
        sym_te = est.predict(X_te)
    return Surrogate(estimator=est, blackbox=box.name, task=task, names=inputs.names, rows=X_tr,
                     blackbox_test=out_te, symbolic_test=sym_te, fit_seconds=fit_seconds,
                     symbolic_labels=sym_labels)


def _fidelity(fit: Surrogate, split: Split) -> dict:
    """How closely the symbolic model follows the black box on the held-out rows."""
    mse = float(np.mean((fit.symbolic_test - fit.blackbox_test) ** 2))
    var = float(np.var(fit.blackbox_test))
    r2 = 1 - mse / var if var > 0 else float("nan")
    return dict(fidelity_r2=r2, fidelity_mse=mse, n_terms=fit.estimator.n_terms_, fit_seconds=fit.fit_seconds,
                n_train=len(split.train), n_test=len(split.test), n_fit=len(split.fit))


def _accuracy_vs_target(fit: Surrogate, box: BlackBox, inputs: Inputs, split: Split) -> dict:
    """The black box's and the symbolic model's accuracy (or MSE and R^2) on the true target."""
    y_te = inputs.y[split.test]
    if fit.task == "classification":
        box_pred = np.asarray(box.model.predict(box.rows(inputs.X[split.test])))
        return dict(blackbox_accuracy=float(np.mean(box_pred == y_te)),
                    symbolic_accuracy=float(np.mean(fit.symbolic_labels == y_te)))
    yt = y_te.astype(float)
    vy = float(np.var(yt)) or 1.0
    out = {}
    for key, pred in (("blackbox", fit.blackbox_test), ("symbolic", fit.symbolic_test)):
        e = float(np.mean((pred - yt) ** 2))
        out[f"{key}_mse"] = e
        out[f"{key}_r2"] = 1 - e / vy
    return out


def _frame(inputs: Inputs, rows):
    """The rows as a DataFrame with the feature names, which the estimator records and checks."""
    import pandas as pd

    return pd.DataFrame(inputs.X[rows], columns=inputs.names)
