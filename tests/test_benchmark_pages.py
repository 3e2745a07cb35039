"""benchmarks/page.py: ``--page`` saves what a benchmark prints as a docs page, with provenance."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.fixture
def page_module(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_page", ROOT / "benchmarks" / "page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "PAGES", tmp_path)
    return module


def test_run_page_writes_the_output_under_its_provenance(page_module, tmp_path, monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(sys, "argv", ["benchmarks/demo.py", "--repeats", "2", "--page"])

    def main():
        seen.append(list(sys.argv))
        print("| case | seconds |\nrow 1")

    page_module.run_page(main, "demo", "A demo", about="Demo.\n\n        Times a thing.\n    ")
    assert seen == [["benchmarks/demo.py", "--repeats", "2"]]  # the flag is not main's to parse
    text = (tmp_path / "demo.md").read_text()
    assert text.startswith("# A demo\n\n- command: `python benchmarks/demo.py --repeats 2 --page`\n- commit: `")
    assert "## What is measured\n\nDemo.\n\nTimes a thing.\n\n## Output\n\n```text\n| case | seconds |\nrow 1\n```\n" in text
    assert "row 1" in capsys.readouterr().out  # the terminal still sees the output


def test_no_page_without_the_flag_or_after_a_failure(page_module, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["benchmarks/demo.py"])
    page_module.run_page(lambda: print("x"), "quiet", "Quiet")
    assert not (tmp_path / "quiet.md").exists()

    def broken():
        print("half a table")
        raise RuntimeError("boom")

    monkeypatch.setattr(sys, "argv", ["benchmarks/demo.py", "--page"])
    with pytest.raises(RuntimeError):
        page_module.run_page(broken, "broken", "Broken")
    assert not (tmp_path / "broken.md").exists()
