"""Running a registered method on a data set: the one path the CLI and the report share."""

from __future__ import annotations

import contextlib
import importlib.util
import numbers
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import attrs

from . import progress
from .attribution import owner
from .data import Dataset
from .component_options import resolve_options
from .components import Method
from .errors import InputError, InterpError, PluginError
from .registry import get_registry, plugin_manager, resolve
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
    """Something a plugin did while a method ran is a bug, not bad input: the method raised an
    error other than an ``InputError``, returned something other than an ``Explanation``, a
    component broke its contract, or a figure or model it made could not be saved.

    ``plugin`` is the plugin at fault (a third-party component's plugin when the error came from
    its code), ``method`` the method that ran (``role="command"``: the plugin's command).  The CLI prints it as one line naming the plugin
    (exit 1; ``--debug`` shows the traceback of ``original``).
    """

    def __init__(self, plugin: str, method: str, err: BaseException, role: str = "method"):
        text = str(err).strip().splitlines()
        detail = f"{type(err).__name__}: {text[0]}" if text else type(err).__name__
        super().__init__(f"bug in plugin {plugin!r} ({role} {method!r}): {detail}")
        self.plugin, self.method, self.original = plugin, method, err


def at_fault(err: BaseException, default: str) -> str:
    """The plugin whose code raised ``err``: the one a ``PluginError`` names, else the plugin
    owning the innermost frame of the traceback that lies in a plugin's package (a package
    that holds two plugins names neither), else ``default``."""
    if isinstance(err, PluginError) and err.plugin:
        return err.plugin
    if owner(err):  # raised inside a component's call (interp.attribution)
        return owner(err)
    owners: dict[str, set[str]] = {}
    for name, plugin in plugin_manager().list_name_plugin():
        module = plugin.__name__ if isinstance(plugin, ModuleType) else type(plugin).__module__
        owners.setdefault(module.split(".")[0], set()).add(name)
    for frame, _ in reversed(list(traceback.walk_tb(err.__traceback__))):
        found = owners.get(str(frame.f_globals.get("__name__", "")).split(".")[0], set())
        if len(found) == 1:
            return next(iter(found))
    return default


def missing_dependency(err: ImportError) -> str | None:
    """The package ``err`` says is missing when it is a ``ModuleNotFoundError`` for a top-level
    package that is not installed (``pip install`` would fix it), else None: ``cannot import
    name 'X'`` from an installed package, or a misspelled submodule of one, is a bug."""
    name = getattr(err, "name", None)
    if not isinstance(err, ModuleNotFoundError) or not name:
        return None
    top = name.split(".")[0]
    try:
        return top if importlib.util.find_spec(top) is None else None
    except (ImportError, ValueError):  # a broken or half-imported package: not found either way
        return top


@contextlib.contextmanager
def blame(method: Method) -> Iterator[None]:
    """Inside the block an ``InterpError`` passes (bad input), an ``ImportError`` of a package
    that is not installed is a ``PluginError`` (the plugin cannot run here: a missing
    dependency, `missing_dependency`), and anything else, another ``ImportError`` or a
    ``PluginError`` (a component that broke its contract) included, is a ``PluginBug`` naming
    the plugin at fault (``at_fault``)."""
    try:
        yield
    except PluginBug:
        raise
    except PluginError as err:
        raise PluginBug(at_fault(err, method.plugin), method.name, err) from err
    except InterpError:
        raise
    except ImportError as err:  # plugins import their heavy modules when they run (interp.lazy)
        missing = missing_dependency(err)
        if missing is None:  # a name the plugin's code gets wrong is its bug, not the machine's
            raise PluginBug(at_fault(err, method.plugin), method.name, err) from err
        raise PluginError(f"plugin {method.plugin!r} cannot run {method.name!r} here: missing dependency "
                          f"{missing!r} ({type(err).__name__}: {err})", plugin=method.plugin) from err
    except Exception as err:  # noqa: BLE001 - anything else from a plugin's code is a bug
        raise PluginBug(at_fault(err, method.plugin), method.name, err) from err


def model_refusal(method: Method) -> str | None:
    """Why ``method`` takes no supplied model (``--model-file``), or None when it declares
    ``explains_model``; the reason names the methods that do."""
    if method.explains_model:
        return None
    takers = sorted(name for name, m in get_registry().methods.items() if m.explains_model)
    return (f"--model-file: method {method.name!r} fits its own model and explains no supplied one; "
            f"methods that do: {', '.join(takers) or 'none installed'}")


def check_context(method: Method, ctx: RunContext) -> None:
    """One-line InputErrors, before any work, for run settings no method can use: a seed outside
    0..2**32 - 1 (numpy's range), ``n_jobs`` 0 (joblib's counts are >= 1, or negative for
    "all cores but ..."), a supplied model for a method that does not declare
    ``explains_model``."""
    seed, jobs = ctx.seed, ctx.n_jobs
    if seed is not None and (not _is_int(seed) or not 0 <= seed < 2**32):
        raise InputError(f"--seed must be an integer from 0 to {2**32 - 1}, got {seed!r}")
    if jobs is not None and (not _is_int(jobs) or jobs == 0):
        raise InputError(f"--n-jobs must be a number of parallel jobs (1 or more; -1 for every core), got {jobs!r}")
    if ctx.model is not None and model_refusal(method):
        raise InputError(model_refusal(method))


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def run_method(name: str, data: Dataset, options: dict[str, Any] | None = None,
               ctx: RunContext | None = None) -> Explanation:
    """Run method ``name`` on validated ``data``; fill in method, plugin, version, data set and
    parameters.

    ``options`` are converted, checked and completed with their declared defaults before the
    method sees them (``interp.component_options.resolve_options``).  Data with missing numbers reach only a method
    that declares it takes them (``Method.missing``).  The result's ``params`` are those resolved
    options and the seed, updated with the ``params`` the method returns: a method gives only
    what it resolved further (a chosen value, a default that depends on the data).  An
    ``InputError`` from the method passes through (bad input); anything else it raises, and a
    result that is not an ``Explanation``, is a ``PluginBug`` (chained to the original), so that
    a bug is never shown as the user's fault (see ``blame``).  Text in the figures made during
    the run is literal (``interp.plotting.literal_text``).
    """
    from .plotting import literal_text

    ctx = ctx or RunContext()
    method = resolve("methods", name)
    check_context(method, ctx)
    data.require(method.task)
    if not method.missing:
        data.check_complete()
    resolved = resolve_options(method, options)
    with blame(method):
        run = method.load()
        with progress.quiet(ctx.quiet), literal_text():
            result = run(data, ctx, **resolved)
        if not isinstance(result, Explanation):
            raise TypeError(f"the method returned {type(result).__name__}, not an interp.Explanation")
    info = get_registry().plugin(method.plugin)
    return attrs.evolve(
        result,
        method=name,
        plugin=method.plugin,
        version=result.version or info.version,
        dataset=result.dataset or data.name,
        params={**resolved, "seed": ctx.seed, **result.params},
    )


def save_result(explanation: Explanation, out_dir: str | Path) -> list[Path]:
    """``runs.save_run`` for the result of ``run_method``: a file that cannot be written is an
    ``InputError`` naming the folder, a figure or model the method made that cannot be saved
    a ``PluginBug``."""
    from .runs import save_run

    method = resolve("methods", explanation.method)
    try:
        with blame(method):
            return save_run(explanation, out_dir)
    except PluginBug as bug:
        if isinstance(bug.original, OSError):
            raise InputError(f"cannot save the run in {str(out_dir)!r}: {bug.original}") from bug.original
        raise
