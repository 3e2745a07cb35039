"""`interp report`: one self-contained HTML page with a section per method; images decode."""

import base64
import io
from html.parser import HTMLParser

import matplotlib.image
import matplotlib.pyplot as plt
from click.testing import CliRunner

import interp
from interp.cli import cli
from interp.testing import registered


def _plot_run(data, ctx):
    fig, ax = plt.subplots()
    ax.bar(range(data.n_features), data.X.mean(axis=0))
    return interp.Explanation(metrics={"n": data.n_samples}, payload={"mathml": "<mi>x</mi><mo>+</mo><mn>1</mn>"},
                              text="x + 1 <b>not markup</b>", figures={"means": fig})


def _failing_run(data, ctx):
    raise interp.InputError("this method needs binary data")


class ReportPlugin:
    @interp.hookimpl
    def register_methods(self, register):
        register(interp.Method("plotter", "Draws the feature means.", _plot_run))
        register(interp.Method("picky", "Always refuses.", _failing_run))


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
    assert result.exit_code == 0, result.output
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


def test_report_unknown_plugin_exits_2(tmp_path):
    result = CliRunner().invoke(cli, ["report", "--dataset", "diabetes", "--plugins", "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown plugin 'nope'" in result.output
