"""Benchmark pages: what a benchmark prints, saved as a page of the docs with where it ran.

A benchmark prints Markdown (tables, headings) as it goes.  Wrapped in ``page``, the same text
is also written to ``docs/benchmarks/<slug>.md`` under a header that says how to reproduce it:
the command, the commit (and whether the tree had uncommitted changes), the machine, the
versions of Python and numpy, the date and the load average before and after::

    from page import page

    with page("facets-fasterrisk", "Facets against FasterRisk", enabled=args.page):
        main()

A script whose arguments decide nothing about its page hands its ``main`` to ``run_page``
instead, which takes a ``--page`` flag off the command line (the same flag in every benchmark)::

    if __name__ == "__main__":
        run_page(main, "propositional-speed", "Propositional kernels: speed", about=__doc__)

``about`` (the script's docstring: what is measured and how) is printed on the page above the
output; ``text=True`` (the default of ``run_page``) keeps output that is not Markdown as a block
of text.  A page is written only when the block finishes without an exception, so a failed run
never replaces a good page.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import inspect
import io
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "benchmarks"


class _Tee(io.TextIOBase):
    """Writes to two streams: the terminal (or pipe) and a buffer."""

    def __init__(self, first: io.TextIOBase, second: io.StringIO) -> None:
        self.first, self.second = first, second

    def write(self, text: str) -> int:
        self.first.write(text)
        return self.second.write(text)

    def flush(self) -> None:
        self.first.flush()


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def _command() -> str:
    return "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]])


def provenance(load_before: str, command: str | None = None) -> str:
    """The header lines of a page: command, commit, machine, versions, date, load."""
    import numpy

    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = " with uncommitted changes" if _git("status", "--porcelain", "--untracked-files=no") else ""
    command = command or _command()
    date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return "\n".join([
        f"- command: `{command}`",
        f"- commit: `{commit}`{dirty}",
        f"- machine: {_cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        f"- Python {platform.python_version()}, numpy {numpy.__version__}",
        f"- date: {date}; load average (1, 5, 15 min) {load_before} before, {_load()} after",
    ])


def _about(doc: str) -> str:
    """A script's docstring as the page's "What is measured" section."""
    body = inspect.cleandoc(doc) if doc else ""
    return f"## What is measured\n\n{body}\n\n## Output\n\n" if body else ""


@contextlib.contextmanager
def page(slug: str, title: str, enabled: bool = True, about: str = "", text: bool = False,
         command: str | None = None) -> Iterator[None]:
    """Tee standard output into ``docs/benchmarks/<slug>.md`` (when ``enabled``).

    ``about`` is put above the output (a script's docstring), ``text`` keeps the output as a
    block of plain text, ``command`` replaces the command line read from ``sys.argv``.
    """
    if not enabled:
        yield
        return
    buffer, stdout, load_before = io.StringIO(), sys.stdout, _load()
    sys.stdout = _Tee(stdout, buffer)
    try:
        yield
    finally:
        sys.stdout = stdout
    PAGES.mkdir(parents=True, exist_ok=True)
    path = PAGES / f"{slug}.md"
    output = buffer.getvalue().strip()
    if text:
        output = f"```text\n{output}\n```"
    path.write_text(f"# {title}\n\n{provenance(load_before, command)}\n\n{_about(about)}{output}\n",
                    encoding="utf-8")
    print(f"wrote {os.path.relpath(path, ROOT)}", file=sys.stderr)


def run_page(main: Callable[[], object], slug: str, title: str, about: str = "", text: bool = True) -> None:
    """Run ``main()``; with ``--page`` on the command line, also save its output as a page.

    The flag is taken off ``sys.argv`` before ``main`` parses its own arguments, so every
    benchmark takes it without declaring it; the page's command line keeps it.
    """
    command = _command()
    enabled = "--page" in sys.argv[1:]
    if enabled:
        sys.argv.remove("--page")
    with page(slug, title, enabled, about, text, command):
        main()
