"""Every example in README.md and docs/ runs, and prints what the page says it prints.

The convention (docs/index.md, "Examples on these pages", says it for readers and authors):

* A ```` ```python ```` block runs, in order with the page's other blocks, in one namespace per
  page and in a fresh temporary folder.  What it prints is compared with the ```` ```output ````
  block right after it; a block that prints something must have one.
* A ```` ```console ```` block is a shell session: each line starting with ``$ interp`` is run
  (in the same process, with click's ``CliRunner``, in the same folder) and what it prints,
  standard output and errors together, is compared with the lines under it up to the next
  ``$``.  A command exits with 0 unless its output shows an ``Error:`` line.
* In expected output, ``...`` stands for any text within a line, and a line holding only
  ``...`` for any number of lines: that is how a page marks numbers that change from machine to
  machine (timings) or text it leaves out.  Everything else must match exactly (trailing spaces
  and blank lines at the end aside).
* ```` ```sh ````, ```` ```text ```` and other blocks are not run: installing, commands on your
  own files, and listings.

``python tests/test_docs.py PAGE...`` writes the output blocks of python blocks that lack one,
and rewrites those without ``...`` that no longer match, from a run of the page (console blocks
are left to the author); an author reads the result before committing it.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shlex
import sys
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*\n", re.MULTILINE | re.DOTALL)
RUNNABLE = ("python", "console")


@attrs.frozen
class Block:
    """A runnable block of a page, with the output block after it (None when there is none)."""

    kind: str
    code: str
    line: int
    end: int  # where the block's closing fence ends in the page
    expected: str | None
    expected_span: tuple[int, int] | None  # where the output block's body is in the page


def blocks(text: str) -> list[Block]:
    """The python and console blocks of a page, in order, each with its expected output."""
    fences = list(FENCE.finditer(text))
    found = []
    for i, match in enumerate(fences):
        kind = match.group(1)
        if kind not in RUNNABLE:
            continue
        expected, span = None, None
        after = fences[i + 1] if i + 1 < len(fences) else None
        if kind == "python" and after and after.group(1) == "output" and not text[match.end():after.start()].strip():
            expected, span = after.group(2), after.span(2)
        found.append(Block(kind, match.group(2), text.count("\n", 0, match.start()) + 1, match.end(), expected, span))
    return found


def matches(expected: str, actual: str) -> bool:
    """Does ``actual`` match ``expected``, where ``...`` is any text and a ``...`` line any lines?"""
    parts = []
    for line in _lines(expected):
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + "\n")
    return re.fullmatch("".join(parts), "".join(line + "\n" for line in _lines(actual))) is not None


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _diff(expected: str, actual: str) -> str:
    return "\n".join(difflib.unified_diff(_lines(expected), _lines(actual), "page", "printed", lineterm=""))


def run_python(block: Block, namespace: dict, name: str) -> str:
    """Run a python block in ``namespace``; what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block.code, f"{name}:{block.line}", "exec"), namespace)  # noqa: S102 - our own docs
    return out.getvalue()


def console_commands(code: str) -> list[tuple[str, str]]:
    """(command, expected output) for every ``$`` line of a console block (``\\`` continues)."""
    commands, lines = [], code.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise ValueError(f"a console block's lines start with '$ ' or follow one: {lines[i]!r}")
        command = lines[i][2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1] + lines[i].strip()
        i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        commands.append((command, "\n".join(output)))
    return commands


def run_command(command: str) -> tuple[int, str]:
    """Run one ``interp ...`` command line in this process: (exit code, what it printed)."""
    from click.testing import CliRunner

    from interp.cli import cli

    argv = shlex.split(command)
    if argv[0] != "interp":
        raise ValueError(f"console blocks run interp commands only, got {command!r}")
    result = CliRunner().invoke(cli, argv[1:], catch_exceptions=False)
    return result.exit_code, result.output


def check_page(page: Path) -> list[str]:
    """Run every block of a page; one message per block whose output is not the page's."""
    namespace, problems = {"__name__": "__docs__"}, []
    name = str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name
    for block in blocks(page.read_text(encoding="utf-8")):
        if block.kind == "python":
            printed = run_python(block, namespace, name)
            if block.expected is None and printed.strip():
                problems.append(f"{name}:{block.line}: the block prints, but no ```output block follows:\n{printed}")
            elif block.expected is not None and not matches(block.expected, printed):
                problems.append(f"{name}:{block.line}: printed output differs\n{_diff(block.expected, printed)}")
            continue
        for command, expected in console_commands(block.code):
            code, printed = run_command(command)
            if code != 0 and "Error:" not in expected:
                problems.append(f"{name}:{block.line}: `{command}` exited with {code}:\n{printed}")
            elif not matches(expected, printed):
                problems.append(f"{name}:{block.line}: `{command}` printed\n{_diff(expected, printed)}")
    return problems


def _pages_with_examples():
    return [p for p in PAGES if p.exists() and blocks(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page", _pages_with_examples(), ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_print_what_the_page_shows(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    try:
        problems = check_page(page)
    finally:
        import matplotlib.pyplot as plt

        plt.close("all")
    assert not problems, "\n\n".join(problems)


PAGE_WITH_OUTPUTS = '''A page.

```python
print("fit in 3.2 s")
print("total 7")
```

```output
fit in ... s
total 7
```

```console
$ interp datasets
...
diabetes...
...
```
'''


def test_the_checker_fails_on_a_wrong_or_missing_output(tmp_path, monkeypatch):
    """The convention bites: a changed number, a missing output block, a command's output."""
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    page.write_text(PAGE_WITH_OUTPUTS, encoding="utf-8")
    assert check_page(page) == []
    page.write_text(PAGE_WITH_OUTPUTS.replace("total 7\n```\n\n```console", "total 8\n```\n\n```console"))
    assert "printed output differs" in check_page(page)[0]
    page.write_text(PAGE_WITH_OUTPUTS.replace("```output\nfit in ... s\ntotal 7\n```\n", ""))
    assert "no ```output block follows" in check_page(page)[0]
    page.write_text(PAGE_WITH_OUTPUTS.replace("diabetes...", "no-such-dataset"))
    assert "`interp datasets` printed" in check_page(page)[0]


def test_ellipsis_rules():
    assert matches("a ... c", "a b b c") and not matches("a ... c", "a b\nc")
    assert matches("head\n...\ntail", "head\n1\n2\ntail") and matches("head\n...\ntail", "head\ntail")
    assert not matches("0.95", "0.951") and matches("x  \n\n", "x")


def update(page: Path) -> None:
    """Write the output blocks a page lacks, and rewrite those without ``...`` that differ."""
    text = page.read_text(encoding="utf-8")
    namespace, edits = {"__name__": "__docs__"}, []
    for block in blocks(text):
        if block.kind != "python":
            continue
        printed = "\n".join(_lines(run_python(block, namespace, page.name)))
        if block.expected is None and printed:
            edits.append((block.end, block.end, f"\n```output\n{printed}\n```\n"))
        elif block.expected is not None and "..." not in block.expected and not matches(block.expected, printed):
            edits.append((*block.expected_span, printed + "\n"))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    page.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    os.environ.setdefault("MPLBACKEND", "Agg")
    for arg in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
            update(Path(arg).resolve())
