"""Progress reporting for long work: a bar on a terminal, silence in pipes, callbacks for programs.

Plugins wrap their long loops in ``track(iterable, "what", total=n)`` (or call ``report``), and
that is all.  A bar is drawn on stderr only when stderr is a terminal and progress is not
silenced (``quiet()`` or ``interp run --quiet``).  Notebooks and other programs follow progress
with ``on_progress(callback)``: ``callback(desc, done, total)`` is called on every step.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from typing import Callable, Iterable, Iterator, TypeVar

from .terminal import visible

T = TypeVar("T")
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


def _bar_enabled() -> bool:
    stream = sys.stderr
    return not _quiet.get() and hasattr(stream, "isatty") and stream.isatty()


class Progress:
    """One unit of long work: ``update(n)`` after each step, ``close()`` at the end."""

    def __init__(self, desc: str, total: int | None = None) -> None:
        self.desc, self.total, self.done = desc, total, 0
        self._bar = _bar_enabled()
        self._last_draw = 0.0
        self._callbacks = _callbacks.get()

    def update(self, n: int = 1) -> None:
        self.done += n
        for callback in self._callbacks:
            callback(self.desc, self.done, self.total)
        if self._bar:
            now = time.monotonic()
            if now - self._last_draw > 0.1 or self.done == self.total:
                self._last_draw = now
                self._draw()

    def _draw(self) -> None:
        desc = visible(self.desc, one_line=True)  # a description may quote the data
        if self.total:
            filled = int(30 * min(self.done, self.total) / self.total)
            bar = "#" * filled + "-" * (30 - filled)
            text = f"\r{desc} [{bar}] {self.done}/{self.total}"
        else:
            text = f"\r{desc} {self.done}"
        sys.stderr.write(text)
        sys.stderr.flush()

    def close(self) -> None:
        if self._bar:
            self._draw()
            sys.stderr.write("\n")
            sys.stderr.flush()

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
