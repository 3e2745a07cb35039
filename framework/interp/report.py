"""One self-contained HTML page for several explanations: no network, plots inlined as PNG."""

from __future__ import annotations

import base64
import html
import io
import platform
from typing import Iterable

import attrs

from .results import Explanation


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


def _table(rows: dict, header: tuple[str, str]) -> str:
    if not rows:
        return ""
    body = "".join(
        f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(_fmt(v))}</td></tr>" for k, v in rows.items()
    )
    return f"<table><tr><th>{header[0]}</th><th>{header[1]}</th></tr>{body}</table>"


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _section(exp: Explanation) -> str:
    parts = [f'<section id="{html.escape(exp.plugin)}"><h2>{html.escape(exp.plugin)}</h2>',
             f'<p class="meta">plugin version {html.escape(exp.version)} &middot; data set '
             f"{html.escape(exp.dataset)}</p>"]
    mathml = exp.payload.get("mathml") if isinstance(exp.payload, dict) else None
    if isinstance(mathml, str) and mathml.lstrip().startswith("<"):
        # sympy's presentation MathML: markup we generated, not user text
        parts.append(f'<div class="formula"><math display="block">{mathml}</math></div>')
    parts.append("<h3>Metrics</h3>" + _table(exp.metrics, ("metric", "value")))
    for name, figure in exp.figures.items():
        parts.append(f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{_png(figure)}">'
                     f"<figcaption>{html.escape(name)}</figcaption></figure>")
    if exp.text:
        parts.append(f"<h3>Result</h3><pre>{html.escape(exp.text)}</pre>")
    parts.append("<h3>Parameters</h3>" + _table(exp.params, ("parameter", "value")))
    parts.append("</section>")
    return "\n".join(parts)


def render_html(results: Iterable[Explanation | Failure], title: str) -> str:
    """The report page: a section per method (or per failure), versions at the end."""
    from . import __version__

    results = list(results)
    nav = " ".join(f'<a href="#{html.escape(r.plugin)}">{html.escape(r.plugin)}</a>' for r in results)
    sections = []
    for result in results:
        if isinstance(result, Failure):
            sections.append(f'<section id="{html.escape(result.plugin)}"><h2>{html.escape(result.plugin)}</h2>'
                            f'<p class="failed">failed: {html.escape(result.message)}</p></section>')
        else:
            sections.append(_section(result))
    versions = f"interp {__version__}, Python {platform.python_version()}"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><nav>{nav}</nav>\n" + "\n".join(sections)
        + f'\n<footer class="meta"><p>{html.escape(versions)}</p></footer></body></html>\n'
    )
