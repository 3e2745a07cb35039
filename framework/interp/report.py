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


def failure_html(failure: Failure, anchor: str | None = None) -> str:
    """A method that failed, as an HTML ``<section>`` that says why."""
    anchor = anchor or anchors([failure.method])[0]
    return (f'<section id="{html.escape(anchor)}"><h2>{html.escape(failure.method)}</h2>'
            f'<p class="failed">failed: {html.escape(failure.message)}</p></section>')


#: what a report made without a model says first: whose model each section explains
NO_MODEL = ("No model was given: each method fitted a model of its own to the data, and explains that one, not a "
            "model of yours. To explain your model, give it: interp report --model FILE --trust-model-file ...")


def page_html(parts: Iterable[Part], title: str, intro: str = "") -> str:
    """The report page: the navigation, ``intro`` (a paragraph), each method's section, the
    versions at the end."""
    from .version import __version__

    parts = list(parts)
    nav = " ".join(f'<a href="#{html.escape(p.anchor)}">{html.escape(p.label)}</a>' for p in parts)
    versions = f"interp {__version__}, Python {platform.python_version()}"
    return visible_html(  # what would make a name read as another, shown visibly (interp.markup)
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><nav>{nav}</nav>\n" + (f"<p>{html.escape(intro)}</p>\n" if intro else "")
        + "\n".join(p.html for p in parts)
        + f'\n<footer class="meta"><p>{html.escape(versions)}</p></footer></body></html>\n'
    )


def render_html(results: Iterable[Explanation | Failure], title: str) -> str:
    """The report page of explanations and failures, a section each (see ``page_html``), each
    method having fitted the data (``NO_MODEL``)."""
    results = list(results)
    labels = [r.method if isinstance(r, Failure) else (r.method or r.plugin) for r in results]
    parts = [Part(label, anchor, failure_html(r, anchor) if isinstance(r, Failure) else explanation_html(r, anchor))
             for r, label, anchor in zip(results, labels, anchors(labels))]
    return page_html(parts, title, NO_MODEL)


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{html.escape(summary)}</summary>{body}</details>" if body else ""


def _model_method_html(result, anchor: str) -> str:
    """One method's section of a model's report: what it was fitted to and how faithfully
    (a low fidelity flagged), its own sections, then its metrics and parameters folded away."""
    head = f'<section id="{html.escape(anchor)}"><h2>{html.escape(result.method)}</h2>'
    fitted = f"<p>Fitted to {html.escape(result.fitted_to)} on the fitting rows; {result.seconds:.1f} s.</p>"
    if result.explanation is None:
        return head + fitted + f'<p class="failed">did not run: {html.escape(result.error)}</p></section>'
    exp = result.explanation
    flag = ' class="failed"' if result.fidelity.low else ""
    parts = [head, fitted, f"<p{flag}>Fidelity on the held-out rows: {html.escape(result.fidelity.text())}.</p>"]
    parts += [body_html(exp), internals_html(exp)]
    meta = f"plugin {exp.plugin} {exp.version}"
    parts.append(f'<p class="meta">{html.escape(meta)}</p></section>')
    return "\n".join(p for p in parts if p)


def _model_first_screen(result) -> str:
    """The data, the model and the summary table: what a person reads first."""
    lines = result.headline().splitlines()
    facts = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    return facts + sections_html((result.summary_table(),), {})


def one_row_html(result, row: int | None = None) -> str:
    """Why one row (by default the model's least certain held-out row) gets its answer, from
    each method: its contributions as a table and a waterfall, the model's own output beside
    them; a method that explains no single row says why."""
    chosen = row is None
    row = result.least_certain_row() if chosen else row
    explained = result.for_rows([row])
    lines = [f"<p>Row {row} of the data{' (the held-out row where the model is least sure)' if chosen else ''}: "
             f"the model's {html.escape(result.output_name)} is {result.model_output(row):.4g}. Each method's "
             "contributions sum exactly to its own output for this row, from its stated baseline.</p>"]
    for method, (one,) in explained.by_method.items():
        lines.append(f"<h3>{html.escape(method)}</h3>")
        if one.outcome:
            lines.append(f"<p>{html.escape(one.outcome)}</p>")
        lines.append(sections_html([one.table(), *filter(None, [one.pieces_table()])], {}))
        lines.append(f'<figure><img alt="{html.escape(method)}: why this row" '
                     f'src="data:image/png;base64,{_png(one.plot())}"></figure>')
    lines += [f"<h3>{html.escape(m)}</h3><p>{html.escape(why)}</p>" for m, why in explained.notes.items()]
    return "\n".join(lines)


def effects_html(result) -> str:
    """Per feature (the numeric ones that move the model most): each method's effect curve
    over the model's partial dependence and ICE lines, and the directions in words."""
    from .effects import effect_curves, plot_effects

    curves = effect_curves(result)
    if not curves:
        return "<p>No numeric column with three values or more: no curves to draw.</p>"
    lines = "".join(f"<li>{html.escape(c.text())}</li>" for c in curves)
    return (f"<p>Each panel sets one feature to each value of a grid on every row of a sample, the others "
            f"kept: grey lines are the model's {html.escape(result.output_name)} row by row (ICE), black their "
            f"mean (partial dependence), dashed each method's mean on the same rows.</p><ul>{lines}</ul>"
            f'<figure><img alt="effect curves" src="data:image/png;base64,'
            f'{_png(plot_effects(curves, result.output_name))}"></figure>')


def model_sections_html(result) -> str:
    """A ``ModelExplanation`` (``interp.explain``) as an HTML fragment: the first screen, the
    least certain held-out row explained (``one_row_html``), then one section per method (the
    notebook display)."""
    labels = [r.method for r in result.results]
    body = "\n".join(_model_method_html(r, a) for r, a in zip(result.results, anchors(labels)))
    one = f"<h2>Why this prediction: one row</h2>{one_row_html(result)}"
    return f'<div class="interp-display">{_model_first_screen(result)}\n{one}\n{body}</div>'


def model_page_html(result, title: str, figures: dict | None = None, row: int | None = None) -> str:
    """The report page of a ``ModelExplanation``: the first screen, one row explained
    (``one_row_html``), the effect curves (``effects_html``), then a section per method (``figures``: per method, PNG bytes already
    drawn to show instead of its Figures)."""
    first, one, curves, *ids = anchors(["summary", "one row", "per feature", *(r.method for r in result.results)])
    parts = [Part("summary", first, f'<section id="{first}">{_model_first_screen(result)}</section>'),
             Part("one row", one, f'<section id="{one}"><h2>Why this prediction: one row</h2>'
                                  f"{one_row_html(result, row)}</section>"),
             Part("per feature", curves, f'<section id="{curves}"><h2>Per feature: each method against the '
                                         f"model's own curve</h2>{effects_html(result)}</section>")]
    for r, anchor in zip(result.results, ids):
        if figures and r.explanation is not None and r.method in figures:
            r = attrs.evolve(r, explanation=attrs.evolve(r.explanation, figures=figures[r.method]))
        parts.append(Part(r.method, anchor, _model_method_html(r, anchor)))
    return page_html(parts, title)
