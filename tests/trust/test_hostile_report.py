"""Hostile names and values through all four methods: nothing of them runs in the report, drives
the terminal or breaks a plot."""

import html

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from interp.cli import cli

from .hostile import FAST, HOSTILE, METHODS, check_output, check_page, fast_reports, flags

NAMES = ["<script>alert(1)</script>", "b<img src=x onerror=alert(2)>", '"><svg onload=alert(3)>',
         "javascript:alert(4)", "$\\foo$", "%&#_{}"]
TARGET = "<u>y</u>"


def _hostile_csv(path):
    """40 rows: six numeric columns with hostile names, a text column with hostile values (its
    one-hot columns are named after them), a binary target with hostile labels."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, len(NAMES))).round(3)
    frame = pd.DataFrame(X, columns=NAMES)
    frame["t\x1b]0;x\x07"] = rng.choice(["<b>x</b>", "javascript:alert(5)", "$\\bar$", '"><iframe src=x>'], 40)
    signal = X[:, 0] + X[:, 4] + 0.3 * rng.normal(size=40)
    frame[TARGET] = np.where(signal > np.median(signal), "yes<script>", "no&amp;")
    frame.to_csv(path, index=False)
    return path


def test_the_hostile_fixture_is_hostile():
    assert set(NAMES) <= set(HOSTILE)


def test_hostile_names_and_values_through_all_four_methods_make_a_clean_report(tmp_path):
    data = _hostile_csv(tmp_path / "hostile.csv")
    with fast_reports():
        result = CliRunner().invoke(cli, ["report", "--data", str(data), "--target", TARGET, "--out",
                                          str(tmp_path / "report"), "--quiet"])
    check_output(result, allowed=(0,))
    page = check_page(tmp_path / "report" / "report.html")
    assert page.count('<section id="') == 4 and "failed" not in result.stdout
    for name in NAMES:  # every name reached the page, escaped
        assert html.escape(name) in page, name
    assert html.escape("t\x1b]0;x\x07=<b>x</b>") in page or html.escape("<b>x</b>") in page
    for method in METHODS:
        assert (tmp_path / "report" / method / "explanation.json").is_file()


@pytest.mark.parametrize("method", METHODS)
def test_a_tex_special_column_runs_saves_and_shows_in_every_method(tmp_path, method):
    data = _hostile_csv(tmp_path / "hostile.csv")
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["run", "--plugin", method, "--data", str(data), "--target", TARGET,
                                      "--out", str(out), "--quiet", *flags(method)])
    check_output(result, allowed=(0,))
    assert "$\\foo$" in result.stdout
    pictures = sorted(p.name for p in out.glob("*.png"))
    assert all((out / name).read_bytes().startswith(b"\x89PNG") for name in pictures)
    assert method == "propositional" or pictures  # the three methods with plots drew them
    shown = CliRunner().invoke(cli, ["show", str(out)])
    check_output(shown, allowed=(0,))


def test_fast_options_are_the_methods_own():
    from interp import get_registry

    for method, options in FAST.items():
        assert set(options) <= {o.name for o in get_registry().methods[method].options}


@pytest.mark.parametrize("first", ["$\\foo$", "<script>alert(1)</script>", "</mi></math><img src=x>"])
def test_a_formula_over_hostile_names_keeps_its_mathml(tmp_path, first):
    """TeX specials and markup in names leave the formula's MathML valid, the names in it as
    text: the page shows the formula as MathML, not the plain-text fallback."""
    import interp
    from interp.markup import clean_mathml
    from interp.report import sections_html
    from interp.runner import RunContext, run_method

    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(40, 3)).round(3), columns=[first, "%&#_{}", "b"])
    frame["y"] = frame[first] + frame["b"] ** 2
    # seeded: unseeded, the random forest's single term on 40 rows can leave the column out
    exp = run_method("symbolic", interp.load_dataset(frame, "y"), FAST["symbolic"], RunContext(seed=0, quiet=True))
    formula = next(s for s in exp.sections if isinstance(s, interp.Formula))
    assert first in formula.text  # the column is in the formula, so its MathML must hold it
    assert clean_mathml(formula.mathml) is not None
    page = sections_html([formula], {})
    assert "<math" in page and f"<mi>{html.escape(first, quote=False)}</mi>" in page
