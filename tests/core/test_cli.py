"""The command line, through click's CliRunner: every command and every bad-input case."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import interp
from interp import hookimpl
from interp.cli import cli
from interp.runner import run_method
from interp.testing import registered




def test_version(run):
    result = run("--version")
    assert result.exit_code == 0 and interp.__version__ in result.output


def test_datasets_lists_bundled_sets(run):
    result = run("datasets")
    assert result.exit_code == 0
    for name in ("breast-cancer", "diabetes", "house-votes-84"):
        assert name in result.output


def test_plugins_text_and_json(run, toy_plugin):
    text = run("plugins")
    assert text.exit_code == 0 and "toy" in text.output and "methods: toy, toyclf" in text.output
    rows = json.loads(run("plugins", "--json").stdout)
    toy = next(r for r in rows if r["name"] == "toy")
    assert toy["status"] == "loaded" and toy["registered"] == {"methods": ["toy", "toyclf"]}
    assert {"name", "version", "source", "status", "error", "registered"} <= set(toy)


def test_run_with_dataset_text_and_json(run, toy_plugin):
    text = run("run", "--plugin", "toy", "--dataset", "diabetes", "--quiet")
    assert text.exit_code == 0, text.output
    assert text.output.startswith("toy") and "mean" in text.output
    result = run("run", "--plugin", "toy", "--dataset", "diabetes", "--format", "json", "--scale", "2",
                 "--label", "other", "--no-center", "--seed", "7")
    out = json.loads(result.stdout)
    assert {"plugin", "dataset", "params", "metrics", "explanation"} <= set(out)
    assert out["plugin"] == "toy" and out["dataset"] == "diabetes"
    assert out["params"] == {"scale": 2.0, "label": "other", "center": False, "seed": 7}
    assert out["metrics"]["mean"] == pytest.approx(2 * interp.load_dataset("diabetes").y.mean())


def test_run_with_csv_and_out_dir_then_show(run, toy_plugin, csv_file, tmp_path):
    path = csv_file("a,b,y\n1,x,1\n2,y,3\n3,x,5\n")
    result = run("run", "--plugin", "toy", "--data", path, "--target", "y", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    saved = json.loads((tmp_path / "out" / "explanation.json").read_text())
    assert saved["explanation"]["features"] == ["a", "b=x", "b=y"] and saved["dataset"] == "data"
    shown = run("show", tmp_path / "out")
    assert shown.exit_code == 0 and "toy: mean 3.000" in shown.output


def test_method_help_shows_its_own_options(run, toy_plugin):
    result = run("run", "--plugin", "toy", "--help")
    assert result.exit_code == 0
    assert "--scale FLOAT" in result.output and "--label [toy|other]" in result.output
    assert "--center / --no-center" in result.output and "Predict the mean" in result.output


@pytest.mark.parametrize("flag", ["--method", "--plugin"])
def test_unknown_method_exits_2_and_lists_available(run, toy_plugin, flag):
    result = run("run", flag, "nope", "--dataset", "diabetes")
    assert result.exit_code == 2
    assert "unknown method 'nope'; available:" in result.output and "toy" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--data", "missing.csv", "--target", "y"], "data file 'missing.csv' not found"),
        (["--dataset", "nope"], "unknown data set 'nope'; bundled: breast-cancer"),
        ([], "give either --data FILE.csv --target COLUMN or --dataset NAME"),
        (["--dataset", "diabetes", "--data", "x.csv", "--target", "y"], "give either"),
        (["--data", "x.csv"], "data file 'x.csv' not found"),
        (["--data", "breast_cancer"], "not found; did you mean the bundled data set 'breast-cancer' "
                                      "(--dataset breast-cancer)?"),
        (["--data", "."], "data file '.' is a folder, not a CSV file"),
        (["--dataset", "Diabetes"], "unknown data set 'Diabetes'; did you mean 'diabetes'? bundled:"),
        (["--dataset", "diabetes", "--scale", "abc"], "'abc' is not a valid float"),
    ],
)
def test_bad_run_arguments_exit_2(run, toy_plugin, args, message):
    result = run("run", "--plugin", "toy", *args)
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output


def test_a_data_file_without_target_is_asked_for_one(run, toy_plugin, csv_file):
    result = run("run", "--plugin", "toy", "--data", csv_file("a,y\n1,2\n3,4\n"))
    assert result.exit_code == 2 and "--data needs --target naming the label column" in result.output


@pytest.mark.parametrize(
    "text, target, message",
    [
        ("", "y", "is empty"),
        ("a,b\n1,2\n3,4\n", "y", "target column 'y' not found"),
        ("a,y\n1,2\n", "y", "at least 2 are needed"),
        ("a,y\n1,1\n2,0\nabc,1\n3,0\n", "y", "column 'a' mixes numbers and text"),
        ("a,y\n1,1\nnan,0\n3,1\n", "y", "X contains nan in 'a'"),
        ("a,y\n1,1\n-inf,0\n3,1\n", "y", "X contains -inf in 'a'"),
    ],
)
def test_bad_data_files_get_one_line(run, toy_plugin, csv_file, text, target, message):
    result = run("run", "--plugin", "toy", "--data", csv_file(text), "--target", target)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and message in errors[0]


def test_single_class_target_for_a_classifier(run, toy_plugin, csv_file):
    result = run("run", "--plugin", "toyclf", "--data", csv_file("a,y\n1,1\n2,1\n3,1\n"), "--target", "y")
    assert result.exit_code == 2 and "single class" in result.output


def test_model_file_needs_explicit_trust(run, toy_plugin, tmp_path):
    import joblib

    from sklearn.linear_model import LinearRegression

    data = interp.load_dataset("diabetes")
    joblib.dump(LinearRegression().fit(data.frame(), data.y), tmp_path / "m.joblib")
    refused = run("run", "--plugin", "toy", "--dataset", "diabetes", "--model-file", tmp_path / "m.joblib")
    assert refused.exit_code == 2 and "runs code from the file" in refused.output
    trusted = run("run", "--plugin", "toy", "--dataset", "diabetes", "--model-file", tmp_path / "m.joblib",
                  "--trust-model-file", "--quiet")
    assert trusted.exit_code == 0, trusted.output


class _Tripwire:
    """Unpickling it creates the file ``path``: proof that a model file was unpickled."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (Path(self.path).touch, ())


def test_a_model_file_is_unpickled_only_when_trusted(run, toy_plugin, tmp_path):
    """Without --trust-model-file the file is refused before it is unpickled, for every
    method; with it, a file that holds no model is one line.  From Python, ``run_method``
    still refuses a model for a method that does not declare ``explains_model``
    (``interp.explain`` gives such methods the model's predictions instead)."""
    import joblib

    joblib.dump(_Tripwire(tmp_path / "unpickled"), tmp_path / "m.joblib")
    refused = run("run", "--plugin", "toyclf", "--dataset", "breast-cancer", "--model-file", tmp_path / "m.joblib")
    assert refused.exit_code == 2 and refused.output.count("\n") == 1, refused.output
    assert "add --trust-model-file if you trust it" in refused.output
    assert not (tmp_path / "unpickled").exists()
    trusted = run("run", "--plugin", "toyclf", "--dataset", "breast-cancer", "--model-file", tmp_path / "m.joblib",
                  "--trust-model-file")
    assert trusted.exit_code == 2 and "has no predict method" in trusted.output
    with pytest.raises(interp.InputError, match="explains no supplied one"):  # the Python path too
        run_method("toyclf", interp.load_dataset("breast-cancer"), {}, interp.RunContext(model=object()))


@pytest.mark.parametrize("args, message", [
    (("--seed", "-1"), "--seed must be an integer from 0 to 4294967295, got -1"),
    (("--seed", str(2**32)), "--seed must be an integer from 0 to 4294967295, got 4294967296"),
    (("--n-jobs", "0"), "--n-jobs must be a number of parallel jobs (1 or more; -1 for every core), got 0"),
])
def test_run_settings_no_method_can_use_are_bad_input(run, toy_plugin, args, message):
    result = run("run", "--plugin", "toy", "--dataset", "diabetes", "--quiet", *args)
    assert result.exit_code == 2 and result.output == f"Error: {message}\n", result.output


def test_show_on_a_folder_that_is_not_a_run(run, tmp_path):
    result = run("show", tmp_path)
    assert result.exit_code == 2 and "not a saved run" in result.output


class CommandPlugin:
    @hookimpl
    def register_commands(self, cli):
        import click

        @cli.command("hello")
        def hello():
            """Say hello."""
            click.echo("hello from a plugin")

        @cli.command("plugins")
        def clash():
            """Tries to replace a built-in."""


def test_plugins_can_add_commands_but_not_replace_builtins(toy_plugin):
    import interp.cli as cli_module

    with registered(CommandPlugin(), "commands"):
        group = cli_module.InterpGroup(commands=dict(cli.commands))
        result = CliRunner().invoke(group, ["hello"])
        assert result.exit_code == 0 and "hello from a plugin" in result.output
        assert "plugin 'commands' registers the command 'plugins', which is interp's own: left out" in result.output
        assert group.get_command(None, "plugins") is cli.commands["plugins"]


def test_a_method_whose_modules_fail_to_import_gets_one_line(run):
    """A plugin imports its heavy modules when its method runs: a broken one is named, not a
    traceback."""

    def broken_run(data, ctx):
        import interp_no_such_module  # noqa: F401

    class Broken:
        @interp.hookimpl
        def register_methods(self, register):
            register(interp.Method(name="broken", summary="Fails to import.", run=broken_run))

    with registered(Broken(), "brokenplugin"):
        result = run("run", "--plugin", "broken", "--dataset", "diabetes")
    assert result.exit_code == 2
    assert "plugin 'brokenplugin' cannot run 'broken' here: missing dependency 'interp_no_such_module' " \
           "(ModuleNotFoundError: No module named 'interp_no_such_module')" in result.output
    assert "Traceback" not in result.output


def test_verbose_listing_shows_each_components_parameters_and_defaults():
    out = CliRunner().invoke(cli, ["plugins", "--verbose"]).output
    scf = next(line for line in out.splitlines() if line.strip().startswith("scf "))
    assert scf.endswith("[parameters: eps=0.01]")
    l1 = next(line for line in out.splitlines() if line.strip().startswith("l1 "))
    assert "parameters" not in l1


@pytest.mark.parametrize("args, problem", [
    (("run", "--method", "toy", "--frob"), "No such option '--frob'"),
    (("frob",), "No such command 'frob'"),
    (("run", "--dataset", "diabetes"), "Missing option '--method'"),
    (("run", "--method", "toy", "--dataset", "diabetes", "--seed", "x"), "'x' is not a valid integer"),
    (("run", "--method", "toy", "--dataset", "diabetes", "--format", "\x1b[2Jx"), "\\x1b[2Jx"),
])
def test_usage_errors_are_one_line_naming_the_problem(run, toy_plugin, args, problem):
    result = run(*args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
    assert problem in result.stderr and "--help" in result.stderr and "\x1b" not in result.stderr
