"""Every ```python block in README.md and docs/ runs: examples in the docs must stay true."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _pages_with_code():
    return [p for p in PAGES if p.exists() and BLOCK.search(p.read_text())]


@pytest.mark.parametrize("page", _pages_with_code(), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    namespace = {"__name__": "__docs__"}
    for i, match in enumerate(BLOCK.finditer(page.read_text())):
        code = compile(match.group(1), f"{page.name}[block {i}]", "exec")
        exec(code, namespace)  # noqa: S102 - our own documentation, not user input
    import matplotlib.pyplot as plt

    plt.close("all")
