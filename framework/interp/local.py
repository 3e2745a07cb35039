"""Why this prediction: one row's explanation, as every method gives it, and its waterfall.

A method's output for a row is its baseline plus the sum of its pieces (a formula's terms, the
card's rows that hold, the rules that fire), and also the baseline plus the sum of the row's
features' contributions: ``RowExplanation`` holds both sums, which ``check`` verifies, and the
core draws them (``waterfall``) and renders them (``table``) the same for every method.
"""

from __future__ import annotations

import math
from typing import Any

import attrs

from .sections import Table, Text, to_jsonable

#: the features a waterfall and a table show one by one; the rest are one bar, "N other features"
TOP_FEATURES = 10
#: how far the two sums may be from the output, relative to its magnitude, before ``check`` refuses
SUM_TOL = 1e-9


@attrs.frozen
class Piece:
    """One of a method's own parts of an output: a term, a card row that holds, a rule that
    fires, or the rest of a decision value; ``value`` in the output's units, ``features`` the
    columns it reads."""

    label: str
    value: float
    features: tuple[str, ...] = attrs.field(default=(), converter=tuple)


@attrs.frozen
class RowExplanation:
    """One row explained by one method.

    ``output`` is the method's output for the row (``output_name`` says what it is: the
    formula's logit, the card's total, the SVM's decision value) and ``baseline`` where it is
    measured from (``baseline_name``); ``contributions`` (feature -> amount) and ``pieces``
    each sum to ``output - baseline``.  ``values`` are the row's own values, ``model_output``
    the studied model's output for it (when a model is explained), ``outcome`` what the method
    concludes ("risk 12%, predict no") and ``note`` anything a reader needs beside it.  ``show``
    says which sum the waterfall draws: the features, or the method's own pieces (a card's rows
    that hold read better than the columns they come from)."""

    method: str
    output: float
    output_name: str
    baseline: float
    baseline_name: str
    contributions: dict = attrs.field(converter=lambda c: {str(k): float(v) for k, v in dict(c).items()})
    pieces: tuple[Piece, ...] = attrs.field(default=(), converter=tuple)
    values: dict = attrs.field(factory=dict, converter=lambda v: to_jsonable(dict(v)))
    model_output: float | None = None
    outcome: str = ""
    note: str = ""
    show: str = attrs.field(default="features", validator=attrs.validators.in_(("features", "pieces")))

    def check(self) -> "RowExplanation":
        """Itself, or a RuntimeError (a bug in the method, not bad input) when the
        contributions or the pieces do not sum to ``output - baseline``."""
        gap = self.output - self.baseline
        tol = SUM_TOL * max(1.0, abs(self.output), abs(self.baseline))
        for what, total in (("contributions", math.fsum(self.contributions.values())),
                            ("pieces", math.fsum(p.value for p in self.pieces))):
            if (what == "contributions" or self.pieces) and abs(total - gap) > tol:
                raise RuntimeError(f"{self.method}: the {what} of a row sum to {total!r}, not output - baseline "
                                   f"= {gap!r}")
        return self

    def ranked(self, top: int = TOP_FEATURES, by: str | None = None) -> list[tuple[str, float]]:
        """The ``top`` largest amounts by size (non-zero ones) of the features, or of the pieces
        (``by``, default ``show``), then the rest as one "N other ..." when there are any."""
        by = by or self.show
        pairs = self.contributions.items() if by == "features" else ((p.label, p.value) for p in self.pieces)
        items = sorted(((k, v) for k, v in pairs if v != 0), key=lambda kv: -abs(kv[1]))
        shown, rest = items[:top], items[top:]
        if rest:
            shown.append((f"{len(rest)} other {by}", math.fsum(v for _, v in rest)))
        return shown

    def table(self, top: int = TOP_FEATURES) -> Table:
        """The row's features by the size of their contribution, with their values."""
        rows = [(name, _value_text(self.values.get(name, "")), value)
                for name, value in self.ranked(top, "features")]
        return Table(("feature", "value", "contribution"), rows, formats=("", "", "+.4g"),
                     title=f"{self.method}: {self.output_name} = {self.output:.4g}, from {self.baseline:.4g} "
                           f"({self.baseline_name})")

    def pieces_table(self) -> Table | None:
        """The method's own pieces (terms, card rows that hold, rules that fire), or None."""
        if not self.pieces:
            return None
        return Table(("part", "amount"), [(p.label, p.value) for p in self.pieces], formats=("", "+.4g"),
                     title=f"{self.method}: the parts of {self.output_name}")

    def text(self) -> str:
        """The plain-text account a terminal prints."""
        from .sections import render_sections

        lines = [self.outcome] if self.outcome else []
        if self.note:
            lines.append(self.note)
        sections = [self.table(), *filter(None, [self.pieces_table()])] + ([Text("\n".join(lines))] if lines else [])
        return render_sections(sections)

    def to_dict(self) -> dict:
        return to_jsonable({
            "method": self.method, "output": self.output, "output_name": self.output_name,
            "baseline": self.baseline, "baseline_name": self.baseline_name, "contributions": self.contributions,
            "pieces": [attrs.asdict(p) for p in self.pieces], "values": self.values,
            "model_output": self.model_output, "outcome": self.outcome, "note": self.note, "show": self.show})

    def plot(self, top: int = TOP_FEATURES):
        """The waterfall of this row (``waterfall``)."""
        return waterfall(self, top)


def _value_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def waterfall(row: RowExplanation, top: int = TOP_FEATURES):
    """A static waterfall of one row: from the baseline, each feature's contribution as a bar
    (red raises the output, blue lowers it; largest first, the rest as one bar), ending at the
    output; returns the Figure."""
    from .plotting import figure

    ranked = row.ranked(top)
    by_feature = row.show == "features"
    fig = figure(figsize=(7.5, 0.45 * len(ranked) + 1.6))
    ax = fig.add_subplot(1, 1, 1)
    start = row.baseline
    labels = []
    for i, (name, value) in enumerate(ranked):
        shown = row.values.get(name)
        labels.append(f"{name} = {_value_text(shown)}" if by_feature and name in row.values else name)
        ax.barh(i, value, left=start, color="#c0392b" if value > 0 else "#2e6da4", height=0.6)
        ax.text(start + value, i, f" {value:+.3g}", va="center", ha="left" if value >= 0 else "right", fontsize=8)
        start += value
    ax.set_yticks(range(len(ranked)), labels)
    ax.invert_yaxis()
    ax.axvline(row.baseline, color="#777777", lw=0.8, ls="--")
    ax.axvline(row.output, color="#222222", lw=1.0)
    ax.set_xlabel(f"{row.output_name}: {row.output:.4g} (dashed: {row.baseline_name}, {row.baseline:.4g})")
    ax.set_title(f"{row.method}: why this row")
    fig.tight_layout()
    return fig


