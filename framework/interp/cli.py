"""The ``interp`` command line: plugins, datasets, run, show, report, and commands added by plugins.

Every line the command line prints goes through ``echo``, which shows control characters as
visible escapes (``interp.terminal.visible``): column names, cell values, messages and tracebacks
quote the user's files, and nothing in them may drive the terminal.  click's own error messages
and Python warnings are routed through it too (``InterpGroup``).
"""

from __future__ import annotations

import contextlib
import copy
import contextvars
import json
import os
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator

import attrs
import click

from .version import __version__
from .components import Option
from .data import Dataset, bundled_datasets, load_dataset, missing_file
from .errors import InterpError
from .registry import CATALOGUES, PluginCommand, PluginWarning, get_registry, library_catalogues
from .registry import commands as plugin_commands
from .runner import PluginBug, RunContext, run_method, save_result
from .runs import check_run_folder, load_run
from .report import NO_MODEL, anchors, model_page_html, page_html
from .scaffold import KINDS, new_plugin
from .studied import model_name
from .terminal import visible

_TYPES = {int: click.INT, float: click.FLOAT, str: click.STRING}


#: the plugins whose load traceback this command has shown; None without --debug
_debug_shown: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("interp_debug", default=None)


def echo(text: str, err: bool = False) -> None:
    """Print ``text`` (a line or a block) on stdout, or stderr with ``err``: control characters
    as visible escapes, newlines and tabs kept."""
    click.echo(visible(text), err=err)


def echo_json(value: Any, indent: int | None = 2) -> None:
    """Print ``value`` as JSON: every control character is a JSON escape (DEL too, which
    ``json`` leaves raw), so the text is valid JSON and safe on a terminal."""
    echo(json.dumps(value, indent=indent, allow_nan=False).replace("\x7f", "\\u007f"))


def _show_warning(message: Any, category: type, *args: Any, **kwargs: Any) -> None:
    echo(f"warning: {visible(str(message), one_line=True)}", err=True)


class _Exit2(click.ClickException):
    """One line on stderr, exit code 2; under it an error's ``excerpt``, as lines."""

    exit_code = 2

    def __init__(self, message: str, excerpt: str = "") -> None:
        super().__init__(message)
        self.excerpt = excerpt

    def show(self, file: Any = None) -> None:
        echo(f"Error: {visible(self.message, one_line=True)}", err=True)
        if self.excerpt:
            echo(visible(self.excerpt), err=True)


def fail(message: str | InterpError) -> None:
    """Print one line on stderr and exit with code 2 (bad input, unknown plugin); an error with
    an ``excerpt`` (a formula and a caret under its error) shows it as lines under that line."""
    if isinstance(message, InterpError) and message.excerpt and str(message).endswith("\n" + message.excerpt):
        raise _Exit2(str(message)[: -len(message.excerpt) - 1], message.excerpt)
    raise _Exit2(str(message))


def _loaded_registry(echo_warnings: bool = True):
    """The registry, with plugin load warnings turned into stderr lines; with --debug, the
    traceback of each plugin that failed to load (once)."""
    registry = _with_plugin_warnings(get_registry, echo_warnings)
    shown = _debug_shown.get()
    for info in registry.plugins if shown is not None else ():
        if info.status == "failed" and info.traceback and info.name not in shown:
            shown.add(info.name)
            echo(f"plugin {info.name!r} failed to load:\n{info.traceback.rstrip()}", err=True)
    return registry


def _with_plugin_warnings(call: Callable[[], Any], echo: bool = True) -> Any:
    """``call()``, with the plugin warnings it raises turned into stderr lines (or dropped), and
    a strict-mode plugin error into a one-line exit 2."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PluginWarning)
        try:
            result = call()
        except InterpError as err:  # strict mode
            fail(err)
    for w in caught if echo else ():
        _show_warning(w.message, w.category)
    return result


@contextlib.contextmanager
def _visible_errors() -> Iterator[None]:
    """click's own error messages (a bad option value, an unknown option) quote what the user
    typed: made one visible line before click prints them.  A usage error is that line and
    where to read the usage, instead of click's usage block above it."""
    try:
        yield
    except click.UsageError as err:
        where = f" (see '{err.ctx.command_path} --help')" if err.ctx is not None else ""
        raise _Exit2(err.format_message() + where) from None
    except click.ClickException as err:
        err.message = visible(err.message, one_line=True)
        raise


class InterpGroup(click.Group):
    """The root group; commands that plugins add through ``register_commands`` appear here,
    under the registry's name rules (interp's own commands are never replaced)."""

    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        """click's ``main``, with ``--debug`` anywhere on the line noted and every warning
        printed as one visible line (``echo``)."""
        args = list(sys.argv[1:] if args is None else args)
        token = _debug_shown.set(set() if "--debug" in args else None)
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _show_warning
                return super().main(args, *rest, **kwargs)
        finally:
            _debug_shown.reset(token)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _visible_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; with --debug, every plugin that failed to load shows its traceback
        first, whatever the command."""
        with _visible_errors():
            if _debug_shown.get() is not None:
                _loaded_registry()
            return super().invoke(ctx)

    def _extra(self) -> dict[str, click.Command]:
        """The plugins' commands (gathered again only when the loaded plugins change), each with
        interp's error handling (`_guarded`)."""
        _loaded_registry()
        found = _with_plugin_warnings(lambda: plugin_commands(self.commands))
        return {name: _guarded(entry) for name, entry in found.items()}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self._extra()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return self.commands.get(name) or self._extra().get(name)


def _guarded(entry: PluginCommand) -> click.Command:
    """A copy of a plugin's command whose failures read as interp's own commands' do: an
    ``InterpError`` (bad input) is one line and exit 2, any other exception one line naming the
    plugin and exit 1 (``--debug``: its traceback first).  click's own exits pass."""
    command = copy.copy(entry.command)
    invoke = command.invoke

    def guarded_invoke(ctx: click.Context) -> Any:
        try:
            return invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except PluginBug as err:
            _bug(err)
        except InterpError as err:
            fail(err)
        except Exception as err:  # noqa: BLE001 - anything else from a plugin's command is its bug
            _bug(PluginBug(entry.plugin, entry.name, err, role="command"))

    command.invoke = guarded_invoke
    return command


_DEBUG_HELP = "Show tracebacks: of a plugin's bug, and of each plugin that failed to load."


def _debug_option(command: Callable) -> Callable:
    """``--debug`` on a command (``InterpGroup.main`` reads it wherever it is on the line)."""
    return click.option("--debug", "debug", is_flag=True, help=_DEBUG_HELP)(command)


@click.group(cls=InterpGroup)
@click.version_option(__version__, prog_name="interp")
@_debug_option
def cli(debug: bool) -> None:
    """interp: interpret machine-learning models with pluggable methods."""


@cli.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
@click.option("--verbose", "-v", is_flag=True, help="List each registered component with its description.")
@_debug_option
def plugins_command(as_json: bool, verbose: bool, debug: bool) -> None:
    """List installed plugins: version, origin, status, what each registered (in interp's
    catalogues, the commands and the catalogues libraries add), the names it shares with
    others and who got them, and the hooks it implements and adds."""
    registry = _loaded_registry(echo_warnings=False)
    catalogues = _with_plugin_warnings(lambda: _all_catalogues(registry), echo=False)
    rows = [{**info.to_dict(), "descriptions": _descriptions(catalogues, info.registered)}
            for info in registry.plugins]
    if as_json:
        echo_json(rows)
        return
    if not rows:
        echo("no plugins installed")
    for row, info in zip(rows, registry.plugins):
        echo(f"{' '.join(filter(None, (row['name'], row['version'])))} ({row['source']}): {row['status']}")
        for line in _plugin_lines(row, info, verbose):
            echo(f"    {line}")


def _all_catalogues(registry: Any) -> dict[str, Any]:
    """Catalogue key -> catalogue: interp's, the commands plugins add, and libraries' (which
    records every plugin's part in each on its ``PluginInfo``)."""
    found = {key: getattr(registry, key) for key in CATALOGUES}
    found["commands"] = plugin_commands(cli.commands)
    found.update(library_catalogues())
    return found


def _plugin_lines(row: dict[str, Any], info: Any, verbose: bool) -> list[str]:
    """The indented lines of one plugin in the text listing."""
    lines = [row["error"]] if row["error"] else []
    if info.replaces:
        lines.append(f"replaces: {', '.join(info.replaces)}")
    for catalogue, names in row["registered"].items():
        label = catalogue.replace("_", " ")
        if not verbose:
            lines.append(f"{label}: {', '.join(names)}")
            continue
        lines.append(f"{label}:")
        width = max(len(name) for name in names)
        lines += [f"    {name:<{width}}  {text}".rstrip() for name, text in row["descriptions"][catalogue].items()]
    lines += _conflict_lines(info)
    if info.hooks:
        lines.append(f"hooks: {', '.join(info.hooks)}")
    if info.hookspecs:
        lines.append(f"adds hooks: {', '.join(info.hookspecs)}")
    return lines


def _conflict_lines(info: Any) -> list[str]:
    """A plugin's conflicts: names that changed hands by declaration grouped by the other
    plugin (``taken from`` / ``replaced by``), every other conflict on a line of its own."""
    moved: dict[str, dict[str, list[str]]] = {}
    lines = []
    for conflict in info.conflicts:
        if not conflict.silent():
            lines.append(f"conflict: {conflict.seen_by(info.name)}")
            continue
        heading = (f"taken from {', '.join(conflict.losers())}" if conflict.winner == info.name
                   else f"replaced by {conflict.winner}")
        moved.setdefault(heading, {}).setdefault(conflict.catalogue.replace("_", " "), []).append(conflict.name)
    return [f"{heading}: " + "; ".join(f"{label} {', '.join(names)}" for label, names in groups.items())
            for heading, groups in moved.items()] + lines


def _descriptions(catalogues: dict[str, Any], registered: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """Catalogue -> component name -> its one-line description (a method's summary)."""
    out: dict[str, dict[str, str]] = {}
    for catalogue, names in registered.items():
        components = catalogues.get(catalogue, {})
        out[catalogue] = {name: _described(components.get(name)) for name in names}
    return out


def _described(component: Any) -> str:
    """A component's one-line description (a method's summary), then the parameters it takes
    with their defaults (set with ``--NAME-param KEY=VALUE``)."""
    text = _one_line(getattr(component, "description", None) or getattr(component, "summary", ""))
    defaults = getattr(component, "defaults", None) or {}
    if defaults:
        text += f" [parameters: {', '.join(f'{k}={v!r}' for k, v in defaults.items())}]"
    return text.strip()


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


@cli.command("datasets")
@_debug_option
def datasets_command(debug: bool) -> None:
    """List the data sets bundled with interp (use them with --dataset NAME)."""
    for info in bundled_datasets().values():
        echo(f"{info.name:<16} target={info.target:<12} {info.description}")


def _click_options(opt: Option, registry: Any) -> list[click.Option]:
    """The click option of ``opt`` and, for an option naming one component, its ``--NAME-param``
    (whose help lists the parameters each registered component of the catalogue takes); every
    help, which click prints, made visible."""
    if opt.type is bool:
        return [click.Option([opt.flag + "/--no-" + opt.flag[2:]], default=bool(opt.default),
                             help=visible(opt.help), show_default=True)]
    kind = click.Choice(opt.choices) if opt.choices else _TYPES[opt.type]
    bounds = f" (range: {opt.range_text})" if opt.range_text else ""
    option = click.Option([opt.flag, opt.name], type=kind, default=opt.default, help=visible(opt.help + bounds),
                          show_default=opt.default is not None, metavar="NAMES" if opt.many else None)
    if opt.params_name is None:
        return [option]
    takes = "; ".join(f"{name}: " + ", ".join(f"{k}={v}" for k, v in component.defaults.items())
                      for name, component in getattr(registry, opt.catalogue).items() if component.defaults)
    return [option, click.Option([opt.params_flag, opt.params_name], multiple=True, metavar="NAME=VALUE",
                                 help=visible(f"a parameter of the chosen {opt.flag[2:]}, repeatable "
                                              f"(defaults: {takes or 'none takes any'})"))]


_METHOD_FLAGS = ("--method", "--plugin")


def _peek_method(args: list[str]) -> str | None:
    """The method named by ``--method NAME`` (or its alias ``--plugin``) among ``args``."""
    for i, arg in enumerate(args):
        if arg in _METHOD_FLAGS and i + 1 < len(args):
            return args[i + 1]
        flag, sep, value = arg.partition("=")
        if sep and flag in _METHOD_FLAGS:
            return value
    return None


def _unknown_method(name: str) -> None:
    registry = _loaded_registry()
    available = ", ".join(sorted(registry.methods)) or "none"
    for info in registry.plugins:
        if info.name == name and info.status != "loaded":
            fail(f"method {name!r} is unavailable: plugin {name!r} is {info.status}: "
                 f"{info.error or 'see interp plugins'}")
    if registry.methods.refusal(name):
        fail(f"method {name!r} is not available: {registry.methods.refusal(name)}")
    fail(f"unknown method {name!r}; available: {available}")


def _load_data(data: str | None, target: str | None, dataset: str | None, missing: bool = False) -> Dataset:
    """The data named by --data/--target or --dataset, or a one-line exit 2; ``missing``: keep
    missing numbers (a method that takes them will run)."""
    if (data is None) == (dataset is None):
        fail("give either --data FILE.csv --target COLUMN or --dataset NAME (see interp datasets)")
    if data is not None and not Path(data).is_file():
        fail(missing_file(data))
    if data is not None and target is None:
        fail("--data needs --target naming the label column")
    try:
        return load_dataset(dataset if dataset is not None else data, target, missing=missing)
    except InterpError as err:
        fail(err)
    raise AssertionError("unreachable")


class RunCommand(click.Command):
    """`interp run`: the chosen method's own options are added once --method is known."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        self.params = list(_RUN_PARAMS)
        name = _peek_method(args)
        if name is not None:
            registry = _loaded_registry()
            methods = registry.methods
            if name not in methods:
                _unknown_method(name)
            self.params += [option for opt in methods[name].options for option in _click_options(opt, registry)]
            self.help = visible(f"Run the {name!r} method: {methods[name].summary}")
        elif "--help" in args:
            methods = _loaded_registry().methods
            self.epilog = visible("Installed methods: " + (", ".join(sorted(methods)) or "none"))
        return super().make_context(info_name, args, parent, **extra)


class _Bug(_Exit2):
    """A plugin's bug: one line naming the plugin, exit code 1."""

    exit_code = 1


def _bug(err: PluginBug) -> None:
    """Exit 1 with one line naming the plugin at fault, and with --debug its traceback first."""
    if _debug_shown.get() is not None:
        echo("".join(traceback.format_exception(err.original)).rstrip(), err=True)
        raise _Bug(str(err))
    raise _Bug(f"{err} (run again with --debug for the traceback)")


def _run(method: str, data: str | None, target: str | None, dataset: str | None, out: str | None, fmt: str,
         seed: int, quiet: bool, n_jobs: int | None, model_file: str | None, trust_model_file: bool,
         rows: str | None, debug: bool, **options: Any) -> None:
    """Run one interpretation method on a data set (see --method NAME --help for its options).

    \f
    Thirteen parameters because click calls the command with every option of ``interp run`` as
    a keyword (the method's own options arrive in ``options``).  A model file that holds no
    model that predicts (a list of trees a reader reads) goes as it is to a method that explains
    models itself; any other goes through ``interp.explain`` (``_run_on_model``)."""
    model = _load_model(model_file, trust_model_file) if model_file is not None else None
    run_ctx = RunContext(seed=seed, quiet=quiet, out_dir=Path(out) if out else None, n_jobs=n_jobs)
    given = model_file is not None
    read_as_is = given and not hasattr(model, "predict") and _loaded_registry().methods[method].explains_model
    if given and not read_as_is:
        _run_on_model(method, model, _load_data(data, target, dataset), run_ctx, fmt, options, _row_list(rows))
        return
    if rows is not None:
        fail("--rows explains single rows of a model that predicts: give one with --model-file")
    loaded = _load_data(data, target, dataset, missing=getattr(_loaded_registry().methods.get(method), "missing", False))
    try:
        if out:
            check_run_folder(out)
        explanation = run_method(method, loaded, options, attrs.evolve(run_ctx, model=model))
        written = save_result(explanation, out) if out else []
    except PluginBug as err:
        _bug(err)
    except InterpError as err:
        fail(err)
    _print_run(explanation, written, out, quiet, fmt)


def _print_run(explanation: Any, written: list[Path], out: str | None, quiet: bool, fmt: str,
               fidelity: Any = None, rows: list | None = None) -> None:
    """What ``interp run`` prints: where the run was saved, then its summary (text) or JSON
    (with the ``fidelity`` and the explained ``rows`` of a run on a model)."""
    if written and not quiet and fmt == "text":
        echo(f"saved {', '.join(p.name for p in written)} in {out}", err=True)
    if fmt == "json":
        extra = {**({"fidelity": fidelity.to_dict()} if fidelity else {}), **({"rows": rows} if rows else {})}
        echo_json({**explanation.to_dict(), **extra}, indent=None)
    else:
        echo(explanation.summary())


def _table_of(loaded: Dataset) -> tuple[Any, Any]:
    """The user's columns of a loaded data set and its target, named, for ``interp.explain``."""
    import pandas as pd

    frame = loaded.table()
    return frame, None if loaded.y is None else pd.Series(loaded.y, name=loaded.target_name)


def _row_list(text: str | None) -> list[int]:
    """The row positions of ``--rows 0,17`` (none when not given), or a one-line exit 2."""
    if text is None:
        return []
    try:
        rows = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        fail(f"--rows takes row numbers separated by commas, such as 0,17; got {text!r}")
    if not rows or min(rows) < 0:
        fail(f"--rows takes row numbers from 0, separated by commas; got {text!r}")
    return rows


def _run_on_model(method: str, model: Any, loaded: Dataset, ctx: RunContext, fmt: str, options: dict,
                  rows: list[int]) -> None:
    """``interp run --model-file``: the method explains that model (``interp.explain`` with
    this one method), and the output begins with what it was fitted to and its fidelity; with
    ``rows``, why the model and the method answer as they do for each.

    \f
    Seven parameters: the run command's, grouped in ``ctx`` where they are the run's settings."""
    from .explaining import explain

    out = str(ctx.out_dir) if ctx.out_dir else None
    try:
        if out:
            check_run_folder(out)
        frame, y = _table_of(loaded)
        result = explain(model, frame, y, methods=[method], options={method: options},
                         random_state=ctx.seed, n_jobs=ctx.n_jobs, quiet=ctx.quiet, name=loaded.name)
        (part,) = result.results
        if part.explanation is None:
            (_Bug if part.bug else _Exit2)(part.error).show()
            sys.exit(1 if part.bug else 2)
        written = save_result(part.explanation, out) if out else []
        explained = result.for_rows(rows) if rows else None
    except PluginBug as err:
        _bug(err)
    except InterpError as err:
        fail(err)
    if fmt == "text":
        echo(f"{result.headline()}\nfitted to {part.fitted_to}; fidelity on {result.held_out:,} held-out rows: "
             f"{part.fidelity.text()}\n")
    _print_run(part.explanation, written, out, ctx.quiet, fmt, part.fidelity,
               [r.to_dict() for rs in explained.by_method.values() for r in rs] if explained else None)
    if explained is not None and fmt == "text":
        echo("\n" + explained.text())


def _load_model(model_file: str, trusted: bool) -> Any:
    """The fitted model of --model-file, which unpickling makes the user's explicit choice."""
    if not trusted:
        fail(f"--model-file {model_file!r} would unpickle it, which runs code from the file; "
             "add --trust-model-file if you trust it")
    import joblib

    try:
        return joblib.load(model_file)
    except Exception as err:  # noqa: BLE001 - any unpickling failure is the file's problem
        fail(f"cannot load model file {model_file!r}: {type(err).__name__}: {err}")


_RUN_PARAMS = [
    click.Option(["--method", "--plugin", "method"], required=True,
                 help="The method to run (see interp plugins); --plugin is an alias."),
    click.Option(["--data", "data"], type=click.Path(), help="CSV file with a header row."),
    click.Option(["--target", "target"], help="The label column of --data."),
    click.Option(["--dataset", "dataset"], help="A bundled data set (see interp datasets)."),
    click.Option(["--out", "out"], type=click.Path(),
                 help="Save explanation.json, plots and the estimator in this folder."),
    click.Option(["--format", "fmt"], type=click.Choice(["text", "json"]), default="text", show_default=True),
    click.Option(["--seed", "seed"], type=int, default=0, show_default=True, help="Random seed."),
    click.Option(["--quiet", "quiet"], is_flag=True, help="No progress bars."),
    click.Option(["--n-jobs", "n_jobs"], type=int, default=None, help="Parallel jobs (joblib)."),
    click.Option(["--model-file", "model_file"], type=click.Path(dir_okay=False),
                 help="Your fitted model (joblib/pickle): the method explains it, with its fidelity on held-out rows."),
    click.Option(["--trust-model-file", "trust_model_file"], is_flag=True,
                 help="Allow --model-file: unpickling runs code from the file."),
    click.Option(["--rows", "rows"], metavar="N,N",
                 help="With --model-file: explain these rows of the data (positions from 0, such as 0,17)."),
    click.Option(["--debug", "debug"], is_flag=True, help=_DEBUG_HELP),
]

cli.add_command(RunCommand("run", callback=_run, params=list(_RUN_PARAMS),
                           help=_run.__doc__, short_help="Run one method on a data set."))


@cli.command("show")
@click.argument("run_dir", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the saved JSON.")
@_debug_option
def show_command(run_dir: str, as_json: bool, debug: bool) -> None:
    """Print the summary of a run saved with `interp run --out DIR`."""
    try:
        explanation = load_run(run_dir)
    except InterpError as err:
        fail(err)
    if as_json:
        echo_json(explanation.to_dict())
    else:
        echo(explanation.summary())


@cli.command("report")
@click.option("--data", type=click.Path(), help="CSV file with a header row.")
@click.option("--target", help="The label column of --data.")
@click.option("--dataset", help="A bundled data set (see interp datasets).")
@click.option("--model", "--model-file", "model_file", type=click.Path(dir_okay=False),
              help="Your fitted model (joblib/pickle): every method explains it, each with its fidelity.")
@click.option("--trust-model-file", is_flag=True, help="Allow --model: unpickling runs code from the file.")
@click.option("--positive", help="With --model: the class explained against the rest.")
@click.option("--fit-to", type=click.Choice(["model", "data"]), default="model", show_default=True,
              help="With --model: what facets and propositional fit, the model's classes or the data's target.")
@click.option("--threshold", type=float,
              help="With a regression --model: t of the decision 'prediction > t' (default: the median).")
@click.option("--row", type=click.IntRange(min=0),
              help="With --model: the row the 'one row' section explains (default: the held-out row where the "
                   "model is least sure).")
@click.option("--methods", "--plugins", "methods",
              help="Comma-separated methods to run (default: all installed); --plugins is an alias.")
@click.option("--out", type=click.Path(), default="interp-report", show_default=True,
              help="Folder for report.html and each method's saved run.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--quiet", is_flag=True, help="No progress bars.")
@_debug_option
def report_command(data: str | None, target: str | None, dataset: str | None, model_file: str | None,
                   trust_model_file: bool, positive: str | None, fit_to: str, threshold: float | None,
                   row: int | None, methods: str | None, out: str, seed: int, quiet: bool, debug: bool) -> None:
    """Run several methods on one data set and write one self-contained HTML page; with
    --model, every method explains that model, each with its fidelity on held-out rows.

    Exit code 0 when every method ran, 1 when one failed by a plugin's bug, 2 when one could
    not run on the data (the page is written in both cases and shows why).

    \f
    Fourteen parameters: click passes every option of the command as a keyword."""
    registered = _loaded_registry().methods
    names = [p.strip() for p in methods.split(",") if p.strip()] if methods else sorted(registered)
    names = list(dict.fromkeys(names))
    for name in names:
        if name not in registered:
            _unknown_method(name)
    if model_file is not None:
        settings = ModelSettings(positive, fit_to, threshold, row)
        _model_report(_load_model(model_file, trust_model_file), names, data, target, dataset, Path(out),
                      settings, seed, quiet)
        return
    loaded = _load_data(data, target, dataset, missing=any(registered[name].missing for name in names))
    folders = anchors(names)
    _check_report_folder(Path(out), folders)
    parts, failures = [], {}
    for name, anchor in zip(names, folders):
        if not quiet:
            echo(f"running {name} ...", err=True)
        part, failure = _report_part(name, anchor, loaded, Path(out), RunContext(seed=seed, quiet=quiet))
        parts.append(part)
        if failure is not None:
            failures[name] = failure
            echo(f"failed: {name}: {visible(str(failure), one_line=True)}", err=True)
    page = _write_page(Path(out), page_html(parts, f"interp report: {loaded.name}", NO_MODEL))
    _report_done(page, {name: isinstance(f, PluginBug) for name, f in failures.items()})


@attrs.frozen
class ModelSettings:
    """What --model reads besides the model: the class explained, what facets and
    propositional fit, a regressor's decision threshold (see ``interp.explain``) and the row
    the page explains (None: the model's least certain held-out row)."""

    positive: str | None
    fit_to: str
    threshold: float | None
    row: int | None = None


def _report_done(page: Path, failed: dict[str, bool]) -> None:
    """Say where the page is and exit: 0, or 1 when a method failed by a plugin's bug (the
    value True in ``failed``), else 2."""
    echo(f"wrote {page}" + (f" ({len(failed)} failed: {', '.join(failed)})" if failed else ""))
    if failed:
        sys.exit(1 if any(failed.values()) else 2)


def _model_report(model: Any, names: list[str], data: str | None, target: str | None, dataset: str | None,
                  out: Path, settings: ModelSettings, seed: int, quiet: bool) -> None:
    """``interp report --model``: ``interp.explain`` on the user's table, each method's run
    saved beside the page, the model's page written.

    \f
    Nine parameters: the report command's options, grouped (``ModelSettings``) where they
    belong to the model alone."""
    from .explaining import explain

    loaded = _load_data(data, target, dataset, missing=False)
    folders = anchors(names)
    _check_report_folder(out, folders)
    if not quiet:
        echo(f"explaining {type(model).__name__} with {', '.join(names)} ...", err=True)
    try:
        frame, y = _table_of(loaded)
        result = explain(model, frame, y, methods=names, positive=settings.positive, fit_to=settings.fit_to,
                         threshold=settings.threshold, random_state=seed, quiet=quiet, name=loaded.name)
    except InterpError as err:
        fail(err)
    figures = {}
    for r, folder in zip(result.results, folders):
        if r.explanation is not None:
            figures[r.method] = _saved_figures(r.explanation, out / folder)
        else:
            echo(f"failed: {r.method}: {visible(r.error, one_line=True)}", err=True)
    if settings.row is not None and settings.row >= loaded.n_samples:
        fail(f"--row {settings.row} is not in the data (rows 0 to {loaded.n_samples - 1})")
    page = _write_page(out, model_page_html(result, f"interp report: {model_name(model)} on {loaded.name}",
                                            figures, settings.row))
    _report_done(page, {r.method: r.bug for r in result.results if r.explanation is None})


def _saved_figures(explanation: Any, folder: Path) -> dict[str, bytes]:
    """Save a method's run in ``folder`` and return its figures as the PNG bytes saved (each
    figure is drawn once, for the run and the page)."""
    try:
        saved = {path.stem: path.read_bytes() for path in save_result(explanation, folder) if path.suffix == ".png"}
    except PluginBug as err:
        _bug(err)
    except InterpError as err:
        fail(err)
    return {name: saved[name] for name in explanation.figures if name in saved}


def _check_report_folder(out: Path, folders: list[str]) -> None:
    """Exit 2 before any method runs when the page or a method's run cannot be written, or the
    folder is not one interp wrote (``runs.check_report_folder``); mark it as a report's."""
    from .runs import check_report_folder, mark_report_folder

    try:
        check_report_folder(out, folders)
        mark_report_folder(out)
    except InterpError as err:
        fail(err)
    except OSError as err:
        fail(f"cannot write the report in {str(out)!r}: {err.strerror or err}")


def _report_part(name: str, anchor: str, data: Dataset, out: Path, ctx: RunContext) -> tuple[Any, InterpError | None]:
    """One method's part of the report: run, saved in ``out/anchor``, rendered; or, when any
    stage fails, a section that says why, and the error."""
    from .registry import resolve
    from .report import Failure, Part, explanation_html, failure_html
    from .runner import blame

    try:
        explanation = run_method(name, data, {}, ctx)
        saved = {path.stem: path.read_bytes() for path in save_result(explanation, out / anchor)
                 if path.suffix == ".png"}  # each figure is drawn once, for the run and the page
        with blame(resolve("methods", name)):
            shown = attrs.evolve(explanation, figures={n: saved[n] for n in explanation.figures})
            return Part(name, anchor, explanation_html(shown, anchor)), None
    except InterpError as err:
        if isinstance(err, PluginBug) and _debug_shown.get() is not None:
            echo("".join(traceback.format_exception(err.original)).rstrip(), err=True)
        message = visible(str(err), one_line=True)
        return Part(name, anchor, failure_html(Failure(name, message), anchor)), err


def _write_page(out: Path, page: str) -> Path:
    """Write ``out/report.html`` whole (a temporary file renamed), or exit 2 saying why not."""
    path = out / "report.html"
    partial = None
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=out, suffix=".partial", delete=False) as f:
            partial = f.name
            f.write(page)
        os.replace(partial, path)
    except OSError as err:
        if partial is not None:
            Path(partial).unlink(missing_ok=True)
        fail(f"cannot write {str(path)!r}: {err.strerror or err}")
    return path


@cli.command("new-plugin", epilog="Kinds: " + "; ".join(f"{k}: {v.summary}" for k, v in KINDS.items()) + ".")
@click.argument("name")
@click.option("--kind", required=True, type=click.Choice(list(KINDS)), help="What the plugin adds.")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default=".", show_default=True,
              help="Write the package in DIR/interp-NAME.")
@_debug_option
def new_plugin_command(name: str, kind: str, directory: str, debug: bool) -> None:
    """Start a plugin: an installable package with one working component (or method, or library
    hook), its test and a README saying what to edit."""
    try:
        plan = new_plugin(name, kind, directory, registry=_loaded_registry(echo_warnings=False))
    except InterpError as err:
        fail(err)
    except OSError as err:
        fail(f"cannot write the package in {directory!r}: {err.strerror or err}")
    echo(f"wrote {plan.root} ({plan.kind.summary}):")
    for relative, _ in plan.files:
        echo(f"    {relative}")
    echo(f"next: cd {plan.root} && pip install -e \".[test]\" && pytest  (then see README.md)")


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="interp")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
