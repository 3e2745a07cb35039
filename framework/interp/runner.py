"""Running a registered method on a data set: the one path the CLI and the report share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from . import progress
from .data import Dataset
from .errors import PluginError
from .registry import get_registry, resolve
from .results import Explanation


@attrs.frozen
class RunContext:
    """What a method's ``run`` gets besides data and options.

    ``seed`` is the random state to pass on (None: not reproducible), ``quiet`` silences progress
    bars, ``out_dir`` is where the run is saved (None: not saved), ``n_jobs`` the joblib width,
    ``model`` a fitted model the user supplied (``--model-file``) for methods that explain one.
    """

    seed: int | None = None
    quiet: bool = False
    out_dir: Path | None = None
    n_jobs: int | None = None
    model: Any = None


def run_method(name: str, data: Dataset, options: dict[str, Any] | None = None, ctx: RunContext | None = None) -> Explanation:
    """Run method ``name`` on validated ``data``; fill in plugin name, version and data set."""
    ctx = ctx or RunContext()
    method = resolve("methods", name)
    data.require(method.task)
    with progress.quiet(ctx.quiet):
        try:
            result = method.run(data, ctx, **(options or {}))
        except ImportError as err:  # plugins import their heavy modules when they run (interp.lazy)
            raise PluginError(
                f"plugin {method.plugin!r} cannot run {name!r}: {type(err).__name__}: {err}") from err
    if not isinstance(result, Explanation):
        raise PluginError(f"method {name!r} returned {type(result).__name__}, not an interp.Explanation")
    info = get_registry().plugin(method.plugin)
    return attrs.evolve(
        result,
        plugin=result.plugin or name,
        version=result.version or info.version,
        dataset=result.dataset or data.name,
        figures=result.figures,
        estimator=result.estimator,
    )
