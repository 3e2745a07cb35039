"""The typed sections an explanation is written in (``Text``, ``Table``, ``Formula``,
``Figure``), their JSON form, and how the terminal shows them.

They sit below ``interp.results`` (the ``Explanation`` that holds them) and below the HTML
renderer (``interp.fragments``), which both read them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar

import attrs
import numpy as np

from .errors import InputError
from .terminal import visible


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, tuples and paths into plain JSON types; reject the rest."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in an explanation: {value!r}")


#: the widest a table's column is padded to in the terminal
MAX_PADDED_WIDTH = 200


def _rows(rows: Any) -> tuple[tuple, ...]:
    return tuple(tuple(to_jsonable(list(row))) for row in rows)


@attrs.frozen
class Text:
    """A block of plain text (a score card, a rule list): shown as it is, in a fixed-width font."""

    body: str
    title: str = ""
    kind: ClassVar[str] = "text"

    def render_text(self) -> str:
        return visible(self.body.rstrip())


@attrs.frozen
class Table:
    """A table: ``columns`` (names) and ``rows`` (one JSON value per column).

    ``formats`` (optional, one per column) are format specs for numbers such as ".1f" or ".3g";
    an empty spec shows 4 significant digits.  The JSON keeps the full values.
    """

    columns: tuple[str, ...] = attrs.field(converter=lambda c: tuple(str(v) for v in c))
    rows: tuple[tuple, ...] = attrs.field(converter=_rows)
    title: str = ""
    formats: tuple[str, ...] = attrs.field(default=(), converter=lambda f: tuple(str(v) for v in f))
    kind: ClassVar[str] = "table"

    def __attrs_post_init__(self) -> None:
        bad = [i for i, row in enumerate(self.rows) if len(row) != len(self.columns)]
        if bad:
            raise ValueError(f"table {self.title!r}: row {bad[0]} has {len(self.rows[bad[0]])} values "
                             f"for {len(self.columns)} columns")
        if self.formats and len(self.formats) != len(self.columns):
            raise ValueError(f"table {self.title!r}: {len(self.formats)} formats for {len(self.columns)} columns")

    def cells(self) -> list[list[str]]:
        """The rows as the text a person reads, each number in its column's format."""
        specs = self.formats or ("",) * len(self.columns)
        return [[format_value(v, spec) for v, spec in zip(row, specs)] for row in self.rows]

    def render_text(self) -> str:
        """The table in aligned columns; a cell wider than ``MAX_PADDED_WIDTH`` overflows its own
        line instead of widening every row's (a name of a megabyte would pad each row to it)."""
        cells = [[visible(cell, one_line=True) for cell in row] for row in [list(self.columns)] + self.cells()]
        widths = [min(max(len(row[j]) for row in cells), MAX_PADDED_WIDTH) for j in range(len(self.columns))]
        numeric = [all(isinstance(row[j], (int, float)) and not isinstance(row[j], bool)
                       for row in self.rows) and bool(self.rows) for j in range(len(self.columns))]
        lines = ["  ".join(cell.rjust(w) if num else cell.ljust(w)
                           for cell, w, num in zip(row, widths, numeric)).rstrip() for row in cells]
        return "\n".join(lines)


@attrs.frozen
class Formula:
    """A formula: plain ``text`` (always), and ``latex`` / ``mathml`` where the method has them.

    ``mathml`` is presentation MathML (sympy's, say).  The core never inserts it as given: the
    report writes it anew from the allow-lists of ``interp.markup`` and shows ``text`` instead
    when it holds anything else.
    """

    text: str
    latex: str = ""
    mathml: str = ""
    title: str = ""
    kind: ClassVar[str] = "formula"

    def render_text(self) -> str:
        return visible(self.text.rstrip())


@attrs.frozen
class Figure:
    """A reference to the figure ``name`` of ``Explanation.figures`` (the image is not JSON)."""

    name: str
    title: str = ""
    kind: ClassVar[str] = "figure"

    def render_text(self) -> str:
        return ""


SECTION_TYPES: dict[str, type] = {cls.kind: cls for cls in (Text, Table, Formula, Figure)}
Section = Text | Table | Formula | Figure


def format_value(value: Any, spec: str = "") -> str:
    """A JSON value as a person reads it: a number in format ``spec`` (floats default to 4
    significant digits), anything else as text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and spec:
        return format(value, spec)
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def section_to_dict(section: Section) -> dict:
    return {"kind": section.kind, **to_jsonable(attrs.asdict(section, recurse=False))}


def section_from_dict(data: dict) -> Section:
    """A section from its JSON form, or an ``InputError`` that names what is wrong with it."""
    if not isinstance(data, dict):
        raise InputError(f"a section is a JSON object, got {_json_kind(data)}")
    fields = dict(data)
    kind = fields.pop("kind", None)
    if kind not in SECTION_TYPES:
        raise InputError(f"unknown section kind {kind!r}; known: {', '.join(SECTION_TYPES)}")
    cls = SECTION_TYPES[kind]
    known = {f.name: f for f in attrs.fields(cls)}
    for name, value in fields.items():
        if name not in known:
            raise InputError(f"a {kind} section has no field {name!r}; its fields: {', '.join(known)}")
        expected = str if known[name].type == "str" else list
        if not isinstance(value, expected):
            raise InputError(f"the field {name!r} of a {kind} section is {_json_kind(value)}, "
                             f"not {_json_kind(expected())}")
    missing = [name for name, f in known.items() if f.default is attrs.NOTHING and name not in fields]
    if missing:
        raise InputError(f"a {kind} section needs the field {missing[0]!r}")
    if kind == "table" and not all(isinstance(row, list) for row in fields.get("rows", [])):
        raise InputError("every row of a table section is a JSON array")
    try:
        return cls(**fields)
    except (TypeError, ValueError) as err:
        raise InputError(str(err)) from None


def _json_kind(value: Any) -> str:
    """What a JSON value is, as a message names it: "a list", "a string", "null"."""
    kinds = ((dict, "an object"), (list, "a list"), (str, "a string"), (bool, "a boolean"),
             ((int, float), "a number"))
    return next((name for types, name in kinds if isinstance(value, types)), "null")


def _sections(values: Any) -> tuple[Section, ...]:
    out = []
    for value in values:
        if isinstance(value, dict):
            value = section_from_dict(value)
        if not isinstance(value, tuple(SECTION_TYPES.values())):
            raise TypeError(f"an explanation section must be Text, Table, Formula or Figure, "
                            f"got {type(value).__name__}")
        out.append(value)
    return tuple(out)


def render_sections(sections: tuple[Section, ...]) -> str:
    """The sections as the terminal shows them: a title line, then the body (control
    characters as visible escapes)."""
    blocks = []
    for section in sections:
        body = section.render_text()
        if not body:
            continue
        blocks.append(f"{visible(section.title, one_line=True)}:\n{body}" if section.title else body)
    return "\n\n".join(blocks)
