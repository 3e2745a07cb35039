"""``interp.explain``: every method on the model a user brings, each with its fidelity.

The rows are split once.  Every method is fitted on the same fitting rows to what the model
says of them (``StudiedModel``): a method that explains a model itself (``Method.explains_model``:
symbolic, featurevec) gets the model, the others get its predicted classes as their target; for
a regressor, a method that takes a number (facets, ``Method.task`` "any" or "regression") gets
its prediction, one that needs a class (propositional) the decision "prediction > t", t the
median prediction unless given.  Each
method's result is then compared with the model on the held-out rows, which no method saw:
agreement with the model's classes and AUC against its probabilities, or R^2 against its
predictions.  A fidelity below ``LOW_AGREEMENT`` / ``LOW_R2`` is flagged in words.
"""

from __future__ import annotations

import time
from typing import Any, Iterable

import attrs
import numpy as np

from .data import Dataset, from_arrays, from_frame
from .errors import InputError, InterpError
from .fidelity import Fidelity, measure_fidelity
from .preprocessing import class_names
from .results import Explanation
from .sections import Table, Text, format_value
from .studied import ModelOutputs, StudiedModel, model_name, rows_for

FIT_TO = ("model", "data")
#: what ``for_rows`` says of a method whose result explains no single row and does not say why
#: itself (an estimator's ``rows_note``)
NO_ROWS = "no per-row explanation: this method's result does not explain single rows"


@attrs.frozen
class MethodResult:
    """One method's part: what it was fitted to (``fitted_to``, in words), its explanation and
    fidelity, its time, or the one line saying why it could not run (``error``)."""

    method: str
    fitted_to: str
    seconds: float
    explanation: Explanation | None = None
    fidelity: Fidelity | None = None
    error: str = ""
    bug: bool = False


@attrs.frozen
class ModelExplanation:
    """What ``interp.explain`` returns: the data, the model and one ``MethodResult`` per method.

    ``explanation["symbolic"]`` is a method's ``Explanation``; ``summary()`` is the text the
    command line prints, the notebook shows the report's first screen and sections."""

    data: str
    n_rows: int
    n_columns: int
    target: str
    model: str
    task: str
    decision: str
    held_out: int
    model_score: dict
    results: tuple[MethodResult, ...]
    left_out: tuple[str, ...] = ()
    output_name: str = "output"
    studied: StudiedModel | None = attrs.field(default=None, eq=False, repr=False)
    held_rows: np.ndarray | None = attrs.field(default=None, eq=False, repr=False)
    #: the model's output (``output_name``) on every row of the table, computed once by ``explain``
    model_scores: np.ndarray | None = attrs.field(default=None, eq=False, repr=False)

    def __getitem__(self, method: str) -> Explanation:
        for result in self.results:
            if result.method == method:
                if result.explanation is None:
                    raise KeyError(f"method {method!r} did not run: {result.error}")
                return result.explanation
        raise KeyError(f"no method {method!r} here; ran: {', '.join(r.method for r in self.results)}")

    def summary_table(self) -> Table:
        """Method x what it fitted x fidelity on held-out rows x size x time x finding."""
        rows = []
        for r in self.results:
            exp = r.explanation
            rows.append((r.method, r.fitted_to, r.fidelity.text() if r.fidelity else f"failed: {r.error}",
                         exp.size if exp else "", f"{r.seconds:.1f} s", exp.finding if exp else ""))
        return Table(("method", "fitted to", f"fidelity on {self.held_out:,} held-out rows", "size", "time",
                      "finding"), rows, title="Summary")

    def headline(self) -> str:
        """The data and the model in two lines."""
        score = ", ".join(f"{k} {format_value(v)}" for k, v in self.model_score.items())
        return (f"data: {self.data}, {self.n_rows:,} rows x {self.n_columns:,} columns"
                + (f", target {self.target!r}" if self.target else "") + "\n"
                + f"model: {self.model} ({self.task}; explained: {self.decision})"
                + (f"; on the held-out rows against the target: {score}" if score else "")
                + (f"\ncolumns the model does not read, left out: {', '.join(self.left_out)}" if self.left_out else ""))

    def summary(self) -> str:
        from .sections import render_sections

        return self.headline() + "\n\n" + render_sections((self.summary_table(),))

    def for_rows(self, rows: Any) -> "RowsExplained":
        """Why the model and each method answer as they do for ``rows``: positions in the
        table given to ``explain``, or a DataFrame of new rows in its columns.  Each method
        that explains single rows gives a ``RowExplanation`` per row (contributions that sum to
        its output), with the model's own output beside it; the others say why not."""
        frame, encoded = self._rows(rows)
        model_out = self.studied.outputs(encoded).scores
        by_method, notes = {}, {}
        for result in self.results:
            if result.explanation is None:
                continue
            est = result.explanation.estimator
            if not hasattr(est, "for_rows"):
                notes[result.method] = getattr(est, "rows_note", NO_ROWS)
                continue
            explained = est.for_rows(rows_for(est, frame, encoded, self.studied))
            by_method[result.method] = [attrs.evolve(r, model_output=float(m)) for r, m in zip(explained, model_out)]
        return RowsExplained(tuple(frame.index), by_method, notes, self.output_name)

    def _rows(self, rows: Any):
        """The user's rows (a DataFrame) and their encoding, from positions or a DataFrame."""
        import pandas as pd

        data = self.studied.data
        if isinstance(rows, pd.DataFrame):
            frame = rows.rename(columns=str)
            return frame, self.studied.encode(frame)
        positions = [int(r) for r in np.atleast_1d(rows)]
        bad = [r for r in positions if not 0 <= r < data.n_samples]
        if bad:
            raise InputError(f"row {bad[0]} is not in the table (rows 0 to {data.n_samples - 1})")
        raw = data.table()
        return raw.iloc[positions], data.X[positions]

    def effects(self, features: list[str] | None = None, k: int = 4) -> list:
        """Per feature (default: the ``k`` numeric ones that move the model most), the model's
        partial dependence and ICE lines and each method's curve (``interp.effects``)."""
        from .effects import effect_curves

        return effect_curves(self, features, k)

    def plot_effects(self, features: list[str] | None = None, k: int = 4):
        """The curves of ``effects`` drawn, one panel per feature; returns the Figure."""
        from .effects import plot_effects

        return plot_effects(self.effects(features, k), self.output_name)

    def model_output(self, row: int) -> float:
        """The model's output (``output_name``) for the row at position ``row``."""
        return float(self.model_scores[row])

    def least_certain_row(self) -> int:
        """The held-out row where the model is least sure: its probability nearest 1/2, or for
        a regressor its prediction nearest the median of the held-out predictions."""
        scores = self.model_scores[self.held_rows]
        centre = 0.5 if self.task == "classification" else float(np.median(scores))
        return int(self.held_rows[int(np.argmin(np.abs(scores - centre)))])

    def _repr_html_(self) -> str:
        from .report import model_sections_html

        return model_sections_html(self)

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(self.summary())

    def to_dict(self) -> dict:
        """The whole result as JSON values: the first screen's facts and each method's saved
        explanation (``Explanation.to_dict``) with its fidelity."""
        return {
            "data": self.data, "n_rows": self.n_rows, "n_columns": self.n_columns, "target": self.target,
            "model": self.model, "task": self.task, "decision": self.decision, "held_out": self.held_out,
            "model_score": self.model_score, "left_out": list(self.left_out), "output_name": self.output_name,
            "methods": [{"method": r.method, "fitted_to": r.fitted_to, "seconds": r.seconds, "error": r.error,
                         "fidelity": r.fidelity.to_dict() if r.fidelity else None,
                         "explanation": r.explanation.to_dict() if r.explanation else None}
                        for r in self.results],
        }


@attrs.frozen
class RowsExplained:
    """``ModelExplanation.for_rows``: per method, one ``RowExplanation`` per row (``rows``:
    their labels in the table), and per method that explains no single row, why not."""

    rows: tuple
    by_method: dict
    notes: dict
    output_name: str = "output"

    def text(self) -> str:
        """Each row, each method's account of it."""
        from .sections import render_sections

        blocks = []
        for i, label in enumerate(self.rows):
            outputs = [rows[i].model_output for rows in self.by_method.values()]
            blocks.append(f"row {label}" + (f": the model's {self.output_name} is {outputs[0]:.4g}" if outputs else ""))
            for method, explained in self.by_method.items():
                blocks.append(explained[i].text())
            blocks += [render_sections([Text(f"{method}: {why}")]) for method, why in self.notes.items()]
        return "\n\n".join(blocks)


def _dataset(X: Any, y: Any, name: str) -> Dataset:
    """The user's table (a DataFrame, text columns included, or a numeric array) and optional
    target as a ``Dataset``."""
    import pandas as pd

    if isinstance(X, Dataset):
        return X
    if isinstance(X, pd.DataFrame):
        if y is None:
            return from_frame(X, None, name=name)
        target = str(getattr(y, "name", None) or "y")
        while target in map(str, X.columns):
            target = "_" + target
        values = np.asarray(y)
        if values.shape != (len(X),):
            raise InputError(f"y has shape {values.shape}; expected ({len(X)},) to match X")
        return from_frame(X.reset_index(drop=True).assign(**{target: values}), target, name=name)
    return from_arrays(X, y, name=name)


def _split(outputs: ModelOutputs, n: int, test_size: float, seed) -> tuple[np.ndarray, np.ndarray]:
    """Fitting and held-out rows: ``test_size`` of them held out, stratified by the model's
    classes when each has at least two rows."""
    from sklearn.model_selection import train_test_split

    if not 0 < test_size < 1:
        raise InputError(f"test_size must be strictly between 0 and 1, got {test_size}")
    n_test = int(np.ceil(test_size * n))
    if n_test < 2 or n - n_test < 4:
        raise InputError(f"{n} rows are too few to fit on and hold out {test_size:.0%} of them (4 and 2 are needed)")
    strata = None
    if outputs.labels is not None:
        _, counts = np.unique(outputs.labels, return_counts=True)
        strata = outputs.labels if counts.min() >= 2 else None
    return train_test_split(np.arange(n), test_size=test_size, random_state=seed, stratify=strata)


@attrs.frozen
class Decision:
    """What the methods that need a class are fitted to: ``labels`` per row and their words."""

    labels: np.ndarray
    positive: str
    words: str


def _decision(outputs: ModelOutputs, fit_rows: np.ndarray, threshold: float | None) -> Decision:
    """The model's classes, or for a regressor "prediction > t" (t: ``threshold``, else the
    median prediction on the fitting rows)."""
    if outputs.labels is not None:
        return Decision(outputs.labels, outputs.positive, f"the model's class ({outputs.positive} or not)")
    t = float(np.median(outputs.scores[fit_rows])) if threshold is None else float(threshold)
    above, below = f"prediction > {t:.4g}", f"prediction <= {t:.4g}"
    labels = np.where(outputs.scores > t, above, below).astype(object)
    if np.unique(labels[fit_rows]).size < 2:
        raise InputError(f"threshold {t:.4g} puts every fitting row on one side of the model's predictions")
    how = "given" if threshold is not None else "the median prediction"
    return Decision(labels, above, f"the decision prediction > {t:.4g} ({how})")


def _method_data(data: Dataset, rows: np.ndarray, y: np.ndarray, keep_columns: bool) -> Dataset:
    """The fitting ``rows`` of the data with the target ``y``: every column for a method that
    asks the model (``keep_columns``: the model takes them all), else without the columns
    constant on them (they tell a method nothing, and some methods refuse them), the user's
    columns encoded again as ``load_dataset`` encodes them."""
    if keep_columns:
        raw = None if data.raw is None else data.raw.iloc[rows].reset_index(drop=True)
        return attrs.evolve(data, X=data.X[rows], y=np.asarray(y)[rows], raw=raw)
    raw = data.table().iloc[rows].reset_index(drop=True)
    varying = [c for c in raw.columns if raw[c].nunique(dropna=False) > 1]
    if not varying:
        raise InputError("every column is constant on the fitting rows: there is nothing to explain")
    if data.raw is None:
        return attrs.evolve(from_arrays(raw[varying].to_numpy(), np.asarray(y)[rows], varying, name=data.name),
                            target_name=data.target_name)
    target = data.target_name or "y"
    return from_frame(raw[varying].assign(**{target: np.asarray(y)[rows]}), target, name=data.name)


@attrs.frozen
class Study:
    """What every method of one ``explain`` call shares: the data, the studied model and its
    outputs on every row, the fitting and held-out rows, the decision the class methods are
    fitted to, and ``fit_to``."""

    data: Dataset
    studied: StudiedModel
    outputs: ModelOutputs
    fit_rows: np.ndarray
    held: np.ndarray
    decision: Decision
    fit_to: str


def explain(model: Any, X: Any, y: Any = None, *, methods: Iterable[str] | None = None, test_size: float = 0.25,
            positive: str | None = None, fit_to: str = "model", threshold: float | None = None,
            options: dict[str, dict] | None = None, random_state: int | None = 0, n_jobs: int | None = None,
            quiet: bool = False, name: str = "data") -> ModelExplanation:
    """Explain the fitted ``model`` on the table ``X`` (the columns it was fitted on, as a
    DataFrame with text columns or an array) with every installed method (or ``methods``).

    ``y`` (optional): the true target, for the model's own held-out score and for
    ``fit_to="data"``, which fits the methods that need a class (facets, propositional) to
    it instead of to the model's classes.  ``positive``: the class explained against the
    rest (default: the second of two classes, or the one the model predicts most often);
    ``threshold``: the t of a regressor's decision "prediction > t" for the methods that
    need a class (propositional).
    ``options``: per method, its options as ``interp run`` takes them (``{"symbolic":
    {"max_terms": 2}}``).  A method that cannot run on the data gets a line saying why; the
    others still run.

    Thirteen keywords, all optional, as scikit-learn's inspection functions take theirs: the
    model, the table and the target are the call; the rest tune it.
    """
    from .registry import get_registry
    from .runner import RunContext

    if fit_to not in FIT_TO:
        raise InputError(f"fit_to must be one of {', '.join(FIT_TO)}, got {fit_to!r}")
    X, left_out = _model_columns(model, X)
    data = _dataset(X, y, name)
    if fit_to == "data" and data.y is None:
        raise InputError("fit_to='data' needs the target y")
    studied = StudiedModel(model, data, positive)
    outputs = studied.outputs(data.X)
    fit_rows, held = _split(outputs, data.n_samples, test_size, random_state)
    study = Study(data, studied, outputs, fit_rows, held, _decision(outputs, fit_rows, threshold), fit_to)
    registered = get_registry().methods
    names = list(dict.fromkeys(methods)) if methods is not None else sorted(registered)
    unknown = [m for m in names if m not in registered]
    if unknown:
        raise InputError(f"unknown method {unknown[0]!r}; available: {', '.join(sorted(registered))}")
    ctx = RunContext(seed=random_state, quiet=quiet, n_jobs=n_jobs)
    results = tuple(_run_one(study, registered[m], (options or {}).get(m), ctx) for m in names)
    classification = outputs.task == "classification"
    return ModelExplanation(
        data=data.name, n_rows=data.n_samples, n_columns=data.table().shape[1], target=data.target_name,
        model=model_name(model), task=outputs.task,
        decision=_decision_words(outputs, study.decision, data.target_name,
                                 any(_fits_the_threshold(registered[m], study) for m in names)),
        output_name=f"P({data.target_name or 'y'}={study.decision.positive})" if classification else "prediction",
        held_out=len(held), model_score=_model_score(studied, data, held), results=results,
        left_out=tuple(left_out), studied=studied, held_rows=held, model_scores=outputs.scores)


def _run_one(study: Study, method, options: dict | None, ctx) -> MethodResult:
    """One method fitted on the study's fitting rows to what it explains, and measured on the
    held-out rows; a method that cannot run gets the one line saying why."""
    from .runner import PluginBug, run_method

    target, fitted_to, numeric = _target_for(method, study, model_name(study.studied.model))
    ctx = attrs.evolve(ctx, model=study.studied if method.explains_model else None)
    start = time.perf_counter()
    try:
        exp = run_method(method.name, _method_data(study.data, study.fit_rows, target, method.explains_model), options, ctx)
    except InterpError as err:
        return MethodResult(method.name, fitted_to, time.perf_counter() - start,
                            error=str(err).splitlines()[0] if str(err) else type(err).__name__,
                            bug=isinstance(err, PluginBug))
    seconds = time.perf_counter() - start
    truth = study.outputs.scores if numeric else study.decision.labels
    fidelity = measure_fidelity(exp.estimator, study.studied, study.data, study.held, truth, study.decision.positive)
    return MethodResult(method.name, fitted_to, seconds, exp, fidelity)


def _model_columns(model: Any, X: Any) -> tuple[Any, list[str]]:
    """The columns of the table ``X`` that ``model`` was fitted on (by its
    ``feature_names_in_``), and the names of the others, which are left out; a column the
    model needs and ``X`` lacks is an InputError."""
    import pandas as pd

    names = getattr(model, "feature_names_in_", None)
    if names is None or not isinstance(X, pd.DataFrame):
        return X, []
    names = [str(n) for n in names]
    X = X.rename(columns=str)
    missing = [n for n in names if n not in X.columns]
    if missing:
        raise InputError(f"the data lacks column {missing[0]!r} that the model was fitted on"
                         + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    return X[names], [c for c in X.columns if c not in set(names)]


def _decision_words(outputs: ModelOutputs, decision: Decision, target: str, with_decision: bool) -> str:
    """What the methods explain of the model, in words; a regressor's decision "prediction >
    t" is named ``with_decision`` (when some method is fitted to it)."""
    if outputs.task == "classification":
        return f"P({target or 'y'}={decision.positive}) and its class"
    return f"its prediction (and {decision.words} for methods that need a class)" if with_decision else "its prediction"


def _fits_the_threshold(method, study: Study) -> bool:
    """Whether ``method`` is fitted to a regressor's decision "prediction > t" (it needs a
    class, and is fitted to the model)."""
    return (study.outputs.task == "regression" and not method.explains_model and study.fit_to == "model"
            and method.task == "classification")


def _target_for(method, study: Study, name: str) -> tuple[np.ndarray, str, bool]:
    """What ``method`` is fitted to, the words for it, and whether that is a number (the
    model's prediction) rather than a class."""
    outputs, decision = study.outputs, study.decision
    if method.explains_model and outputs.task == "classification":
        return decision.labels, f"{name} itself (the method asks the model)", False
    if method.explains_model:
        return outputs.scores, f"{name} itself (the method asks the model)", True
    takes_numbers = outputs.task == "regression" and method.task in ("regression", "any")
    if study.fit_to == "data" and not method.explains_model:
        return study.data.y, "the data's target, not the model", takes_numbers
    if takes_numbers:
        return outputs.scores, f"{name}'s prediction", True
    if outputs.task == "regression":  # _fits_the_threshold
        return decision.labels, f"{name}: {decision.words}", False
    return decision.labels, f"{name}'s predicted classes", False


def _model_score(studied: StudiedModel, data: Dataset, held: np.ndarray) -> dict:
    """The model's own accuracy (or R^2) against the true target on the held-out rows."""
    if data.y is None:
        return {}
    rows = studied.rows_of(data.X[held])
    predicted = np.asarray(studied.model.predict(rows))
    truth = data.y[held]
    if studied.task == "classification":
        same = class_names(predicted) == class_names(truth)
        return {"accuracy": float(same.mean())}
    truth = truth.astype(float)
    var = float(np.var(truth))
    return {"R^2": 1 - float(np.mean((predicted.astype(float) - truth) ** 2)) / var} if var > 0 else {}
