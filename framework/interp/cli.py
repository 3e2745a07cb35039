"""The ``interp`` command line: plugins, datasets, run, show, and commands added by plugins."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

import click

from . import __version__
from .components import Option
from .data import Dataset, bundled_datasets, load_dataset
from .errors import InterpError
from .registry import CATALOGUES, PluginWarning, get_registry, library_catalogues
from .registry import commands as plugin_commands
from .runner import PluginBug, RunContext, run_method
from .runs import load_run, save_run
from .scaffold import KINDS, new_plugin

_TYPES = {int: click.INT, float: click.FLOAT, str: click.STRING}


class _Exit2(click.ClickException):
    """One line on stderr, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"Error: {self.message}", err=True)


def fail(message: str) -> None:
    """Print one line on stderr and exit with code 2 (bad input, unknown plugin)."""
    raise _Exit2(message)


def _loaded_registry(echo_warnings: bool = True):
    """The registry, with plugin load warnings turned into stderr lines."""
    return _with_plugin_warnings(get_registry, echo_warnings)


def _with_plugin_warnings(call: Callable[[], Any], echo: bool = True) -> Any:
    """``call()``, with the plugin warnings it raises turned into stderr lines (or dropped), and
    a strict-mode plugin error into a one-line exit 2."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PluginWarning)
        try:
            result = call()
        except InterpError as err:  # strict mode
            fail(str(err))
    for w in caught if echo else ():
        click.echo(f"warning: {w.message}", err=True)
    return result


class InterpGroup(click.Group):
    """The root group; commands that plugins add through ``register_commands`` appear here,
    under the registry's name rules (interp's own commands are never replaced)."""

    def _extra(self) -> dict[str, click.Command]:
        """The plugins' commands (gathered again only when the loaded plugins change)."""
        _loaded_registry()
        found = _with_plugin_warnings(lambda: plugin_commands(self.commands))
        return {name: entry.command for name, entry in found.items()}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self._extra()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return self.commands.get(name) or self._extra().get(name)


@click.group(cls=InterpGroup)
@click.version_option(__version__, prog_name="interp")
def cli() -> None:
    """interp: interpret machine-learning models with pluggable methods."""


@cli.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
@click.option("--verbose", "-v", is_flag=True, help="List each registered component with its description.")
def plugins_command(as_json: bool, verbose: bool) -> None:
    """List installed plugins: version, origin, status, what each registered (in interp's
    catalogues, the commands and the catalogues libraries add), the names it shares with
    others and who got them, and the hooks it implements and adds."""
    registry = _loaded_registry(echo_warnings=False)
    catalogues = _with_plugin_warnings(lambda: _all_catalogues(registry), echo=False)
    rows = [{**info.to_dict(), "descriptions": _descriptions(catalogues, info.registered)}
            for info in registry.plugins]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("no plugins installed")
    for row, info in zip(rows, registry.plugins):
        click.echo(f"{' '.join(filter(None, (row['name'], row['version'])))} ({row['source']}): {row['status']}")
        for line in _plugin_lines(row, info, verbose):
            click.echo(f"    {line}")


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
        out[catalogue] = {name: _one_line(getattr(components.get(name), "description", None)
                                            or getattr(components.get(name), "summary", "")) for name in names}
    return out


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


@cli.command("datasets")
def datasets_command() -> None:
    """List the data sets bundled with interp (use them with --dataset NAME)."""
    for info in bundled_datasets().values():
        click.echo(f"{info.name:<16} target={info.target:<12} {info.description}")


def _click_options(opt: Option, registry: Any) -> list[click.Option]:
    """The click option of ``opt``, and for an option naming one component its ``--NAME-param``
    (its help lists the parameters each registered component of the catalogue takes)."""
    if opt.type is bool:
        return [click.Option([opt.flag + "/--no-" + opt.flag[2:]], default=bool(opt.default), help=opt.help,
                             show_default=True)]
    kind = click.Choice(opt.choices) if opt.choices else _TYPES[opt.type]
    option = click.Option([opt.flag, opt.name], type=kind, default=opt.default, help=opt.help,
                          show_default=opt.default is not None, metavar="NAMES" if opt.many else None)
    if opt.params_name is None:
        return [option]
    takes = "; ".join(f"{name}: " + ", ".join(f"{k}={v}" for k, v in component.defaults.items())
                      for name, component in getattr(registry, opt.catalogue).items() if component.defaults)
    return [option, click.Option([opt.params_flag, opt.params_name], multiple=True, metavar="NAME=VALUE",
                                 help=f"a parameter of the chosen {opt.flag[2:]}, repeatable (defaults: "
                                      f"{takes or 'none takes any'})")]


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


def _load_data(data: str | None, target: str | None, dataset: str | None) -> Dataset:
    """The data named by --data/--target or --dataset, or a one-line exit 2."""
    if (data is None) == (dataset is None):
        fail("give either --data FILE.csv --target COLUMN or --dataset NAME (see interp datasets)")
    if data is not None and target is None:
        fail("--data needs --target naming the label column")
    try:
        return load_dataset(dataset if dataset is not None else data, target)
    except InterpError as err:
        fail(str(err))
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
            self.help = f"Run the {name!r} method: {methods[name].summary}"
        elif "--help" in args:
            methods = _loaded_registry().methods
            self.epilog = "Installed methods: " + (", ".join(sorted(methods)) or "none")
        return super().make_context(info_name, args, parent, **extra)


class _Bug(_Exit2):
    """A plugin's bug: one line naming the plugin, exit code 1."""

    exit_code = 1


def _run(method: str, data: str | None, target: str | None, dataset: str | None, out: str | None, fmt: str,
         seed: int, quiet: bool, n_jobs: int | None, model_file: str | None, trust_model_file: bool,
         debug: bool, **options: Any) -> None:
    """Run one interpretation method on a data set (see --method NAME --help for its options).

    \f
    Twelve parameters because click calls the command with every option of ``interp run`` as a
    keyword (the method's own options arrive in ``options``)."""
    loaded = _load_data(data, target, dataset)
    model = _load_model(model_file, trust_model_file) if model_file is not None else None
    run_ctx = RunContext(seed=seed, quiet=quiet, out_dir=Path(out) if out else None, n_jobs=n_jobs, model=model)
    try:
        explanation = run_method(method, loaded, options, run_ctx)
    except PluginBug as err:
        if debug:
            raise err.original
        raise _Bug(f"{err} (run again with --debug for the traceback)") from None
    except InterpError as err:
        fail(str(err))
    if out:
        written = save_run(explanation, out)
        if not quiet and fmt == "text":
            click.echo(f"saved {', '.join(p.name for p in written)} in {out}", err=True)
    if fmt == "json":
        click.echo(json.dumps(explanation.to_dict(), allow_nan=False))
    else:
        click.echo(explanation.summary())


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
    click.Option(["--out", "out"], type=click.Path(file_okay=False),
                 help="Save explanation.json, plots and the estimator in this folder."),
    click.Option(["--format", "fmt"], type=click.Choice(["text", "json"]), default="text", show_default=True),
    click.Option(["--seed", "seed"], type=int, default=0, show_default=True, help="Random seed."),
    click.Option(["--quiet", "quiet"], is_flag=True, help="No progress bars."),
    click.Option(["--n-jobs", "n_jobs"], type=int, default=None, help="Parallel jobs (joblib)."),
    click.Option(["--model-file", "model_file"], type=click.Path(dir_okay=False),
                 help="A fitted model (joblib/pickle) for methods that explain one."),
    click.Option(["--trust-model-file", "trust_model_file"], is_flag=True,
                 help="Allow --model-file: unpickling runs code from the file."),
    click.Option(["--debug", "debug"], is_flag=True, help="Show the traceback of a plugin's bug."),
]

cli.add_command(RunCommand("run", callback=_run, params=list(_RUN_PARAMS),
                           help=_run.__doc__, short_help="Run one method on a data set."))


@cli.command("show")
@click.argument("run_dir", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the saved JSON.")
def show_command(run_dir: str, as_json: bool) -> None:
    """Print the summary of a run saved with `interp run --out DIR`."""
    try:
        explanation = load_run(run_dir)
    except InterpError as err:
        fail(str(err))
    click.echo(explanation.to_json() if as_json else explanation.summary())


@cli.command("report")
@click.option("--data", type=click.Path(), help="CSV file with a header row.")
@click.option("--target", help="The label column of --data.")
@click.option("--dataset", help="A bundled data set (see interp datasets).")
@click.option("--methods", "--plugins", "methods",
              help="Comma-separated methods to run (default: all installed); --plugins is an alias.")
@click.option("--out", type=click.Path(file_okay=False), default="interp-report", show_default=True,
              help="Folder for report.html and each method's saved run.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--quiet", is_flag=True, help="No progress bars.")
def report_command(data: str | None, target: str | None, dataset: str | None, methods: str | None, out: str,
                   seed: int, quiet: bool) -> None:
    """Run several methods on one data set and write one self-contained HTML page."""
    from .report import Failure, render_html

    loaded = _load_data(data, target, dataset)
    registered = _loaded_registry().methods
    names = [p.strip() for p in methods.split(",") if p.strip()] if methods else sorted(registered)
    for name in names:
        if name not in registered:
            _unknown_method(name)
    results: list = []
    for name in names:
        if not quiet:
            click.echo(f"running {name} ...", err=True)
        try:
            explanation = run_method(name, loaded, {}, RunContext(seed=seed, quiet=quiet))
        except InterpError as err:
            results.append(Failure(name, str(err).strip().splitlines()[0]))
            continue
        save_run(explanation, Path(out) / name)
        results.append(explanation)
    page = Path(out) / "report.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render_html(results, f"interp report: {loaded.name}"), encoding="utf-8")
    failed = [r.plugin for r in results if isinstance(r, Failure)]
    click.echo(f"wrote {page}" + (f" ({len(failed)} failed: {', '.join(failed)})" if failed else ""))


@cli.command("new-plugin", epilog="Kinds: " + "; ".join(f"{k}: {v.summary}" for k, v in KINDS.items()) + ".")
@click.argument("name")
@click.option("--kind", required=True, type=click.Choice(list(KINDS)), help="What the plugin adds.")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default=".", show_default=True,
              help="Write the package in DIR/interp-NAME.")
def new_plugin_command(name: str, kind: str, directory: str) -> None:
    """Start a plugin: an installable package with one working component (or method, or library
    hook), its test and a README saying what to edit."""
    try:
        plan = new_plugin(name, kind, directory, registry=_loaded_registry(echo_warnings=False))
    except InterpError as err:
        fail(str(err))
    except OSError as err:
        fail(f"cannot write the package in {directory!r}: {err.strerror or err}")
    click.echo(f"wrote {plan.root} ({plan.kind.summary}):")
    for relative, _ in plan.files:
        click.echo(f"    {relative}")
    click.echo(f"next: cd {plan.root} && pip install -e \".[test]\" && pytest  (then see README.md)")


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="interp")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
