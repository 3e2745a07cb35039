"""docs/notebooks/quickstart.ipynb runs in a real Jupyter kernel: every cell, the four methods'
displays as static HTML with what a reader looks for (a formula, a card with its risks, a ranked
table, rules, a method's metrics) and clean under the report's allow-list audit, and the fit of a
few seconds shows a progress bar in the kernel's output."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from interp.markup import audit

NOTEBOOK = Path(__file__).parents[1] / "docs" / "notebooks" / "quickstart.ipynb"

#: tag of a cell -> what its display must hold
EXPECTED = {
    "symbolic": ["<math", "Models by size", "<td>*</td>"],
    "facets": ["score card", "worst_texture &gt;= 20", "risk of 1 by total"],
    "featurevec": ["<th>rank</th><th>feature</th><th>importance</th>", 'src="data:image/png;base64,'],
    "propositional": ["a &amp; ~b", "rule model", "top weighted features", "republican"],
    "explanation": ["<h2>propositional</h2>", "<td>auc</td>", "rule model", "top weighted features"],
}


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    workdir = tmp_path_factory.mktemp("notebook")
    # local sockets, not TCP ports another process on the machine could take first
    kernel = KernelManager(kernel_name="python3", transport="ipc", ip=str(workdir / "kernel"))
    NotebookClient(notebook, km=kernel, timeout=300, resources={"metadata": {"path": str(workdir)}}).execute()
    return {tag: cell for cell in notebook.cells for tag in cell.metadata.get("tags", ())}


def _html(cell) -> str:
    shown = [out["data"]["text/html"] for out in cell.outputs
             if out.output_type in ("execute_result", "display_data") and "text/html" in out.get("data", {})]
    assert len(shown) == 1, f"{len(shown)} HTML displays"
    return shown[0]


@pytest.mark.parametrize("tag", list(EXPECTED))
def test_each_display_is_clean_static_html_with_its_content(executed, tag):
    page = _html(executed[tag])
    assert audit(page) == [], tag
    assert "<script" not in page and "sk-top-container" not in page  # ours, not scikit-learn's
    for expected in EXPECTED[tag]:
        assert expected in page, (tag, expected)


def test_the_fit_of_a_few_seconds_shows_a_progress_bar(executed):
    """The symbolic fit (about 6 s) draws tqdm's bar: a widget where ipywidgets is installed, else
    text on the cell's stderr."""
    outputs = executed["symbolic"].outputs
    widget = any("application/vnd.jupyter.widget-view+json" in out.get("data", {}) for out in outputs)
    text = "".join(out.text for out in outputs if out.output_type == "stream" and out.name == "stderr")
    assert widget or ("symbolic pursuit:" in text and "%|" in text), text[:500]
