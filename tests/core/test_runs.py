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
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == sorted([".interp-run", *(p.name for p in written)])
    assert sorted(p.name for p in written) == ["estimator.joblib", "explanation.json", "new.png"]
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
    ("foreign", "the folder holds 'notes.txt', which interp did not write"),
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


def _user_folder(tmp_path, *names):
    folder = tmp_path / "pics"
    folder.mkdir()
    for name in names:
        (folder / name).write_text(f"the user's {name}")
    return folder


@pytest.mark.parametrize("names, message", [
    (["family.png"], "the folder holds 'family.png', which interp did not write"),
    (["explanation.json", "a.png"], "no .interp-run marker, so interp did not write it or an older interp did "
                                    "(give another folder, or delete this one yourself)"),
])
def test_run_out_never_replaces_a_folder_interp_did_not_mark(counted, tmp_path, names, message):
    folder = _user_folder(tmp_path, *names)
    result = CliRunner().invoke(cli, ["run", "--plugin", "counted", "--dataset", "diabetes", "--out", str(folder)])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1 and message in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted(names) and CALLS == []
    assert all((folder / name).read_text() == f"the user's {name}" for name in names)


def test_a_marked_run_is_replaced_but_not_with_a_users_file_put_into_it(tmp_path):
    run = tmp_path / "run"
    save_run(_exp(fig=figure()), run)
    save_run(_exp(fig=figure()), run)  # interp's own run: replaced
    (run / "family.png").write_text("mine")
    with pytest.raises(InputError, match="holds 'family.png', which interp did not write"):
        save_run(_exp(), run)
    assert (run / "family.png").read_text() == "mine"


@pytest.mark.parametrize("marker", ["", "interp run folder, format 2\nfamily.png\n", "family.png\n"])
def test_a_marker_interp_did_not_write_marks_nothing(tmp_path, marker):
    folder = _user_folder(tmp_path, "family.png")
    (folder / ".interp-run").write_text(marker)
    with pytest.raises(InputError, match="interp did not write"):
        check_run_folder(folder)


def test_report_out_never_replaces_a_folder_interp_did_not_mark(counted, tmp_path):
    report = tmp_path / "R"
    (report / "counted").mkdir(parents=True)
    (report / "counted" / "family.png").write_text("mine")
    args = ["report", "--dataset", "diabetes", "--plugins", "counted", "--quiet", "--out", str(report)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1 and CALLS == []
    assert "holds no .interp-report marker" in result.stderr
    assert (report / "counted" / "family.png").read_text() == "mine"
    fresh = tmp_path / "fresh"
    for _ in range(2):  # a report interp wrote is written again in place
        assert CliRunner().invoke(cli, [*args[:-1], str(fresh)]).exit_code == 0
    assert sorted(p.name for p in fresh.iterdir()) == [".interp-report", "counted", "report.html"]
    (fresh / "counted" / "family.png").write_text("mine")
    result = CliRunner().invoke(cli, [*args[:-1], str(fresh)])
    assert result.exit_code == 2 and "holds 'family.png', which interp did not write" in result.stderr
    assert (fresh / "counted" / "family.png").read_text() == "mine"
