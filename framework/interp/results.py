"""Explanation: the one result type every method returns; JSON round-trips exactly."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import attrs
import numpy as np

FORMAT_VERSION = 1


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


@attrs.define(eq=False)
class Explanation:
    """The result of one run of a method.

    ``params``, ``metrics`` and ``payload`` hold plain JSON values (numpy values are converted
    on creation); ``text`` is the method's human-readable rendering (formula, score card, ...).
    ``figures`` (name -> matplotlib Figure) and ``estimator`` travel with the object but are not
    part of the JSON.
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

    def to_dict(self) -> dict:
        return {
            "format_version": FORMAT_VERSION,
            "plugin": self.plugin,
            "version": self.version,
            "dataset": self.dataset,
            "params": self.params,
            "metrics": self.metrics,
            "explanation": self.payload,
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Explanation":
        return cls(
            plugin=data["plugin"],
            version=data.get("version", ""),
            dataset=data.get("dataset", ""),
            params=data.get("params", {}),
            metrics=data.get("metrics", {}),
            payload=data.get("explanation", {}),
            text=data.get("text", ""),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Explanation):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def summary(self) -> str:
        """The text ``interp run`` prints: header, metrics, then the method's own rendering."""
        lines = [f"{self.plugin} {self.version} on {self.dataset}".strip()]
        if self.metrics:
            lines.append("metrics:")
            width = max(len(k) for k in self.metrics)
            for key, value in self.metrics.items():
                shown = f"{value:.4g}" if isinstance(value, float) else str(value)
                lines.append(f"  {key:<{width}}  {shown}")
        if self.text:
            lines += ["", self.text.rstrip()]
        return "\n".join(lines)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.to_json() + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Explanation":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
