"""What the trust tests share: hostile text, fast options for the four methods, and the checks
every command's output must pass."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Iterator
from unittest import mock

import interp.cli
from interp.markup import audit

METHODS = ("symbolic", "facets", "featurevec", "propositional")

#: options that make each method take well under a few seconds on a few dozen rows
FAST = {
    "symbolic": {"model": "rf", "max_terms": 1, "n_restarts": 1, "maxiter": 20},
    "facets": {"lam": 0.05, "gamma": 1.0},
    "featurevec": {"paths": 200},
    "propositional": {"select": 3, "cv": 2},
}

#: text that would be live in a page, a terminal, mathtext or LaTeX if it were not escaped
HOSTILE = (
    "<script>alert(1)</script>", "b<img src=x onerror=alert(2)>", '"><svg onload=alert(3)>',
    "javascript:alert(4)", "<a href='javascript:alert(5)'>x</a>", "$\\foo$", "%&#_{}", "\\begin{x}",
    "&lt;i&gt;", "\x1b]0;title\x07", "\x1b[2J", "a\rb", "\u202eevil", "</mi><mi>", "<!--", "]]>",
)

#: what a terminal acts on: C0 (but tab and newline), DEL, C1, and the bidirectional controls
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def flags(method: str) -> list[str]:
    """The fast options of ``method`` as command-line flags."""
    return [part for name, value in FAST[method].items() for part in (f"--{name.replace('_', '-')}", str(value))]


@contextlib.contextmanager
def fast_reports() -> Iterator[None]:
    """``interp report`` runs each method with its ``FAST`` options (it runs the defaults)."""
    real = interp.cli.run_method

    def run_fast(name, data, options=None, ctx=None):
        return real(name, data, {**FAST.get(name, {}), **(options or {})}, ctx)

    with mock.patch.object(interp.cli, "run_method", run_fast):
        yield


def check_output(result, allowed=(0, 2)) -> None:
    """A command's output as the platform promises: an allowed exit code, no traceback, no
    control character a terminal acts on, and on failure one ``Error:`` line last."""
    assert result.exit_code in allowed, result.output
    assert "Traceback" not in result.output, result.output
    assert not RAW_CONTROL.search(result.stdout), repr(result.stdout)
    assert not RAW_CONTROL.search(result.stderr), repr(result.stderr)
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) <= 1 and (not errors or result.stderr.rstrip().splitlines()[-1] == errors[0])


def check_page(path: Path) -> str:
    """The page at ``path``, which must pass ``interp.markup.audit``."""
    page = path.read_text(encoding="utf-8")
    assert audit(page) == [], audit(page)
    return page
