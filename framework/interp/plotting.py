"""Figures whose text is shown literally: a column named ``$\\foo$`` is drawn as ``$\\foo$``.

matplotlib reads ``$...$`` in any text as mathtext (and, with ``text.usetex``, hands text to
TeX), so a feature name or a class label from the user's data would be parsed: an unknown
command such as ``\\foo`` stops the drawing with a ValueError.  User text in a plot is never
parsed.  ``literal(fig)`` makes every text of a figure literal but the tick labels matplotlib
formats from numbers (a log axis writes 10^k as mathtext); tick labels that are names (a bar
chart's categories, labels set by hand) are literal too.  A control character in user text
(which no font can draw) is shown as its visible escape, as on a terminal
(``interp.terminal.visible``), and a text longer than ``MAX_TEXT_CHARS`` is cut.

It holds by construction in two places.  Every plugin's ``plots.py`` makes its figures with
``figure()``: a ``LiteralFigure`` applies ``literal`` whenever it lays out, measures or draws
itself.  The core runs every method inside ``literal_text()`` (text created during the run is
literal, so a third-party plugin's plain matplotlib figure can be measured) and saves every
figure with ``save_png``, which applies ``literal`` first.  A plugin that draws into an
``Axes`` it was given wraps the drawing in ``literal_text()``.
"""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

import matplotlib
from matplotlib import category, ticker
from matplotlib.figure import Figure
from matplotlib.text import Text

from .terminal import visible

__all__ = ["LITERAL_TEXT", "MAX_TEXT_CHARS", "LiteralFigure", "check_figure_file", "figure", "literal", "literal_text",
           "save_png", "shown_text"]

#: the settings under which matplotlib creates text that it shows as given
LITERAL_TEXT = {"text.parse_math": False, "text.usetex": False}
#: the longest text a figure shows (a longer one is cut): a 50 MB text cell, as a category's name,
#: would otherwise take gigabytes to lay out
MAX_TEXT_CHARS = 1000
#: tick formatters whose labels are text given by a plugin (names), not numbers
_NAME_FORMATTERS = (ticker.FixedFormatter, ticker.FuncFormatter, category.StrCategoryFormatter)


@contextlib.contextmanager
def literal_text() -> Iterator[None]:
    """Inside the block every text matplotlib creates is shown literally (no mathtext, no TeX)."""
    with matplotlib.rc_context(LITERAL_TEXT):
        yield


def _number_labels(fig: Figure) -> set[int]:
    """The ids of the tick labels (and offset texts) of ``fig`` that matplotlib formats from
    numbers; the ticks of the current view are made on the way."""
    ids: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for formatter, ticks in ((axis.get_major_formatter(), axis.get_major_ticks()),
                                     (axis.get_minor_formatter(), axis.get_minor_ticks())):
                if not isinstance(formatter, _NAME_FORMATTERS):
                    ids.update(id(label) for tick in ticks for label in (tick.label1, tick.label2))
            if not isinstance(axis.get_major_formatter(), _NAME_FORMATTERS):
                ids.add(id(axis.offsetText))
    return ids


def shown_text(text: str) -> str:
    """``text`` as a figure shows it: at most ``MAX_TEXT_CHARS`` characters (a longer one cut,
    ending in an ellipsis), control characters as visible escapes."""
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS - 1] + "\u2026"
    return visible(text)


def _visible_names(formatter: ticker.Formatter) -> ticker.FuncFormatter:
    """A name formatter whose labels are ``formatter``'s as ``shown_text`` shows them."""
    wrapped = ticker.FuncFormatter(lambda x, pos=None: shown_text(formatter(x, pos)))
    wrapped.interp_visible = True
    return wrapped


def _show_names_visibly(axis) -> None:
    """Wrap ``axis``'s name formatters (categories, labels set by hand) in ``_visible_names``:
    their labels are made again at every draw, so the text of a label cannot be fixed once."""
    for get, set_ in ((axis.get_major_formatter, axis.set_major_formatter),
                      (axis.get_minor_formatter, axis.set_minor_formatter)):
        formatter = get()
        if isinstance(formatter, _NAME_FORMATTERS) and not getattr(formatter, "interp_visible", False):
            set_(_visible_names(formatter))


def literal(fig: Figure) -> Figure:
    """Make every text in ``fig`` literal (no mathtext, no TeX, control characters as visible
    escapes, at most ``MAX_TEXT_CHARS`` long: ``shown_text``), but the tick labels matplotlib formats from numbers, which keep their mathtext;
    returns ``fig``."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            _show_names_visibly(axis)
    numbers = _number_labels(fig)
    for text in fig.findobj(Text):
        if id(text) in numbers:
            text.set_parse_math(True)
        else:
            text.set_parse_math(False)
            text.set_usetex(False)
            shown = shown_text(text.get_text())
            if shown != text.get_text():
                text.set_text(shown)
    return fig


def _literally(method: Callable) -> Callable:
    """A Figure method that first makes the figure's text literal (``literal``)."""

    @functools.wraps(method)
    def wrapper(self: Figure, *args: Any, **kwargs: Any) -> Any:
        literal(self)
        return method(self, *args, **kwargs)

    return wrapper


class LiteralFigure(Figure):
    """A matplotlib Figure that never parses the text it was given: whenever it lays out,
    measures or draws itself, its text is made literal first (``literal``)."""

    draw = _literally(Figure.draw)
    get_tightbbox = _literally(Figure.get_tightbbox)
    tight_layout = _literally(Figure.tight_layout)


def figure(**kwargs: Any) -> LiteralFigure:
    """A new ``LiteralFigure`` (the keywords of ``matplotlib.figure.Figure``): how plugins make
    their figures."""
    return LiteralFigure(**kwargs)


def save_png(fig: Figure, target: str | os.PathLike | BinaryIO, dpi: int) -> None:
    """Write ``fig`` (any matplotlib Figure) as PNG to a path or binary file, its text literal."""
    literal(fig).savefig(target, format="png", dpi=dpi, bbox_inches="tight")


def check_figure_file(path: str | os.PathLike, option: str) -> None:
    """An ``InputError`` naming ``option`` unless matplotlib can write a figure at ``path``: its
    folder exists and its extension is a format matplotlib saves (``.png``, ``.svg``, ``.pdf``,
    ...).  Checked before the work, so a typo does not cost the run."""
    from matplotlib.backend_bases import FigureCanvasBase

    from .errors import InputError

    target = Path(path)
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = target.suffix[1:].lower()
    if suffix not in formats:
        raise InputError(f"{option} {str(path)!r}: {'.' + suffix if suffix else 'no extension'} is not a picture "
                         f"format matplotlib writes (use one of {', '.join(sorted(formats))})")
    if not target.parent.is_dir():
        raise InputError(f"{option} folder {str(target.parent)!r} does not exist")
