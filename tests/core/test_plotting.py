"""User text in a plot is drawn as written, never parsed as mathtext: ``interp.plotting``."""

import io

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

import interp
from interp.plotting import figure, literal_text, save_png
from interp.runner import run_method
from interp.runs import save_run
from interp.testing import registered

NAMES = ["$\\foo$", "a_{b}$", "%&#_{}", "$x^2$"]  # the first is a mathtext error, the last valid mathtext


def _draw(fig):
    """Names everywhere a plot shows them: categories, hand-set ticks, legend, title, a log axis."""
    ax, bx = fig.subplots(1, 2)
    ax.barh(NAMES, range(1, len(NAMES) + 1), label=NAMES[0])
    ax.set_title(NAMES[0])
    ax.legend()
    bx.plot([1e-6, 1e-1], [0, 1])
    bx.set_xscale("log")
    bx.set_yticks([0, 1], labels=NAMES[:2])
    return ax, bx


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def test_a_plain_figure_fails_on_a_name_that_is_bad_mathtext():
    fig = Figure()
    _draw(fig)
    with pytest.raises(ValueError):
        _png(fig)


def test_a_literal_figure_draws_names_as_written_and_numbers_as_math():
    fig = figure(figsize=(8, 3))
    ax, bx = _draw(fig)
    assert _png(fig).startswith(b"\x89PNG")
    names = {t.get_text(): t for t in ax.get_yticklabels() + bx.get_yticklabels() + [ax.title]}
    assert set(NAMES) <= set(names) and not any(names[n].get_parse_math() for n in NAMES)
    legend = ax.get_legend().get_texts()[0]
    assert legend.get_text() == NAMES[0] and not legend.get_parse_math()
    log_labels = [t for t in bx.get_xticklabels() if t.get_text()]
    assert log_labels and all(t.get_parse_math() and "10^" in t.get_text() for t in log_labels)
    fig.tight_layout()  # lays out (measures every text) without parsing a name


def test_a_plain_figure_made_in_literal_text_is_saved_by_the_core(tmp_path):
    with literal_text():
        fig, _ = plt.subplots()
        fig.axes[0].barh(NAMES, range(len(NAMES)))
        fig.tight_layout()
    save_png(fig, tmp_path / "f.png", dpi=50)
    assert (tmp_path / "f.png").read_bytes().startswith(b"\x89PNG")
    assert not fig.axes[0].get_yticklabels()[0].get_parse_math()
    plt.close(fig)


def _pyplot_run(data, ctx):
    fig, ax = plt.subplots()
    ax.barh(data.feature_names, data.X.mean(axis=0))
    ax.set_title(data.feature_names[0])
    fig.tight_layout()  # measured during the run: needs literal text already
    return interp.Explanation(text="drawn", figures={"bars": fig})


class PyplotPlugin:
    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method("pyplot", "Draws the names with plain pyplot.", _pyplot_run))


def test_a_third_party_plain_figure_made_during_a_run_is_literal(tmp_path):
    import numpy as np

    data = interp.load_dataset(np.eye(4)[:, :3] + 1, y=np.arange(4.0), feature_names=NAMES[:3])
    with registered(PyplotPlugin(), "pyplotter"):
        exp = run_method("pyplot", data)
        save_run(exp, tmp_path / "run")
    assert (tmp_path / "run" / "bars.png").read_bytes().startswith(b"\x89PNG")
    plt.close(exp.figures["bars"])


def test_control_characters_in_names_are_drawn_as_visible_escapes():
    """No font draws ``\\x1b``: a name holding one shows its escape, on category ticks, hand-set
    ticks, a title and a legend, also after the figure is drawn again."""
    name = "bad\x1b[31mname"
    fig = figure(figsize=(6, 3))
    ax, bx = fig.subplots(1, 2)
    ax.barh([name, "ok"], [1, 2], label=name)
    ax.set_title(name)
    ax.legend()
    bx.plot([0, 1], [0, 1])
    bx.set_yticks([0, 1], labels=[name, "ok"])
    for _ in range(2):
        _png(fig)
        texts = [t.get_text() for t in ax.get_yticklabels() + bx.get_yticklabels()
                 + [ax.title, ax.get_legend().get_texts()[0]]]
        assert "bad\\x1b[31mname" in texts and not any("\x1b" in t for t in texts), texts


def test_a_huge_name_is_cut_before_matplotlib_lays_it_out():
    """A 5 MB text cell as a category, a title and a legend entry: each is drawn cut to
    MAX_TEXT_CHARS characters, ending in an ellipsis (uncut, the layout takes gigabytes)."""
    from interp.plotting import MAX_TEXT_CHARS

    name = "x" * 5_000_000
    fig = figure(figsize=(6, 3))
    ax = fig.subplots()
    ax.barh([name, "ok"], [1, 2], label=name)
    ax.set_title(name)
    ax.legend()
    _png(fig)
    texts = [t.get_text() for t in ax.get_yticklabels() + [ax.title, ax.get_legend().get_texts()[0]]]
    cut = "x" * (MAX_TEXT_CHARS - 1) + "\u2026"
    assert texts.count(cut) == 3 and "ok" in texts and max(map(len, texts)) == MAX_TEXT_CHARS
