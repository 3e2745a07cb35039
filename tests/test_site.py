"""The documentation site (mkdocs.yml) builds with no warning, API reference included.

``mkdocs build --strict`` fails on any warning: a broken link or anchor between pages, a page
missing from the site, a docstring that names a parameter the signature does not have, an API
entry (``::: name``) that does not resolve.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], capture_output=True, text=True, cwd=config.parent)


def test_the_site_builds_in_strict_mode(tmp_path):
    result = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stderr
    api = (tmp_path / "site" / "api" / "symbolic" / "index.html").read_text(encoding="utf-8")
    assert "SymbolicPursuitRegressor" in api and "max_terms" in api  # generated from the docstrings
    assert (tmp_path / "site" / "benchmarks" / "index.html").exists()


@pytest.mark.parametrize("page, warning", [
    ("[a page](missing.md)\n", "missing.md"),
    ("::: interp.no_such_name\n", "no_such_name"),
], ids=["broken link", "unknown API entry"])
def test_a_warning_fails_the_build(tmp_path, page, warning):
    """Strict mode really bites, on a copy of the configuration with one bad page."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(f"# Probe\n\n{page}", encoding="utf-8")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.split("\nnav:")[0].replace("paths: [framework, plugins]",
                                               f"paths: [{ROOT / 'framework'}, {ROOT / 'plugins'}]")
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    result = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0 and warning in result.stderr
    shutil.rmtree(tmp_path / "site", ignore_errors=True)


def test_every_benchmark_page_is_on_the_index():
    """docs/benchmarks/index.md links every page of the folder (benchmark scripts add pages)."""
    folder = ROOT / "docs" / "benchmarks"
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", (folder / "index.md").read_text(encoding="utf-8")))
    pages = {p.name for p in folder.glob("*.md")} - {"index.md"}
    assert pages <= linked, f"not on docs/benchmarks/index.md: {sorted(pages - linked)}"
