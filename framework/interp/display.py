"""Notebook displays of fitted estimators: their typed sections through the report's renderer.

A plugin's estimator mixes in ``ExplainedEstimator`` and says what a fitted model reads as in
``_display()``: a ``Display`` of typed sections (``Text``, ``Table``, ``Formula``, ``Figure``),
usually the ones its ``render.py`` already builds for the method's explanation.  Jupyter (and
JupyterLab, VS Code, Colab, nbviewer) then shows the fitted model as static HTML, from
``interp.fragments.sections_html``, the renderer of the HTML report: every string escaped, plots
inline PNG, no script.  ``text/plain`` is the same sections as the terminal prints them.  An
unfitted estimator keeps scikit-learn's own display.
"""

from __future__ import annotations

import html

import attrs
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from .markup import visible_html
from .sections import Table, _sections, render_sections
from .terminal import visible

__all__ = ["Display", "ExplainedEstimator", "display_html", "display_text"]


@attrs.frozen
class Display:
    """What a fitted estimator shows: a ``title``, typed ``sections`` and the matplotlib
    ``figures`` they name (``Figure`` sections)."""

    title: str
    sections: tuple = attrs.field(converter=_sections)
    figures: dict = attrs.field(factory=dict)

    def _repr_html_(self) -> str:
        return display_html(self)

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(display_text(self))


def _parameters(estimator) -> Table:
    """The estimator's parameters (``get_params``, not nested) as a table of their reprs."""
    params = estimator.get_params(deep=False)
    return Table(("parameter", "value"), [(name, repr(value)) for name, value in sorted(params.items())])


def display_html(display: Display, estimator=None) -> str:
    """``display`` as an HTML fragment: the title, the sections (``interp.fragments.sections_html``)
    and, for an ``estimator``, its parameters folded away (a ``<details>`` element)."""
    from .fragments import sections_html

    parts = [f'<div class="interp-display"><h3>{html.escape(display.title)}</h3>',
             sections_html(display.sections, display.figures)]
    if estimator is not None:
        parts.append("<details><summary>parameters</summary>" + sections_html((_parameters(estimator),), {})
                     + "</details>")
    parts.append("</div>")
    return visible_html("\n".join(parts))  # what would make a name read as another, shown visibly


def display_text(display: Display) -> str:
    """``display`` as plain text: the title, then the sections as the terminal shows them (a
    notebook's text output acts on ANSI escapes as a terminal does: control characters visible)."""
    return f"{visible(display.title, one_line=True)}\n\n{render_sections(display.sections)}"


def is_fitted(estimator) -> bool:
    """Whether scikit-learn considers ``estimator`` fitted."""
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return False
    return True


class ExplainedEstimator:
    """Mixin (before ``BaseEstimator``) for an estimator whose fitted model reads as sections.

    The estimator defines ``_display() -> Display``; a fitted one is then shown in a notebook as
    that display (``_repr_html_``, ``_repr_mimebundle_``), an unfitted one as scikit-learn shows it.
    """

    def _display(self) -> Display:
        raise NotImplementedError(f"{type(self).__name__} does not say how it is displayed")

    @property
    def _repr_html_(self):
        if not is_fitted(self):
            return super()._repr_html_
        return self._explained_html

    def _explained_html(self) -> str:
        return display_html(self._display(), self)

    def _repr_mimebundle_(self, **kwargs):
        if not is_fitted(self):
            return super()._repr_mimebundle_(**kwargs)
        display = self._display()
        return {"text/plain": f"{self!r}\n{display_text(display)}", "text/html": display_html(display, self)}
