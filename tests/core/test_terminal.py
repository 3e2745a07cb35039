"""No control character from the data or a plugin reaches a terminal: every text output shows
them as visible escapes (``interp.terminal.visible``), at one boundary of the command line."""

import json
import re

import pandas as pd
import pytest
from hypothesis import given, strategies as st

import interp
from interp import Explanation, Formula, Table, Text
from interp.terminal import visible

#: what a terminal acts on: C0 (but tab and newline), DEL, C1, and the bidirectional controls
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
TITLE = "\x1b]0;owned\x07"  # sets the window title
LINK = "\x1b]8;;https://example.com\x1b\\click\x1b]8;;\x1b\\"  # a hyperlink
CLEAR = "\x1b[2J\x1b[H"  # clears the screen
HOSTILE = [TITLE, LINK, CLEAR, "a\rb", "\u202eevil", "\x9b31m", "nul\x00", "del\x7f"]


@given(st.text())
def test_visible_leaves_nothing_a_terminal_acts_on_and_is_a_fixed_point(text):
    shown = visible(text)
    assert not RAW.search(shown) and visible(shown) == shown
    assert "\n" not in visible(text, one_line=True) and "\t" not in visible(text, one_line=True)
    assert shown.count("\n") == text.count("\n")  # the layout is kept


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Zl", "Zp"))))
def test_visible_keeps_printable_text_as_it_is(text):
    assert visible(text) == text


def test_escapes_say_which_character_it_was():
    assert visible(TITLE) == "\\x1b]0;owned\\x07"
    assert visible("\u202eevil") == "\\u202eevil" and visible("a\tb\nc", one_line=True) == "a\\x09b\\x0ac"


@pytest.mark.parametrize("bad", HOSTILE)
def test_summary_and_text_renderers_escape_control_characters(bad):
    exp = Explanation(method=f"m{bad}", dataset=bad, metrics={bad: 1.0},
                      sections=[Text(bad, title=bad), Table([bad], [[bad]]), Formula(bad)])
    for text in (exp.summary(), exp.text, *(s.render_text() for s in exp.sections)):
        assert not RAW.search(text), repr(text)


def _hostile_csv(tmp_path):
    """Control characters in two column names and in the values of a text column."""
    frame = pd.DataFrame({f"a{TITLE}": range(12), f"b{CLEAR}": [LINK, "\u202ex"] * 6, "y": [0, 1] * 6})
    frame.to_csv(tmp_path / "hostile.csv", index=False)
    return tmp_path / "hostile.csv"


def test_run_and_show_print_no_control_character(run, toy_plugin, tmp_path):
    path = _hostile_csv(tmp_path)
    for fmt in ("text", "json"):
        result = run("run", "--plugin", "toy", "--data", path, "--target", "y", "--quiet", "--format", fmt,
                     "--out", tmp_path / fmt)
        assert result.exit_code == 0, result.output
        assert not RAW.search(result.stdout) and not RAW.search(result.stderr)
    assert f"a{TITLE}" in json.loads(run("run", "--plugin", "toy", "--data", path, "--target", "y",
                                         "--format", "json").stdout)["explanation"]["features"]
    for args in ([], ["--json"]):
        shown = run("show", tmp_path / "text", *args)
        assert shown.exit_code == 0 and not RAW.search(shown.stdout)
    assert "a\\u001b]0;owned\\u0007" in run("show", tmp_path / "text", "--json").stdout  # JSON escapes


def test_errors_quoting_user_text_are_one_visible_line(run, toy_plugin, tmp_path):
    path = _hostile_csv(tmp_path)
    for target in (f"no{TITLE}\nsecond line", f"{CLEAR}"):
        result = run("run", "--plugin", "toy", "--data", path, "--target", target)
        assert result.exit_code == 2 and not RAW.search(result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and "\\x1b" in result.stderr
    unknown = run("run", "--plugin", f"x{TITLE}", "--dataset", "diabetes")
    assert unknown.exit_code == 2 and not RAW.search(unknown.stderr) and "x\\x1b]0;owned" in unknown.stderr
    click_error = run("run", "--plugin", "toy", "--dataset", "diabetes", "--scale", f"1{CLEAR}")
    assert click_error.exit_code == 2 and not RAW.search(click_error.stderr) and "\\x1b[2J" in click_error.stderr


def test_warnings_during_a_command_are_visible_lines(run, tmp_path):
    def warn_run(data, ctx):
        import warnings

        warnings.warn(f"column {data.feature_names[0]} looks odd")
        return interp.Explanation(text="done")

    class Warner:
        @interp.hookimpl
        def register_methods(self, register):
            register(interp.Method("warner", "Warns with a column name.", warn_run))

    with interp.testing.registered(Warner(), "warner"):
        result = run("run", "--plugin", "warner", "--data", _hostile_csv(tmp_path), "--target", "y")
    assert result.exit_code == 0 and "warning: column a\\x1b]0;owned\\x07 looks odd" in result.stderr
    assert not RAW.search(result.stderr)


def test_a_plugins_help_texts_are_visible(run):
    def quiet_run(data, ctx, *, level):
        return interp.Explanation(text="done")

    class Loud:
        @interp.hookimpl
        def register_methods(self, register):
            register(interp.Method(f"loud{TITLE}", f"Sets the title {CLEAR}.", quiet_run,
                                   options=(interp.Option("level", int, 1, f"how loud {LINK}"),)))

    with interp.testing.registered(Loud(), "loud"):
        for args in (["run", "--plugin", f"loud{TITLE}", "--help"], ["run", "--help"]):
            result = run(*args)
            assert result.exit_code == 0 and "loud\\x1b]0;owned\\x07" in result.stdout
            assert not RAW.search(result.stdout)
