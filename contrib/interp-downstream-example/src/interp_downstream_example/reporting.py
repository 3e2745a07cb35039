"""The reporter catalogue: a component type of this library, filled by its own hook.

``Reporter`` subclasses ``interp.Component``, so a reporter is validated, frozen and labelled
with the plugin that registered it exactly like interp's own components, and
``interp.registry.collect`` builds the catalogue from the ``register_reporters`` hook (see
``hookspecs.py``) with interp's isolation of broken plugins and its duplicate-name check.
"""

from __future__ import annotations

from typing import Callable

import interp
from interp.registry import Catalogue
from interp.results import format_value


class Reporter(interp.Component):
    """Renders an ``interp.Explanation`` as a document: ``render(explanation) -> str``."""

    kind = "reporter"
    render: Callable | None = None  # a method of a subclass, or Reporter(name, render=callable)

    def validate(self) -> None:
        if not self.provides("render"):
            self.fail("render must be callable")


def reporters() -> Catalogue:
    """Every reporter the loaded plugins registered, by name."""
    hook = getattr(interp.plugin_manager().hook, "register_reporters", None)
    if hook is None or not hook.has_spec():
        raise interp.PluginError("no plugin adds the register_reporters hook: is the 'downstream' plugin "
                                 "disabled? (see interp plugins)")
    return interp.registry.collect("register_reporters", Reporter, "reporter")


class MarkdownReporter(Reporter):
    """Markdown: a heading, the metrics as a table, then each section of the explanation."""

    name = "markdown"

    def render(self, explanation: interp.Explanation) -> str:
        blocks = [f"# {explanation.method or explanation.plugin}"]
        if explanation.metrics:
            blocks.append(_markdown_table(("metric", "value"), explanation.metrics.items()))
        for section in explanation.sections:
            heading = f"## {section.title}\n\n" if section.title else ""
            blocks.append(heading + _markdown_section(section))
        if not explanation.sections and explanation.text:
            blocks.append(f"```\n{explanation.text}\n```")
        return "\n\n".join(blocks) + "\n"


def _markdown_section(section) -> str:
    if isinstance(section, interp.Table):
        return _markdown_table(section.columns, section.rows)
    if isinstance(section, interp.Formula):
        return f"$${section.latex}$$" if section.latex else f"`{section.text}`"
    if isinstance(section, interp.Figure):
        return f"![{section.title or section.name}]({section.name}.png)"
    return f"```\n{section.render_text()}\n```"


def _markdown_table(columns, rows) -> str:
    lines = ["| " + " | ".join(map(str, columns)) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(format_value(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
