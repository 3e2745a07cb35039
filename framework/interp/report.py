"""One self-contained HTML page for several explanations: no network, plots inlined as PNG.

This module is the only producer of HTML in interp (the report page, and the fragments a
notebook displays), and the trust boundary for it: every string from a method or from the data
is escaped, ids and links are made from the names (``anchors``), images are PNG data the core
draws itself, and a ``Formula``'s MathML is never inserted as given but written anew from the
allow-lists of ``interp.markup`` (``clean_mathml``; the plain formula is shown when it cannot
be).  ``interp.markup.audit`` checks a page against the same lists.
"""

from __future__ import annotations

import base64
import html
import io
import platform
import re
from typing import Iterable

import attrs

from .markup import clean_mathml, visible_html
from .results import Explanation, Figure, Formula, Table, format_value


@attrs.frozen
class Failure:
    """A method that could not run on the data; the report shows why instead of aborting."""

    method: str
    message: str


@attrs.frozen
class Part:
    """One method's section of the page: the ``label`` the navigation shows, the ``anchor``
    (its id, unique on the page) and its ``html``."""

    label: str
    anchor: str
    html: str


_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:70rem;
padding:0 1rem;color:#1d232b;line-height:1.45}
h1{font-size:1.7rem}h2{border-bottom:2px solid #d7dde5;padding-bottom:.2rem;margin-top:2.5rem}
nav a{margin-right:1rem}table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #d7dde5;padding:.2rem .6rem;text-align:left;font-size:.92rem}
th{background:#f2f5f8}pre{background:#f6f8fa;padding:.8rem;overflow-x:auto;font-size:.85rem}
figure{margin:1rem 0}img{max-width:100%;border:1px solid #eef1f4}.failed{color:#a4262c}
.formula{font-size:1.1rem;overflow-x:auto;padding:.5rem 0}.meta{color:#5b6673;font-size:.9rem}
.formula mtd{text-align:left}
"""


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


def _png(figure) -> str:
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


def _html_table(columns, cells) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in cells)
    return f"<table><tr>{head}</tr>{body}</table>"


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
        return (f'<figure><img alt="{caption}" src="data:image/png;base64,{_png(figures[section.name])}">'
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
    """One explanation as an HTML ``<section>``: header, metrics, sections, parameters; its id
    is ``anchor`` (default: made from the method's name by ``anchors``)."""
    name = exp.method or exp.plugin
    anchor = anchor or anchors([name])[0]
    parts = [f'<section id="{html.escape(anchor)}"><h2>{html.escape(name)}</h2>',
             f'<p class="meta">plugin {html.escape(exp.plugin)} {html.escape(exp.version)} &middot; data set '
             f"{html.escape(exp.dataset)}</p>"]
    parts.append("<h3>Metrics</h3>" + _pairs(exp.metrics, ("metric", "value")))
    if exp.sections or not exp.text:
        parts.append(sections_html(exp.sections, exp.figures))
    else:
        parts.append(f"<h3>Result</h3><pre>{html.escape(exp.text)}</pre>")
        parts.append(sections_html((), exp.figures))
    parts.append("<h3>Parameters</h3>" + _pairs(exp.params, ("parameter", "value")))
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def failure_html(failure: Failure, anchor: str | None = None) -> str:
    """A method that failed, as an HTML ``<section>`` that says why."""
    anchor = anchor or anchors([failure.method])[0]
    return (f'<section id="{html.escape(anchor)}"><h2>{html.escape(failure.method)}</h2>'
            f'<p class="failed">failed: {html.escape(failure.message)}</p></section>')


def page_html(parts: Iterable[Part], title: str) -> str:
    """The report page: the navigation, each method's section, the versions at the end."""
    from . import __version__

    parts = list(parts)
    nav = " ".join(f'<a href="#{html.escape(p.anchor)}">{html.escape(p.label)}</a>' for p in parts)
    versions = f"interp {__version__}, Python {platform.python_version()}"
    return visible_html(  # what would make a name read as another, shown visibly (interp.markup)
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><nav>{nav}</nav>\n" + "\n".join(p.html for p in parts)
        + f'\n<footer class="meta"><p>{html.escape(versions)}</p></footer></body></html>\n'
    )


def render_html(results: Iterable[Explanation | Failure], title: str) -> str:
    """The report page of explanations and failures, a section each (see ``page_html``)."""
    results = list(results)
    labels = [r.method if isinstance(r, Failure) else (r.method or r.plugin) for r in results]
    parts = [Part(label, anchor, failure_html(r, anchor) if isinstance(r, Failure) else explanation_html(r, anchor))
             for r, label, anchor in zip(results, labels, anchors(labels))]
    return page_html(parts, title)
