"""Explanation: the one result type every method returns; JSON round-trips exactly.

A method describes what a person reads as typed sections (``Text``, ``Table``, ``Formula``,
``Figure``); the core renders them to the terminal (``Explanation.summary``) and to HTML
(``interp.fragments``, ``interp.report``), so no renderer looks inside one plugin's payload.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs

from .errors import InputError
from .sections import (  # the records also importable from here, where they lived before interp.sections
    Figure,
    Formula,
    Table,
    Text,
    _json_kind,
    _sections,
    format_value,
    render_sections,
    section_from_dict,
    section_to_dict,
    to_jsonable,
)
from .terminal import visible

__all__ = ["Explanation", "FORMAT_VERSION", "Figure", "Formula", "Table", "Text", "format_value", "to_jsonable"]

FORMAT_VERSION = 3  # 2: "method" beside "plugin", and "sections"; 3: "size" and "finding"

#: what a figure may be named: the name of its PNG file in a saved run
_FIGURE_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")
#: the keys of a saved explanation, and the kind of value each holds
_SAVED_KEYS: dict[str, type] = {
    "format_version": int, "method": str, "plugin": str, "version": str, "dataset": str, "params": dict,
    "metrics": dict, "explanation": dict, "sections": list, "text": str, "size": str, "finding": str,
}


def _check_saved(data: Any) -> None:
    """An ``InputError`` unless ``data`` has the shape of a saved explanation (see ``from_dict``)."""
    if not isinstance(data, dict):
        raise InputError(f"a saved explanation is a JSON object, got {_json_kind(data)}")
    for key, value in data.items():
        if key not in _SAVED_KEYS:
            raise InputError(f"unknown key {key!r} (a saved explanation has: {', '.join(_SAVED_KEYS)})")
        if not isinstance(value, _SAVED_KEYS[key]) or isinstance(value, bool):
            raise InputError(f"{key!r} is {_json_kind(value)}, not {_json_kind(_SAVED_KEYS[key]())}")
    if "plugin" not in data:
        raise InputError("a saved explanation names its 'plugin'")
    if not 1 <= data.get("format_version", 1) <= FORMAT_VERSION:
        raise InputError(f"format version {data['format_version']} is not one this interp reads "
                         f"(1 to {FORMAT_VERSION}): written by a newer interp?")


@attrs.define(eq=False)
class Explanation:
    """The result of one run of a method.

    ``method`` is what ran and ``plugin`` the plugin that provided it.  ``params``, ``metrics``
    and ``payload`` hold plain JSON values (numpy values are converted on creation);
    ``sections`` are what a person reads (``Text``, ``Table``, ``Formula``, ``Figure``), and
    ``text`` is their plain rendering (given directly by methods without sections).
    ``figures`` (name -> matplotlib Figure) and ``estimator`` travel with the object but are not
    part of the JSON.  ``size`` says how much there is to read ("2 terms", "6 rows") and
    ``finding`` the one line a person reads first (the heaviest rows of a card, the leading
    term of a formula): the report's summary table shows both.
    """

    plugin: str = ""
    version: str = ""
    dataset: str = ""
    params: dict = attrs.field(factory=dict, converter=to_jsonable)
    metrics: dict = attrs.field(factory=dict, converter=to_jsonable)
    payload: dict = attrs.field(factory=dict, converter=to_jsonable)
    text: str = ""
    figures: dict = attrs.field(factory=dict, repr=False)
    estimator: Any = attrs.field(default=None, repr=False)
    method: str = ""
    sections: tuple = attrs.field(default=(), converter=_sections)
    size: str = ""
    finding: str = ""

    def __attrs_post_init__(self) -> None:
        if not self.text and self.sections:
            self.text = render_sections(self.sections)
        unsafe = [name for name in self.figures if not isinstance(name, str) or not _FIGURE_NAME.fullmatch(name)]
        if unsafe:
            raise ValueError(f"figure name {unsafe[0]!r} is not a file name (letters, digits, _ . -)")
        missing = [s.name for s in self.sections if isinstance(s, Figure) and s.name not in self.figures]
        if missing and self.figures:
            raise ValueError(f"section refers to figure {missing[0]!r}, which is not in figures")

    def to_dict(self) -> dict:
        return {
            "format_version": FORMAT_VERSION,
            "method": self.method,
            "plugin": self.plugin,
            "version": self.version,
            "dataset": self.dataset,
            "params": self.params,
            "metrics": self.metrics,
            "explanation": self.payload,
            "sections": [section_to_dict(s) for s in self.sections],
            "text": self.text,
            "size": self.size,
            "finding": self.finding,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Explanation":
        """The explanation ``to_dict`` wrote, or an ``InputError`` naming what makes ``data``
        something else (not an object, an unknown key, a value of the wrong kind, a section
        that is not one, a newer format)."""
        _check_saved(data)
        return cls(
            method=data.get("method", data["plugin"]),  # format 1 had no method: it was the plugin
            plugin=data["plugin"],
            version=data.get("version", ""),
            dataset=data.get("dataset", ""),
            params=data.get("params", {}),
            metrics=data.get("metrics", {}),
            payload=data.get("explanation", {}),
            sections=[section_from_dict(section) for section in data.get("sections", [])],
            text=data.get("text", ""),
            size=data.get("size", ""),
            finding=data.get("finding", ""),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Explanation):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def summary(self) -> str:
        """The text ``interp run`` prints: header, metrics, then the method's own rendering;
        control characters in any of it are shown as visible escapes (``interp.terminal``)."""
        provider = f"(plugin {self.plugin})" if self.method and self.plugin not in ("", self.method) else ""
        head = [self.method or self.plugin, self.version, provider, f"on {self.dataset}" if self.dataset else ""]
        lines = [" ".join(part for part in head if part)]
        if self.metrics:
            lines.append("metrics:")
            width = max(len(k) for k in self.metrics)
            for key, value in self.metrics.items():
                lines.append(f"  {key:<{width}}  {format_value(value)}")
        if self.text:
            lines += ["", self.text.rstrip()]
        return visible("\n".join(lines))

    def _repr_html_(self) -> str:
        """The notebook display: the report's section for this explanation
        (``interp.fragments.explanation_html``: static HTML, plots inline)."""
        from .fragments import explanation_html

        return explanation_html(self)

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        """IPython's text display: the summary ``interp run`` prints."""
        printer.text(self.summary())

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.to_json() + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Explanation":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
