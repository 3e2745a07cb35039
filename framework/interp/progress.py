"""Progress reporting for long work: a bar on a terminal and in a notebook, silence in pipes,
callbacks for programs.

Plugins wrap their long loops in ``track(iterable, "what", total=n)`` (or use ``Progress``),
and that is all; work that ends early because it is done (a fit that converged) says so with
``Progress.stop(reason)``, so that its bar does not read as interrupted.  The bar is tqdm's ``auto`` front end: a text bar on stderr, or a widget in a
Jupyter kernel where ipywidgets is installed (a text bar in the cell's output where it is not).
It is drawn only when stderr is a terminal or the code runs in a Jupyter kernel, and progress
is not silenced (``quiet()`` or ``interp run --quiet``).  Programs follow progress with
``on_progress(callback)``: ``callback(desc, done, total)`` is called on every step, bar or not.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import warnings
from typing import Callable, Iterable, Iterator, TypeVar

from .terminal import visible

T = TypeVar("T")
NEUTRAL_COLOUR = "#9e9e9e"  # a notebook bar that ``Progress.stop`` ended early
Callback = Callable[[str, int, "int | None"], None]

_quiet: contextvars.ContextVar[bool] = contextvars.ContextVar("interp_quiet", default=False)
_callbacks: contextvars.ContextVar[tuple[Callback, ...]] = contextvars.ContextVar(
    "interp_progress_callbacks", default=()
)


@contextlib.contextmanager
def quiet(enabled: bool = True) -> Iterator[None]:
    """Silence progress bars inside the block (callbacks still run)."""
    token = _quiet.set(enabled)
    try:
        yield
    finally:
        _quiet.reset(token)


@contextlib.contextmanager
def on_progress(callback: Callback) -> Iterator[None]:
    """Call ``callback(desc, done, total)`` on every progress step inside the block."""
    token = _callbacks.set(_callbacks.get() + (callback,))
    try:
        yield
    finally:
        _callbacks.reset(token)


def in_notebook() -> bool:
    """Whether this code runs in a Jupyter kernel (JupyterLab, Notebook, VS Code, Colab): the
    test tqdm's ``auto`` front end makes too."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def _bar_enabled() -> bool:
    stream = sys.stderr
    terminal = hasattr(stream, "isatty") and stream.isatty()
    return not _quiet.get() and (terminal or in_notebook())


def _new_bar(desc: str, total: int | None):
    """A tqdm bar from the ``auto`` front end on the current stderr; its description, which
    may quote the data, with every control character visible (``interp.terminal.visible``)."""
    with warnings.catch_warnings():  # "IProgress not found": tqdm then draws text, which is fine
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm
    return tqdm(total=total, desc=visible(desc, one_line=True), file=sys.stderr, mininterval=0.1, leave=True)


class Progress:
    """One unit of long work: ``update(n)`` after each step, ``close()`` at the end (or use it as
    a context manager)."""

    def __init__(self, desc: str, total: int | None = None) -> None:
        self.desc, self.total, self.done = desc, total, 0
        self.reason = ""  # why the work stopped before total steps (`stop`)
        self._callbacks = _callbacks.get()
        self._bar = _new_bar(desc, total) if _bar_enabled() else None

    def update(self, n: int = 1) -> None:
        self.done += n
        for callback in self._callbacks:
            callback(self.desc, self.done, self.total)
        if self._bar is not None:
            self._bar.update(n)

    def stop(self, reason: str) -> None:
        """End the work before ``total`` steps because it is done (``"converged at 2 terms"``),
        not because it failed: the total becomes the steps done, so a bar ends complete, in a
        neutral colour (a notebook draws a bar closed short of its total red, and a complete
        one green as a success), and shows ``reason``; callbacks get one more call,
        ``(desc, done, done)``."""
        self.total, self.reason = self.done, reason
        for callback in self._callbacks:
            callback(self.desc, self.done, self.total)
        if self._bar is not None:
            self._bar.total = self.done
            self._bar.set_postfix_str(visible(reason, one_line=True), refresh=False)
            if getattr(self._bar, "container", None) is not None:  # a notebook widget
                self._bar.colour = NEUTRAL_COLOUR
            self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def track(iterable: Iterable[T], desc: str, total: int | None = None) -> Iterator[T]:
    """Yield from ``iterable``, reporting one step per item."""
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    with Progress(desc, total) as progress:
        for item in iterable:
            yield item
            progress.update()
