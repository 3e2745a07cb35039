"""Running a registered method on a data set: the one path the CLI and the report share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from . import progress
from .data import Dataset
from .components import Method
from .errors import InterpError, PluginError
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


class PluginBug(InterpError):
    """A plugin's method raised something other than an interp error: a bug, not bad input.

    The CLI prints it as one line naming the plugin (exit 1; ``--debug`` shows the traceback).
    """

    def __init__(self, method: Method, err: BaseException):
        text = str(err).strip().splitlines()
        detail = f"{type(err).__name__}: {text[0]}" if text else type(err).__name__
        super().__init__(f"bug in plugin {method.plugin!r} (method {method.name!r}): {detail}")
        self.method, self.original = method, err


def run_method(name: str, data: Dataset, options: dict[str, Any] | None = None,
               ctx: RunContext | None = None) -> Explanation:
    """Run method ``name`` on validated ``data``; fill in method, plugin, version and data set.

    ``options`` are converted, checked and completed with their declared defaults before the
    method sees them.  Data with missing numbers reach only a method that declares it takes them
    (``Method.missing``).  An ``InterpError`` from the method passes through (bad input); any other
    exception becomes ``PluginBug`` (chained to the original), so that a bug is never shown as
    the user's fault.
    """
    ctx = ctx or RunContext()
    method = resolve("methods", name)
    data.require(method.task)
    if not method.missing:
        data.check_complete()
    resolved = method.resolve_options(options)
    try:
        run = method.load()
    except Exception as err:  # noqa: BLE001 - a broken install shows here, as at load time
        raise PluginError(
            f"plugin {method.plugin!r} cannot run {name!r}: {type(err).__name__}: {err}") from err
    with progress.quiet(ctx.quiet):
        try:
            result = run(data, ctx, **resolved)
        except InterpError:
            raise
        except ImportError as err:  # plugins import their heavy modules when they run (interp.lazy)
            raise PluginError(
                f"plugin {method.plugin!r} cannot run {name!r}: {type(err).__name__}: {err}") from err
        except Exception as err:  # noqa: BLE001 - anything else from a method is a bug
            raise PluginBug(method, err) from err
    if not isinstance(result, Explanation):
        raise PluginError(f"method {name!r} returned {type(result).__name__}, not an interp.Explanation")
    info = get_registry().plugin(method.plugin)
    return attrs.evolve(
        result,
        method=name,
        plugin=method.plugin,
        version=result.version or info.version,
        dataset=result.dataset or data.name,
    )
