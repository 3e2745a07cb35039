"""One self-contained HTML page for several explanations: no network, plots inlined as PNG."""

from __future__ import annotations

import base64
import html
import io
import platform
from typing import Iterable

import attrs

from .results import Explanation, Figure, Formula, Table, format_value


@attrs.frozen
class Failure:
    """A method that could not run on the data; the report shows why instead of aborting."""

    plugin: str
    message: str


_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:70rem;
padding:0 1rem;color:#1d232b;line-height:1.45}
h1{font-size:1.7rem}h2{border-bottom:2px solid #d7dde5;padding-bottom:.2rem;margin-top:2.5rem}
nav a{margin-right:1rem}table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #d7dde5;padding:.2rem .6rem;text-align:left;font-size:.92rem}
th{background:#f2f5f8}pre{background:#f6f8fa;padding:.8rem;overflow-x:auto;font-size:.85rem}
figure{margin:1rem 0}img{max-width:100%;border:1px solid #eef1f4}.failed{color:#a4262c}
.formula{font-size:1.1rem;overflow-x:auto;padding:.5rem 0}.meta{color:#5b6673;font-size:.9rem}
"""


def _png(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
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
    """One typed section as HTML; every string from a method is escaped except sympy's MathML."""
    title = f"<h3>{html.escape(section.title)}</h3>" if section.title else ""
    if isinstance(section, Formula):
        if section.mathml.lstrip().startswith("<"):
            return f'{title}<div class="formula"><math display="block">{section.mathml}</math></div>'
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
    """Typed sections (``Text``, ``Table``, ``Formula``, ``Figure``) as an HTML fragment; the
    figures named in ``figures`` but in no section follow at the end."""
    sections = tuple(sections)
    parts = [_render(section, figures) for section in sections]
    shown = {s.name for s in sections if isinstance(s, Figure)}
    parts += [_render(Figure(name), figures) for name in figures if name not in shown]
    return "\n".join(p for p in parts if p)


def explanation_html(exp: Explanation) -> str:
    """One explanation as an HTML ``<section>``: header, metrics, sections, parameters."""
    name = html.escape(exp.method or exp.plugin)
    parts = [f'<section id="{name}"><h2>{name}</h2>',
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


def render_html(results: Iterable[Explanation | Failure], title: str) -> str:
    """The report page: a section per method (or per failure), versions at the end."""
    from . import __version__

    results = list(results)
    names = [r.plugin if isinstance(r, Failure) else (r.method or r.plugin) for r in results]
    nav = " ".join(f'<a href="#{html.escape(n)}">{html.escape(n)}</a>' for n in names)
    sections = []
    for result in results:
        if isinstance(result, Failure):
            sections.append(f'<section id="{html.escape(result.plugin)}"><h2>{html.escape(result.plugin)}</h2>'
                            f'<p class="failed">failed: {html.escape(result.message)}</p></section>')
        else:
            sections.append(explanation_html(result))
    versions = f"interp {__version__}, Python {platform.python_version()}"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><nav>{nav}</nav>\n" + "\n".join(sections)
        + f'\n<footer class="meta"><p>{html.escape(versions)}</p></footer></body></html>\n'
    )
