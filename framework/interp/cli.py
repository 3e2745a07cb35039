"""The ``interp`` command line: plugins, datasets, run, show, and commands added by plugins."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import click

from . import __version__
from .components import Option
from .data import Dataset, bundled_datasets, load_dataset
from .errors import InterpError
from .registry import PluginWarning, call_command_hooks, get_registry
from .runner import PluginBug, RunContext, run_method
from .runs import load_run, save_run

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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PluginWarning)
        try:
            registry = get_registry()
        except InterpError as err:  # strict mode
            fail(str(err))
    for w in caught if echo_warnings else ():
        click.echo(f"warning: {w.message}", err=True)
    return registry


class InterpGroup(click.Group):
    """The root group; commands that plugins add through ``register_commands`` appear here."""

    _plugin_commands: dict[str, click.Command] | None = None

    def _extra(self) -> dict[str, click.Command]:
        if self._plugin_commands is None:
            _loaded_registry()
            holder = click.Group("plugins")
            found: dict[str, click.Command] = {}

            def failed(plugin: str, err: BaseException) -> None:
                click.echo(f"warning: plugin {plugin!r} failed to add commands: {err}", err=True)

            call_command_hooks(holder, failed)
            for name, command in holder.commands.items():
                if name in self.commands:
                    click.echo(f"warning: a plugin's command {name!r} clashes with a built-in; skipped", err=True)
                else:
                    found[name] = command
            self._plugin_commands = found
        return self._plugin_commands

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
    """List installed plugins: version, origin, status and what each registered."""
    registry = _loaded_registry(echo_warnings=False)
    rows = [{**info.to_dict(), "descriptions": _descriptions(registry, info.registered)} for info in registry.plugins]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("no plugins installed")
    for info in rows:
        click.echo(f"{info['name']} {info['version']} ({info['source']}): {info['status']}")
        if info["error"]:
            click.echo(f"    {info['error']}")
        for catalogue, names in info["registered"].items():
            label = catalogue.replace("_", " ")
            if not verbose:
                click.echo(f"    {label}: {', '.join(names)}")
                continue
            click.echo(f"    {label}:")
            width = max(len(name) for name in names)
            for name, text in info["descriptions"][catalogue].items():
                click.echo(f"        {name:<{width}}  {text}".rstrip())


def _descriptions(registry: Any, registered: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """Catalogue -> component name -> its one-line description (a method's summary)."""
    out: dict[str, dict[str, str]] = {}
    for catalogue, names in registered.items():
        components = getattr(registry, catalogue)
        out[catalogue] = {name: _one_line(getattr(components[name], "description", None)
                                            or getattr(components[name], "summary", "")) for name in names}
    return out


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


@cli.command("datasets")
def datasets_command() -> None:
    """List the data sets bundled with interp (use them with --dataset NAME)."""
    for info in bundled_datasets().values():
        click.echo(f"{info.name:<16} target={info.target:<12} {info.description}")


def _click_option(opt: Option) -> click.Option:
    if opt.type is bool:
        return click.Option([opt.flag + "/--no-" + opt.flag[2:]], default=bool(opt.default), help=opt.help,
                            show_default=True)
    kind = click.Choice(opt.choices) if opt.choices else _TYPES[opt.type]
    return click.Option([opt.flag, opt.name], type=kind, default=opt.default, help=opt.help,
                        show_default=opt.default is not None)


def _peek_plugin(args: list[str]) -> str | None:
    for i, arg in enumerate(args):
        if arg == "--plugin" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--plugin="):
            return arg.split("=", 1)[1]
    return None


def _unknown_plugin(name: str) -> None:
    registry = _loaded_registry()
    available = ", ".join(sorted(registry.methods)) or "none"
    for info in registry.plugins:
        if info.name == name and info.status != "loaded":
            fail(f"plugin {name!r} is {info.status}: {info.error or 'see interp plugins'}")
    fail(f"unknown plugin {name!r}; available: {available}")


def _load_data(data: str | None, target: str | None, dataset: str | None, missing: bool = False) -> Dataset:
    """The data named by --data/--target or --dataset, or a one-line exit 2; ``missing``: keep
    missing numbers (a method that takes them will run)."""
    if (data is None) == (dataset is None):
        fail("give either --data FILE.csv --target COLUMN or --dataset NAME (see interp datasets)")
    if data is not None and target is None:
        fail("--data needs --target naming the label column")
    try:
        return load_dataset(dataset if dataset is not None else data, target, missing=missing)
    except InterpError as err:
        fail(str(err))
    raise AssertionError("unreachable")


class RunCommand(click.Command):
    """`interp run`: the chosen method's own options are added once --plugin is known."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        self.params = list(_RUN_PARAMS)
        name = _peek_plugin(args)
        if name is not None:
            methods = _loaded_registry().methods
            if name not in methods:
                _unknown_plugin(name)
            self.params += [_click_option(opt) for opt in methods[name].options]
            self.help = f"Run the {name!r} method: {methods[name].summary}"
        elif "--help" in args:
            methods = _loaded_registry().methods
            self.epilog = "Installed methods: " + (", ".join(sorted(methods)) or "none")
        return super().make_context(info_name, args, parent, **extra)


class _Bug(_Exit2):
    """A plugin's bug: one line naming the plugin, exit code 1."""

    exit_code = 1


def _run(plugin: str, data: str | None, target: str | None, dataset: str | None, out: str | None, fmt: str,
         seed: int, quiet: bool, n_jobs: int | None, model_file: str | None, trust_model_file: bool,
         debug: bool, **options: Any) -> None:
    """Run one interpretation method on a data set (see --plugin NAME --help for its options).

    \f
    Twelve parameters because click calls the command with every option of ``interp run`` as a
    keyword (the method's own options arrive in ``options``)."""
    loaded = _load_data(data, target, dataset, missing=getattr(_loaded_registry().methods.get(plugin), "missing", False))
    model = _load_model(model_file, trust_model_file) if model_file is not None else None
    run_ctx = RunContext(seed=seed, quiet=quiet, out_dir=Path(out) if out else None, n_jobs=n_jobs, model=model)
    try:
        explanation = run_method(plugin, loaded, options, run_ctx)
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
    click.Option(["--plugin", "plugin"], required=True, help="The method to run (see interp plugins)."),
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
@click.option("--plugins", "plugins", help="Comma-separated methods to run (default: all installed).")
@click.option("--out", type=click.Path(file_okay=False), default="interp-report", show_default=True,
              help="Folder for report.html and each method's saved run.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--quiet", is_flag=True, help="No progress bars.")
def report_command(data: str | None, target: str | None, dataset: str | None, plugins: str | None, out: str,
                   seed: int, quiet: bool) -> None:
    """Run several methods on one data set and write one self-contained HTML page."""
    from .report import Failure, render_html

    methods = _loaded_registry().methods
    names = [p.strip() for p in plugins.split(",") if p.strip()] if plugins else sorted(methods)
    for name in names:
        if name not in methods:
            _unknown_plugin(name)
    loaded = _load_data(data, target, dataset, missing=any(methods[name].missing for name in names))
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


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="interp")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
