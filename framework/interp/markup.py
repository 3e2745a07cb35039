"""The allow-lists of the markup interp writes, and an audit that checks a page against them.

Every HTML page or fragment interp produces (the report, notebook displays) may hold only the
elements and attributes listed here: the report's own HTML and presentation MathML.  Links point
inside the page (``#name``), images are inline PNG data, and no attribute is an event handler.
``audit(markup)`` lists every departure from that, so a test (or a user) can check any page,
whatever produced it.
"""

from __future__ import annotations

from html.parser import HTMLParser

#: HTML elements the report and the notebook displays use
HTML_ELEMENTS = frozenset({
    "html", "head", "meta", "title", "style", "body", "header", "footer", "nav", "main", "section", "div",
    "span", "p", "h1", "h2", "h3", "h4", "a", "table", "thead", "tbody", "tr", "th", "td", "caption", "pre",
    "code", "b", "strong", "em", "small", "ul", "ol", "li", "figure", "figcaption", "img", "br", "details",
    "summary",
})
#: HTML attributes, each allowed on any allowed HTML element (``href`` and ``src`` are checked further)
HTML_ATTRIBUTES = frozenset({"id", "class", "href", "src", "alt", "charset", "lang", "title", "colspan", "rowspan"})

#: presentation MathML elements (MathML Core and the parts of MathML 3 that sympy's printer emits)
MATHML_ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup", "mfrac", "msqrt",
    "mroot", "mfenced", "mstyle", "mpadded", "mphantom", "menclose", "mover", "munder", "munderover",
    "mtable", "mtr", "mtd", "semantics",
})
#: presentation MathML attributes (layout only: no links, no scripts, no styles)
MATHML_ATTRIBUTES = frozenset({
    "display", "mathvariant", "mathsize", "fence", "separator", "separators", "stretchy", "symmetric",
    "largeop", "movablelimits", "accent", "accentunder", "form", "lspace", "rspace", "open", "close",
    "linethickness", "columnalign", "rowalign", "columnspacing", "rowspacing", "notation", "scriptlevel",
    "displaystyle", "width", "height", "depth", "align", "xmlns",
})

#: the one kind of image source a page may hold
IMAGE_PREFIX = "data:image/png;base64,"


class _Auditor(HTMLParser):
    """Collects every element, attribute and URL that the allow-lists do not admit."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._check_element(tag)
        for name, value in attrs:
            self._check_attribute(tag, name, value or "")
        if tag not in {"meta", "img", "br", "mspace"}:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._check_element(tag)
        for name, value in attrs:
            self._check_attribute(tag, name, value or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open and self.open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1] == "style" and "head" not in self.open:
            self.problems.append("a <style> element outside <head>")

    def handle_pi(self, data: str) -> None:
        self.problems.append(f"a processing instruction <?{data[:40]}>")

    def unknown_decl(self, data: str) -> None:
        self.problems.append(f"a declaration <![{data[:40]}>")

    def _check_element(self, tag: str) -> None:
        if tag not in HTML_ELEMENTS and tag not in MATHML_ELEMENTS:
            self.problems.append(f"element <{tag}> is not allowed")
        if tag == "style" and "head" not in self.open:
            self.problems.append("a <style> element outside <head>")

    def _check_attribute(self, tag: str, name: str, value: str) -> None:
        allowed = MATHML_ATTRIBUTES if tag in MATHML_ELEMENTS else HTML_ATTRIBUTES
        if name.startswith("on") or name not in allowed:
            self.problems.append(f"attribute {name!r} on <{tag}> is not allowed")
        elif name == "href" and not value.startswith("#"):
            self.problems.append(f"link {value[:60]!r} on <{tag}> leaves the page")
        elif name == "src" and not (tag == "img" and value.startswith(IMAGE_PREFIX)):
            self.problems.append(f"source {value[:60]!r} on <{tag}> is not inline PNG data")
        elif "javascript:" in value.replace(" ", "").lower():
            self.problems.append(f"attribute {name!r} on <{tag}> holds a javascript: URL")


def audit(markup: str) -> list[str]:
    """Every element, attribute or URL in ``markup`` that the allow-lists do not admit (empty
    when the markup is clean)."""
    auditor = _Auditor()
    auditor.feed(markup)
    auditor.close()
    return auditor.problems
