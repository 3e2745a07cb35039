"""Details a plugin author reads: option ranges in --help, a description that is the whole first
sentence of the docstring."""

import numpy as np
from click.testing import CliRunner

import interp
from interp.cli import cli
from interp.components import first_sentence
from interp.testing import registered


def _rank(data, ctx, *, top, share):
    raise AssertionError("not run")


class Ranked:
    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method("ranked", "Ranks features.", _rank, options=(
            interp.Option("top", int, 5, "how many to show", min=1, max=40),
            interp.Option("share", float, 0.5, "the share kept", min=0.0))))


def test_the_help_of_a_methods_option_shows_its_range():
    with registered(Ranked(), "ranked_plugin"):
        result = CliRunner().invoke(cli, ["run", "--method", "ranked", "--help"])
    text = " ".join(result.output.split())
    assert result.exit_code == 0
    assert "how many to show (range: 1 to 40) [default: 5]" in text and "the share kept (range: >= 0)" in text


class Wrapped(interp.Penalty):
    """A lasso whose first sentence is long enough to wrap onto a second line of the
    docstring, e.g. this one. The second sentence is not part of it.

    Details follow."""

    name = "wrapped"

    def value(self, w):
        return float(np.abs(w).sum())

    def prox(self, w, step):
        return np.sign(w) * np.maximum(np.abs(w) - step, 0.0)


def test_a_description_is_the_whole_first_sentence_of_a_wrapped_docstring():
    assert Wrapped().description == ("A lasso whose first sentence is long enough to wrap onto a second line of the "
                                     "docstring, e.g. this one.")
    assert first_sentence("No end in sight\n    but a second line") == "No end in sight but a second line"
    assert first_sentence("Capped L1: sum_i min(|w_i|, cap).") == "Capped L1: sum_i min(|w_i|, cap)."
