"""Score cards from integral linear models, and the rounded baseline to compare them with."""

from __future__ import annotations

import math
import warnings

import attrs
import numpy as np
from sklearn.linear_model import Lasso, LinearRegression, LogisticRegression

from interp import InputError
from interp.preprocessing import binary_labels, class_name, is_binary

from .refit import refit_scale, usable
from .render import card_markdown, card_text, fmt
from .risk import PredictionTable, RiskTable
from .snap import grid_decision, on_grid

__all__ = ["ScoreCard", "score_card", "no_card_reason", "RoundedModel", "RoundedRegression", "rounded_baseline"]


@attrs.frozen
class ScoreCard:
    """``total = sum_j points_j * x_j``; predict the positive class when ``total > threshold``, or
    for a regressor's card (``regression``) predict ``intercept + gamma * total``.

    ``threshold = -intercept / gamma``.  When every feature is integer-valued the total is an
    integer and the rule is exactly ``total >= integer_threshold`` (``floor(threshold) + 1``).
    ``risk`` (when the training labels were given) is the probability of the positive class
    for every attainable total (`.risk.RiskTable`); ``binary_features``: every feature
    is 0/1, so the total is the sum of the points of the features that hold; ``units``: the
    features that are not 0/1 (such as an integer code ``ClumpThickness (1-10)``), whose rows
    add their points times the value ("+1 per unit").  A regressor's card names its ``target``
    and lists its prediction at every attainable total (``predictions``, `.risk.PredictionTable`).
    """

    features: tuple[str, ...]
    points: tuple[int, ...]
    gamma: float
    intercept: float
    integral: bool
    integrity: float
    positive: str = "1"
    negative: str = "0"
    integer_features: bool = False
    risk: RiskTable | None = None
    binary_features: bool = False
    units: tuple[str, ...] = ()
    regression: bool = False
    target: str = "y"
    predictions: PredictionTable | None = None

    @property
    def threshold(self) -> float:
        return -self.intercept / self.gamma

    @property
    def integer_threshold(self) -> int | None:
        if not self.integer_features:
            return None
        return int(math.floor(self.threshold)) + 1

    def rows(self) -> list[tuple[str, int]]:
        """Non-zero rows, largest |points| first; ties in the features' order (so the
        thresholds of one column stay together, in increasing order)."""
        pairs = [(f, p) for f, p in zip(self.features, self.points) if p != 0]
        return sorted(pairs, key=lambda fp: -abs(fp[1]))

    def shown_points(self, feature: str, points: int) -> str:
        """A row's points as the card prints them: ``+2``, or ``+1 per unit`` on a feature that
        is not 0/1."""
        return f"{points:+d} per unit" if feature in self.units else f"{points:+d}"

    def rule(self) -> str:
        if self.regression:
            sign = "-" if self.gamma < 0 else "+"
            return f"predicted {self.target} = {fmt(self.intercept)} {sign} {fmt(abs(self.gamma))} x total"
        if not any(self.points):
            label = self.positive if self.intercept > 0 else self.negative
            return f"predict {label} for every row (no row on the card)"
        if self.integer_threshold is not None:
            return f"predict {self.positive} if total >= {self.integer_threshold}, else {self.negative}"
        return f"predict {self.positive} if total > {fmt(self.threshold)}, else {self.negative}"

    def total(self, X) -> np.ndarray:
        return np.asarray(X, dtype=float) @ np.asarray(self.points, dtype=float)

    def predict(self, X) -> np.ndarray:
        """1 for the positive class, 0 for the negative (a regressor's card: its prediction),
        following the card (not the estimator)."""
        t = self.total(X)
        if self.regression:
            return self.intercept + self.gamma * t
        if self.integer_threshold is not None:
            return (np.round(t) >= self.integer_threshold).astype(int)
        return (t > self.threshold).astype(int)

    def text(self) -> str:
        """The card as fixed-width text (see `.render.card_text`)."""
        return card_text(self)

    def markdown(self) -> str:
        """The card as a Markdown table (see `.render.card_markdown`)."""
        return card_markdown(self)

    def to_dict(self) -> dict:
        decision = ({"target": self.target, "predictions": self.predictions.to_dict() if self.predictions else None}
                    if self.regression else
                    {"threshold": self.threshold, "integer_threshold": self.integer_threshold,
                     "risk": self.risk.to_dict() if self.risk is not None else None})
        return {
            "rows": [{"feature": f, "points": int(p), "per_unit": f in self.units} for f, p in self.rows()],
            "gamma": self.gamma,
            "intercept": self.intercept,
            "rule": self.rule(),
            "integral": self.integral,
            "integrity": self.integrity,
            **decision,
        }


def _grid_step(estimator) -> float:
    return float(getattr(estimator, "gamma_", getattr(estimator, "gamma", 1.0)))


def no_card_reason(estimator) -> str | None:
    """Why a fitted linear model has no score card, or None when it has one: a card adds
    integer points, so it computes the model's predictions only when every coefficient is an
    integer multiple of the model's grid step (``gamma_``); rounded points would be another
    model."""
    u = np.ravel(estimator.coef_) / _grid_step(estimator)
    off = int(np.count_nonzero(~on_grid(u)))
    if not off:
        return None
    return (f"no score card: {off} of the model's {u.size} coefficients are not whole multiples of its "
            f"grid step {fmt(_grid_step(estimator))}, so a card of rounded points would not compute its "
            "predictions; limit the card's rows (max_rows, --max-rows) for a card search, whose cards "
            "are always whole, or choose (lam, gamma) by cross-validation among integral models")


def _check_predictions(card: "ScoreCard", estimator, X: np.ndarray) -> None:
    """A card computes its model's predictions (its ``decision_function``, a regressor's
    ``predict``) on ``X``, row for row: a failure here is a bug."""
    if card.regression:  # X as given: a DataFrame keeps its names
        model = np.ravel(estimator.predict(X))
        tolerance = 1e-9 * max(1.0, float(np.max(np.abs(model), initial=0.0)))
        wrong = int(np.count_nonzero(np.abs(card.predict(X) - model) > tolerance))
    else:
        model = np.ravel(estimator.decision_function(X))
        wrong = int(np.count_nonzero(card.predict(X) != (model > 0)))
    if wrong:
        raise RuntimeError(f"the score card disagrees with its model on {wrong} of {len(model)} rows")


def score_card(estimator, feature_names=None, X=None, labels=None, y=None, target: str = "y") -> ScoreCard:
    """The score card of a fitted Facets classifier or regressor (or any linear model with
    ``gamma_``; one without ``classes_`` is a regressor, whose card predicts ``target``).

    ``feature_names`` default to the estimator's ``feature_names_in_`` or x0, x1, ...; ``X`` (the
    training data) tells whether all features are integer-valued (then the threshold is an
    integer) and is checked: the card predicts as the model does on every row; ``labels`` =
    (negative, positive) names, default from ``classes_``; ``y`` (the training labels, with
    ``X``) gives the card its risk table; a regressor's card has its table of predictions
    with ``X``.  A model that is not integral has no card: an InputError says why
    (`no_card_reason`).
    """
    reason = no_card_reason(estimator)
    if reason is not None:
        raise InputError(reason)
    coef = np.ravel(estimator.coef_)
    gamma = _grid_step(estimator)
    feature_names = _names(estimator, feature_names, coef.size)
    u = coef / gamma
    points = np.round(u).astype(np.int64)
    on = on_grid(u)
    classes = getattr(estimator, "classes_", None)
    if labels is None:
        labels = (class_name(classes[0]), class_name(classes[1])) if classes is not None else ("0", "1")
    regression = classes is None and not callable(getattr(estimator, "decision_function", None))
    read = {} if X is None else _read_rows(np.asarray(X, dtype=float), y, feature_names, points, classes,
                                           (float(np.ravel(estimator.intercept_)[0]), gamma) if regression else None)
    card = ScoreCard(
        features=tuple(feature_names),
        points=tuple(int(p) for p in points),
        gamma=gamma,
        intercept=float(np.ravel(estimator.intercept_)[0]),
        integral=bool(on.all()),
        integrity=float(on.mean()) if coef.size else 1.0,
        negative=str(labels[0]),
        positive=str(labels[1]),
        regression=regression,
        target=str(target),
        **read,
    )
    if X is not None:
        _check_predictions(card, estimator, X)
    return card


def _names(estimator, feature_names, d: int) -> list[str]:
    """The card's feature names: as given, else the estimator's ``feature_names_in_``, else x0,
    x1, ...; an InputError unless there is one per coefficient."""
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
    if feature_names is None:
        feature_names = [f"x{j}" for j in range(d)]
    feature_names = [str(f) for f in feature_names]
    if len(feature_names) != d:
        raise InputError(f"{len(feature_names)} feature names for {d} coefficients")
    return feature_names


def _read_rows(X: np.ndarray, y, names, points: np.ndarray, classes, line: tuple[float, float] | None) -> dict:
    """What a card learns from its training rows ``X``: whether every feature is integer-valued,
    which are counted per unit (not 0/1), and its table: a regressor's predictions along
    ``line`` = (intercept, scale), or with the labels ``y`` a classifier's risks (None without)."""
    integer_features = bool(np.all(X == np.round(X)))
    units = tuple(f for f, x in zip(names, X.T) if not is_binary(x))
    read = dict(integer_features=integer_features, units=units, binary_features=not units)
    if line is not None:
        read["predictions"] = PredictionTable.spanning(*line, *_total_span(X, points, integer_features))
    elif y is not None:
        read["risk"] = _risk_table(X, y, points, classes, integer_features)
    return read


def _total_span(X: np.ndarray, points: np.ndarray, integer_features: bool) -> tuple[float, float]:
    """The totals a card's table spans, from its training rows ``X``: on integer features (0/1
    or codes) every total the rows' ranges allow (from the sum of each row's smallest points x
    value to the sum of its largest; on 0/1 features the sums of the negative and of the
    positive points), else the observed range of the totals."""
    if integer_features:
        ends = points[:, None] * np.stack([X.min(axis=0), X.max(axis=0)], axis=1)
        return ends.min(axis=1).sum(), ends.max(axis=1).sum()
    totals = X @ points
    return totals.min(), totals.max()


def _risk_table(X: np.ndarray, y, points: np.ndarray, classes, integer_features: bool) -> RiskTable:
    """The card's risk table on its training rows ``X`` and labels ``y``, over ``_total_span``."""
    y01 = np.asarray(y) == classes[1] if classes is not None else binary_labels(y).values
    return RiskTable.fit(X @ points, y01, _total_span(X, points, integer_features))


@attrs.frozen
class RoundedModel:
    """A linear classifier whose coefficients were rounded to the gamma-grid (its decision as
    its card decides, `snap.grid_decision`)."""

    coef_: np.ndarray
    intercept_: np.ndarray
    gamma_: float
    classes_: np.ndarray
    source: str

    def decision_function(self, X):
        return grid_decision(np.asarray(X, dtype=float), self.coef_[0], self.intercept_[0], self.gamma_)

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))


@attrs.frozen
class RoundedRegression:
    """A least-squares model whose coefficients were rounded to the gamma-grid."""

    coef_: np.ndarray
    intercept_: float
    gamma_: float
    source: str

    def predict(self, X):
        return np.asarray(X, dtype=float) @ self.coef_ + self.intercept_

    def score(self, X, y):
        """R^2 on ``X``, ``y`` (0 for a constant ``y``)."""
        y = np.asarray(y, dtype=float)
        spread = float(np.sum((y - y.mean()) ** 2))
        return 1 - float(np.sum((y - self.predict(X)) ** 2)) / spread if spread > 0 else 0.0


def _unrounded(X, y, kind: str, C: float, random_state, regression: bool):
    """The baseline before rounding: logistic or least squares, unpenalised (``kind="none"``)
    or L1-penalised with inverse strength ``C`` (as ``LogisticRegression``'s: the L1 norm
    against ``C`` times the summed loss)."""
    if kind not in ("none", "l1"):
        raise InputError(f"baseline kind must be 'none' or 'l1', got {kind!r}")
    if regression:
        model = LinearRegression() if kind == "none" else Lasso(alpha=1.0 / (C * len(y)), max_iter=10_000)
    elif kind == "none":
        model = LogisticRegression(C=np.inf, max_iter=2000)
    else:
        model = LogisticRegression(C=C, l1_ratio=1.0, solver="liblinear", random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y)


def rounded_baseline(X, y, gamma: float, kind: str = "none", C: float = 1.0,
                     refit_threshold: bool = True, random_state=0, regression: bool = False):
    """The honest baseline: a plain logistic regression (least squares with ``regression``),
    its coefficients rounded to gamma * Z.

    ``kind="none"``: unpenalised; ``kind="l1"``: L1-penalised with inverse strength ``C``
    (liblinear, which visits the coordinates in an order drawn from ``random_state``).  With
    ``refit_threshold`` the rounded points are frozen and the scale and intercept re-fitted (the
    same post-processing the Facets estimators apply by default), else the fitted intercept is
    kept.  A ``RoundedModel`` (a classifier) or a ``RoundedRegression``.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float) if regression else np.asarray(y)
    model = _unrounded(X, y, kind, C, random_state, regression)
    points = np.round(np.ravel(model.coef_) / float(gamma))
    intercept = float(np.ravel(model.intercept_)[0])
    loss, target = ("squared", y) if regression else ("logistic", binary_labels(y, signed=True).values)
    if refit_threshold and np.any(points != 0):
        a, b = refit_scale(X @ points, target, loss)
        if usable(a, b)[0]:
            gamma, intercept = float(a[0]), float(b[0])
    if regression:
        return RoundedRegression(float(gamma) * points, intercept, float(gamma), f"least squares ({kind}) rounded")
    return RoundedModel((float(gamma) * points).reshape(1, -1), np.array([intercept]),
                        float(gamma), model.classes_, f"logistic ({kind}) rounded")
