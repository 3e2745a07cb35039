"""The tables of a score card: per total, the probability of the positive class (a classifier's
card) or the prediction (a regressor's card).

A card says "predict 1 if total >= 3"; a person using it also wants to know how sure that is at
each total.  ``RiskTable.fit`` is the logistic regression of the label on the card's integer total
(two parameters, intercept and slope, by Newton's method: `.refit.refit_scale`, the same
1-D fit that re-estimates a card's scale).  When the totals separate the two classes the
maximum-likelihood slope is infinite; the tiny ridge on the slope that the fit always carries
keeps it finite, and the table says so (``separable``).

A regressor's card predicts ``intercept + scale * total``: ``PredictionTable`` lists that line at
the same totals, so that a person reads the prediction off the card without a calculator.
"""

from __future__ import annotations

import itertools
import math

import attrs
import numpy as np
from scipy.special import expit

from interp import InputError

from .refit import refit_scale

__all__ = ["RiskTable", "PredictionTable", "percent", "table_totals", "MAX_TABLE_ROWS", "RISK_RIDGE"]

#: the most totals a table lists; a wider range is listed at a round step
MAX_TABLE_ROWS = 61

#: the widest line of the table as text
LINE_WIDTH = 100

#: the ridge on the slope (on the mean log-loss): negligible unless the totals separate the classes
RISK_RIDGE = 1e-6


def percent(p: float) -> str:
    """A probability as a card shows it: "3%", "0.4%", "99.6%", "<0.1%", ">99.9%"."""
    value = 100.0 * float(p)
    if value < 0.05:
        return "<0.1%"
    if value > 99.95:
        return ">99.9%"
    if value < 1 or value > 99:
        return f"{value:.1f}%"
    return f"{value:.0f}%"


def cell_lines(cells: list[str]) -> list[str]:
    """A table's cells as lines of at most ``LINE_WIDTH`` characters, in aligned columns."""
    width = max(len(c) for c in cells)
    per_line = max(1, (LINE_WIDTH + 3) // (width + 3))
    return ["   ".join(c.ljust(width) for c in cells[i:i + per_line]).rstrip() for i in range(0, len(cells), per_line)]


def _round_step(width: float) -> int:
    """The smallest integer step 1, 2 or 5 x 10^k that is at least ``width``."""
    exponent = 0
    while True:
        for mantissa in (1, 2, 5):
            if mantissa * 10**exponent >= width:
                return mantissa * 10**exponent
        exponent += 1


def table_totals(low: int, high: int) -> tuple[int, ...]:
    """Every integer total from ``low`` to ``high``; on a wider span (points per unit of a code,
    a card on raw measurements), the multiples of a round step (2, 5, 10, 20, ...) that cover it,
    at most ``MAX_TABLE_ROWS`` of them, so that the listed totals are evenly spaced and easy to
    read."""
    if high - low + 1 <= MAX_TABLE_ROWS:
        return tuple(range(low, high + 1))
    step = _round_step((high - low) / (MAX_TABLE_ROWS - 3))
    return tuple(range(math.floor(low / step) * step, math.ceil(high / step) * step + 1, step))


@attrs.frozen
class RiskTable:
    """``risk(total) = 1 / (1 + exp(-(intercept + slope * total)))``, listed for ``totals``.

    ``separable``: the training totals separated the classes, so the slope is the ridge's (the
    risks jump from near 0 to near 1 where the classes part).
    """

    intercept: float
    slope: float
    totals: tuple[int, ...]
    separable: bool = False

    @classmethod
    def fit(cls, totals, y01, span: tuple[float, float] | None = None) -> "RiskTable":
        """Fit on the training rows' ``totals`` and 0/1 labels ``y01``; list the integer totals
        of ``span`` = (lowest, highest attainable total), by default the observed range."""
        t = np.asarray(totals, dtype=float).ravel()
        y = np.asarray(y01, dtype=float).ravel()
        if t.shape != y.shape or not np.isin(y, (0.0, 1.0)).all():
            raise InputError(f"a risk table needs one 0/1 label per total; got {y.size} labels for "
                             f"{t.size} totals")
        if y.min() == y.max():
            raise InputError("a risk table needs rows of both classes")
        slope, intercept = refit_scale(t, 2 * y - 1, "logistic", ridge=RISK_RIDGE)
        positive, negative = t[y == 1], t[y == 0]
        separable = bool(t.min() < t.max() and (negative.max() <= positive.min()
                                                 or positive.max() <= negative.min()))
        low, high = span if span is not None else (t.min(), t.max())
        return cls(float(intercept[0]), float(slope[0]),
                   table_totals(math.floor(low), math.ceil(high)), separable)

    def risk(self, total):
        """The probability of the positive class at ``total`` (a number or an array)."""
        return expit(self.intercept + self.slope * np.asarray(total, dtype=float))

    def rows(self) -> list[tuple[int, float]]:
        """(total, risk) for every total the table lists."""
        return [(t, float(r)) for t, r in zip(self.totals, self.risk(self.totals))]

    def notes(self) -> list[str]:
        """What a reader should know about the fit: [] or one sentence."""
        return (["note: the totals separate the training rows; a tiny ridge keeps the slope finite"]
                if self.separable else [])

    def cells(self) -> list[str]:
        """The table as a person reads it: ``total -2: 3%``, one per total, and consecutive
        totals that show the same risk merged (``totals 7 to 23: >99.9%``)."""
        cells = []
        for shown, group in itertools.groupby(self.rows(), key=lambda row: percent(row[1])):
            totals = [t for t, _ in group]
            label = f"total {totals[0]}" if len(totals) == 1 else f"totals {totals[0]} to {totals[-1]}"
            cells.append(f"{label}: {shown}")
        return cells

    def text(self, positive: str = "1") -> str:
        """The table as compact lines: ``total -2: 3%   total -1: 5%   ...``."""
        return "\n".join([f"risk of {positive} by total:"] + cell_lines(self.cells()) + self.notes())

    def markdown(self, positive: str = "1") -> str:
        """The table as one Markdown paragraph."""
        cells = ", ".join(self.cells())
        return " ".join([f"*risk of {positive} by total:* {cells}."] + self.notes())

    def to_dict(self) -> dict:
        return {"intercept": self.intercept, "slope": self.slope, "separable": self.separable,
                "rows": [{"total": t, "risk": r} for t, r in self.rows()]}

    @classmethod
    def from_dict(cls, data: dict) -> "RiskTable":
        return cls(float(data["intercept"]), float(data["slope"]),
                   tuple(int(row["total"]) for row in data["rows"]), bool(data["separable"]))


@attrs.frozen
class PredictionTable:
    """``prediction(total) = intercept + slope * total`` (a regressor's card: the slope is its
    scale, one point's worth), listed for ``totals``."""

    intercept: float
    slope: float
    totals: tuple[int, ...]

    @classmethod
    def spanning(cls, intercept: float, slope: float, low: float, high: float) -> "PredictionTable":
        """The table over the totals from ``low`` to ``high`` (every one, or a round step)."""
        return cls(float(intercept), float(slope), table_totals(math.floor(low), math.ceil(high)))

    def predict(self, total):
        """The prediction at ``total`` (a number or an array)."""
        return self.intercept + self.slope * np.asarray(total, dtype=float)

    def rows(self) -> list[tuple[int, float]]:
        return [(t, float(v)) for t, v in zip(self.totals, self.predict(self.totals))]

    def cells(self) -> list[str]:
        """``total 3: 152.1``, one per total, 4 significant digits."""
        return [f"total {t}: {v:.4g}" for t, v in self.rows()]

    def text(self, target: str = "y") -> str:
        return "\n".join([f"predicted {target} by total:"] + cell_lines(self.cells()))

    def markdown(self, target: str = "y") -> str:
        return f"*predicted {target} by total:* {', '.join(self.cells())}."

    def to_dict(self) -> dict:
        return {"intercept": self.intercept, "slope": self.slope,
                "rows": [{"total": t, "prediction": v} for t, v in self.rows()]}
