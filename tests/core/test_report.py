"""`interp report`: one self-contained HTML page with a section per method; images decode."""

import base64
import shutil
import subprocess
import io
from html.parser import HTMLParser

import matplotlib.figure
import matplotlib.image
import matplotlib.pyplot as plt
import pytest
from click.testing import CliRunner

import interp
from interp.cli import cli
from interp.testing import registered


def _plot_run(data, ctx):
    fig, ax = plt.subplots()
    ax.bar(range(data.n_features), data.X.mean(axis=0))
    return interp.Explanation(
        metrics={"n": data.n_samples},
        sections=[interp.Formula("x + 1", mathml="<mi>x</mi><mo>+</mo><mn>1</mn>"),
                  interp.Text("x + 1 <b>not markup</b>", title="Result"), interp.Figure("means")],
        figures={"means": fig})


def _failing_run(data, ctx):
    raise interp.InputError("this method needs binary data")


class _Undrawable(matplotlib.figure.Figure):
    def draw(self, renderer):
        raise RuntimeError("cannot draw")


def _undrawable_run(data, ctx):
    return interp.Explanation(text="x", sections=[interp.Figure("f")], figures={"f": _Undrawable()})


def _no_explanation_run(data, ctx):
    return "not an explanation"


class ReportPlugin:
    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method("plotter", "Draws the feature means.", _plot_run))
        register(interp.Method("picky", "Always refuses.", _failing_run))
        register(interp.Method("undrawable", "Its figure cannot be drawn.", _undrawable_run))
        register(interp.Method("noexp", "Returns a string.", _no_explanation_run))


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.images, self.external, self.maths = [], [], [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.sections.append(attrs["id"])
        if tag == "img":
            self.images.append(attrs["src"])
        if tag == "math":
            self.maths += 1
        if tag in ("script", "link") or (tag == "img" and not attrs["src"].startswith("data:")):
            self.external.append(tag)


def test_report_has_every_section_and_inline_images(tmp_path):
    with registered(ReportPlugin(), "reporting"):
        result = CliRunner().invoke(cli, ["report", "--dataset", "diabetes", "--plugins", "plotter,picky",
                                          "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 2, result.output  # picky refused the data: the page is still written
    assert "1 failed: picky" in result.output
    text = (tmp_path / "report.html").read_text()
    page = Page()
    page.feed(text)
    assert page.sections == ["plotter", "picky"] and page.external == [] and page.maths == 1
    assert "this method needs binary data" in text and "&lt;b&gt;not markup" in text
    for src in page.images:
        header, data = src.split(",", 1)
        assert header == "data:image/png;base64"
        image = matplotlib.image.imread(io.BytesIO(base64.b64decode(data)), format="png")
        assert image.shape[0] > 50 and image.shape[1] > 50
    assert len(page.images) == 1
    assert (tmp_path / "plotter" / "explanation.json").is_file()


@pytest.mark.parametrize("flag", ["--methods", "--plugins"])
def test_report_unknown_method_exits_2(tmp_path, flag):
    result = CliRunner().invoke(cli, ["report", "--dataset", "diabetes", flag, "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown method 'nope'" in result.output


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed on this machine")
def test_report_renders_in_headless_chromium(tmp_path):
    with registered(ReportPlugin(), "reporting"):
        result = CliRunner().invoke(cli, ["report", "--dataset", "diabetes", "--plugins", "plotter",
                                          "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "report.html").as_uri()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert '<section id="plotter">' in dom.stdout and "<math" in dom.stdout
    problems = [line for line in dom.stderr.splitlines()
                if "CONSOLE" in line or "Failed to load resource" in line or "net::ERR_FILE" in line]
    assert problems == []
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *flags, f"--screenshot={shot}", "--window-size=1200,1600", page],
                   capture_output=True, timeout=120, check=True)
    image = matplotlib.image.imread(shot)
    assert image.std() > 0.01  # something was drawn, not a blank page


def test_a_method_failing_at_any_stage_is_a_section_and_the_others_still_run(tmp_path):
    with registered(ReportPlugin(), "reporting"):
        result = CliRunner().invoke(cli, ["report", "--dataset", "diabetes", "--plugins",
                                          "noexp,undrawable,plotter,picky", "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 1, result.output  # a plugin's bug among the failures: exit 1
    assert "3 failed: noexp, undrawable, picky" in result.stdout
    text = (tmp_path / "report.html").read_text()
    page = Page()
    page.feed(text)
    assert page.sections == ["noexp", "undrawable", "plotter", "picky"] and len(page.images) == 1
    assert "bug in plugin &#x27;reporting&#x27; (method &#x27;undrawable&#x27;): RuntimeError: cannot draw" in text
    assert "returned str, not an interp.Explanation" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == [".interp-report", "plotter", "report.html"]  # no half-written run
    failed = [line for line in result.stderr.splitlines() if line.startswith("failed: ")]
    assert [line.split(":")[1].strip() for line in failed] == ["noexp", "undrawable", "picky"]


def test_a_report_where_every_method_ran_exits_0(tmp_path):
    with registered(ReportPlugin(), "reporting"):
        result = CliRunner().invoke(cli, ["report", "--dataset", "diabetes", "--plugins", "plotter",
                                          "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0 and result.stdout.strip() == f"wrote {tmp_path / 'report.html'}"


def test_a_report_without_a_model_says_each_method_fitted_the_data(run, tmp_path):
    """Without --model, the page says first that no model of the user's is explained; each
    section then shows the method's own reading before its metrics, folded away."""
    result = run("report", "--dataset", "breast-cancer", "--methods", "featurevec", "--out", tmp_path / "r", "--quiet")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "r" / "report.html").read_text()
    assert "No model was given: each method fitted a model of its own to the data" in page
    assert page.index("<figure>") < page.index("<summary>metrics and parameters</summary>")


def test_a_long_product_in_a_table_cell_can_wrap_and_copies_as_written():
    """A notebook gives our tables no style: a formula cell such as a monomial of long names
    (no space in 180 characters) gets a line-break opportunity after each lone * or /, never
    inside ``**`` or after a cell's last character (the selected row's lone "*" stays as it is)."""
    import re as _re

    from interp.markup import audit
    from interp.report import sections_html
    from interp.results import Table

    product = "*".join(f"feature_number_{i}**0.{i + 1}" for i in range(8)) + "/scale"
    out = sections_html([Table(("", "formula"), [("*", f"f(x) = 1.8*{product}")])], {})
    assert "<td>*</td>" in out and "**<wbr>" not in out and "*<wbr>*" not in out
    cell = _re.search(r"<td>f\(x\).*?</td>", out).group()
    words = _re.split(r"\s|<wbr>", cell.removeprefix("<td>").removesuffix("</td>"))
    assert max(map(len, words)) <= len("feature_number_7**0.8*")
    assert cell.replace("<wbr>", "") == f"<td>f(x) = 1.8*{product}</td>"
    assert audit(out) == []
