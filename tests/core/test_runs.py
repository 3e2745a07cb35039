"""Run folders: refused before the work when they cannot be written, written whole or not at all."""

import matplotlib
import pytest
from click.testing import CliRunner

import interp
from interp import Explanation, InputError
from interp.cli import cli
from interp.plotting import figure
from interp.runs import check_run_folder, load_run, save_run
from interp.testing import registered


class BrokenFigure(matplotlib.figure.Figure):
    """A figure that cannot be drawn (a plugin's bug)."""

    def draw(self, renderer):
        raise RuntimeError("cannot draw")


def _exp(**figures):
    return Explanation("toy", "0.1", "d", metrics={"m": 1.0}, figures=figures, estimator={"w": 1})


def test_a_saved_run_replaces_the_previous_one_whole(tmp_path):
    save_run(_exp(old=figure()), tmp_path / "run")
    written = save_run(_exp(new=figure()), tmp_path / "run")
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == sorted(p.name for p in written) == [
        "estimator.joblib", "explanation.json", "new.png"]
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no staging folder left


def test_a_failure_while_saving_leaves_nothing_and_keeps_the_previous_run(tmp_path):
    with pytest.raises(RuntimeError, match="cannot draw"):
        save_run(_exp(ok=figure(), broken=BrokenFigure()), tmp_path / "new" / "parents" / "run")
    assert list(tmp_path.iterdir()) == []  # the folders made for it are gone too
    save_run(_exp(), tmp_path / "old")
    with pytest.raises(RuntimeError):
        save_run(_exp(broken=BrokenFigure()), tmp_path / "old")
    assert [p.name for p in tmp_path.iterdir()] == ["old"] and load_run(tmp_path / "old") == _exp()


@pytest.mark.parametrize("where, message", [
    ("file", "it is a file, not a folder"),
    ("file/run", "Not a directory"),
    ("foreign", "the folder holds 'notes.txt', which is not part of a saved run"),
    (".", "it holds the current folder"),
])
def test_a_folder_that_cannot_take_a_run_is_refused(tmp_path, monkeypatch, where, message):
    (tmp_path / "file").write_text("x")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(InputError, match=message):
        check_run_folder(where)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "foreign" / "notes.txt").read_text() == "mine"


def test_figure_names_are_file_names():
    for bad in ("../escape", "a/b", ".hidden", ""):
        with pytest.raises(ValueError, match="not a file name"):
            _exp(**{bad: figure()})


CALLS = []


def _counted_run(data, ctx, *, broken):
    CALLS.append(1)
    return Explanation(text="done", figures={"fig": BrokenFigure() if broken else figure()})


class SavePlugin:
    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method("counted", "Counts its runs.", _counted_run,
                               options=(interp.Option("broken", bool, False),)))


@pytest.fixture
def counted():
    CALLS.clear()
    with registered(SavePlugin(), "saver"):
        yield


def test_an_unwritable_out_is_refused_before_the_fit(counted, tmp_path):
    (tmp_path / "file").write_text("x")
    for out in (tmp_path / "file", tmp_path / "file" / "run"):
        result = CliRunner().invoke(cli, ["run", "--plugin", "counted", "--dataset", "diabetes", "--out", str(out)])
        assert result.exit_code == 2 and result.stderr.startswith("Error: cannot save the run in")
        assert len(result.stderr.splitlines()) == 1
    assert CALLS == []


def test_a_figure_that_cannot_be_saved_is_the_plugins_bug_and_leaves_no_folder(counted, tmp_path):
    result = CliRunner().invoke(cli, ["run", "--plugin", "counted", "--dataset", "diabetes", "--broken",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("Error: bug in plugin 'saver' (method 'counted'): RuntimeError: cannot draw")
    assert list(tmp_path.iterdir()) == []


def test_the_report_refuses_an_unwritable_folder_before_running(counted, tmp_path):
    (tmp_path / "file").write_text("x")
    result = CliRunner().invoke(cli, ["report", "--dataset", "diabetes", "--plugins", "counted", "--out",
                                      str(tmp_path / "file")])
    assert result.exit_code == 2 and "it is a file, not a folder" in result.stderr and CALLS == []
