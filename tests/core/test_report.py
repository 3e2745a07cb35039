"""`interp report`: one self-contained HTML page with a section per method; images decode."""

import base64
import shutil
import subprocess
import io
from html.parser import HTMLParser

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
