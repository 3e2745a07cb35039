"""HTML fragments of explanations: typed sections, one explanation's section, the ids of a
page's sections.

What both the report page (``interp.report``) and the notebook display of an explanation
(``Explanation._repr_html_``) draw with, under the same rules: every string from a method or
from the data is escaped, ids are made from names (``anchors``), images are PNG data the core
draws itself, and a ``Formula``'s MathML is never inserted as given but written anew from the
allow-lists of ``interp.markup`` (``clean_mathml``; the plain formula is shown when it cannot
be).  It reads the section records (``interp.sections``) and an explanation's fields, never
``interp.results``, so that module can display itself through this one.
"""

from __future__ import annotations

import base64
import html
import io
import re
from typing import TYPE_CHECKING, Iterable

from .markup import clean_mathml
from .sections import Figure, Formula, Table, format_value

if TYPE_CHECKING:
    from .results import Explanation


def anchors(names: Iterable[str]) -> list[str]:
    """One id per name, unique among them, for the page's sections and links and the run
    folders beside the page: the name when it is only letters, digits, ``_``, ``.`` and ``-``
    (and starts with neither ``.`` nor ``-``), otherwise those characters of it; a repeat gets
    ``-2``, ``-3``."""
    out: list[str] = []
    for name in names:
        base = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(name)).strip(".-") or "method"
        anchor, k = base, 1
        while anchor in out:
            k += 1
            anchor = f"{base}-{k}"
        out.append(anchor)
    return out


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_data(figure) -> str:
    """A figure as base64 PNG data: a matplotlib Figure drawn (its text literal), or the bytes
    of a PNG file already drawn (a saved run's), checked to be PNG."""
    from .plotting import save_png

    if isinstance(figure, bytes):
        if not figure.startswith(_PNG_SIGNATURE):
            raise ValueError("a figure given as bytes must be PNG data")
        return base64.b64encode(figure).decode("ascii")
    buffer = io.BytesIO()
    save_png(figure, buffer, dpi=100)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _pairs(rows: dict, header: tuple[str, str]) -> str:
    if not rows:
        return ""
    return _html_table(header, [(str(k), format_value(v)) for k, v in rows.items()])


#: a product's or a quotient's operator inside a word (``a**0.3*b/c``; not ``**``, not at its end)
_WORD_BREAK = re.compile(r"(?<!\*)([*/])(?![*\s]|$)")


def _html_table(columns, cells) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_breakable(cell)}</td>" for cell in row) + "</tr>" for row in cells)
    return f"<table><tr>{head}</tr>{body}</table>"


def _breakable(cell: str) -> str:
    """A cell's text escaped, with a line-break opportunity (``<wbr>``) after each ``*`` or
    ``/`` inside a word, so that a formula such as ``C*a**0.3*b**0.5/c`` wraps within the page
    (a notebook's tables take no style of ours) and copies as written."""
    return _WORD_BREAK.sub(r"\1<wbr>", html.escape(cell))


def _render(section, figures: dict) -> str:
    """One typed section as HTML: every string escaped, a formula's MathML written anew from the
    allow-lists (``clean_mathml``), or its plain text when that cannot be done."""
    title = f"<h3>{html.escape(section.title)}</h3>" if section.title else ""
    if isinstance(section, Formula):
        mathml = clean_mathml(section.mathml) if section.mathml else None
        if mathml is not None:
            return f'{title}<div class="formula"><math display="block">{mathml}</math></div>'
        return f'{title}<pre class="formula">{html.escape(section.text)}</pre>'
    if isinstance(section, Table):
        return title + _html_table(section.columns, section.cells())
    if isinstance(section, Figure):
        if section.name not in figures:
            return ""
        caption = html.escape(section.title or section.name)
        return (f'<figure><img alt="{caption}" src="data:image/png;base64,{png_data(figures[section.name])}">'
                f"<figcaption>{caption}</figcaption></figure>")
    return f"{title}<pre>{html.escape(section.body)}</pre>"


def sections_html(sections: Iterable, figures: dict) -> str:
    """Typed sections (``Text``, ``Table``, ``Formula``, ``Figure``) as an HTML fragment;
    ``figures`` maps a name to a matplotlib Figure or to the bytes of a PNG already drawn, and
    those in no section follow at the end."""
    sections = tuple(sections)
    parts = [_render(section, figures) for section in sections]
    shown = {s.name for s in sections if isinstance(s, Figure)}
    parts += [_render(Figure(name), figures) for name in figures if name not in shown]
    return "\n".join(p for p in parts if p)


def explanation_html(exp: Explanation, anchor: str | None = None) -> str:
    """One explanation as an HTML ``<section>``: header, the method's own sections, then its
    metrics and parameters folded away (``internals_html``); its id is ``anchor`` (default:
    made from the method's name by ``anchors``)."""
    name = exp.method or exp.plugin
    anchor = anchor or anchors([name])[0]
    parts = [f'<section id="{html.escape(anchor)}"><h2>{html.escape(name)}</h2>',
             f'<p class="meta">plugin {html.escape(exp.plugin)} {html.escape(exp.version)} &middot; data set '
             f"{html.escape(exp.dataset)}</p>", body_html(exp), internals_html(exp), "</section>"]
    return "\n".join(p for p in parts if p)


def body_html(exp: Explanation) -> str:
    """What a person reads of an explanation: its sections (its text when it has none) and its
    figures."""
    if exp.sections or not exp.text:
        return sections_html(exp.sections, exp.figures)
    return f"<h3>Result</h3><pre>{html.escape(exp.text)}</pre>" + sections_html((), exp.figures)


def internals_html(exp: Explanation) -> str:
    """An explanation's metrics and parameters, in a ``<details>`` element: figures for a
    second look (grid points, iterations, integrity), not the first screen."""
    return _details("metrics and parameters", _pairs(exp.metrics, ("metric", "value"))
                    + _pairs(exp.params, ("parameter", "value")))


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{html.escape(summary)}</summary>{body}</details>" if body else ""
