"""One self-contained HTML page for several explanations: no network, plots inlined as PNG.

This module and ``interp.fragments`` (the sections and one explanation's section, which a
notebook also displays) are the only producers of HTML in interp, and the trust boundary for
it: every string from a method or from the data is escaped, ids and links are made from the
names (``anchors``), images are PNG data the core draws itself, and a ``Formula``'s MathML is
never inserted as given but written anew from the allow-lists of ``interp.markup``
(``clean_mathml``).  ``interp.markup.audit`` checks a page against the same lists.
"""

from __future__ import annotations

import html
import platform
from typing import Iterable

import attrs

from .fragments import anchors, body_html, explanation_html, internals_html, png_data, sections_html
from .markup import visible_html
from .results import Explanation


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
                     f'src="data:image/png;base64,{png_data(one.plot())}"></figure>')
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
            f'{png_data(plot_effects(curves, result.output_name))}"></figure>')


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
