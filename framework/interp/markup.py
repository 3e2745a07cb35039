"""The allow-lists of the markup interp writes, and an audit that checks a page against them.

Every HTML page or fragment interp produces (the report, notebook displays) may hold only the
elements and attributes listed here: the report's own HTML and presentation MathML.  Links point
inside the page (``#name``), images are inline PNG data, and no attribute is an event handler.
``audit(markup)`` lists every departure from that, so a test (or a user) can check any page,
whatever produced it.

MathML is the one kind of markup a plugin hands the core (a ``Formula``'s ``mathml``), and the
core never inserts it as given: ``clean_mathml`` parses it and writes it anew from the
allow-lists, every text node escaped, or gives None (the plain-text formula is shown instead)
when it holds anything else.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

#: HTML elements the report and the notebook displays use
HTML_ELEMENTS = frozenset({
    "html", "head", "meta", "title", "style", "body", "header", "footer", "nav", "main", "section", "div",
    "span", "p", "h1", "h2", "h3", "h4", "a", "table", "thead", "tbody", "tr", "th", "td", "caption", "pre",
    "code", "b", "strong", "em", "small", "ul", "ol", "li", "figure", "figcaption", "img", "br", "wbr",
    "details", "summary",
})
#: HTML attributes, each allowed on any allowed HTML element (``href`` and ``src`` are checked further)
HTML_ATTRIBUTES = frozenset({"id", "class", "href", "src", "alt", "charset", "lang", "title", "colspan", "rowspan"})

#: presentation MathML elements (MathML Core and the parts of MathML 3 that sympy's printer emits)
MATHML_ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup", "mfrac", "msqrt",
    "mroot", "mfenced", "mstyle", "mpadded", "mphantom", "menclose", "mover", "munder", "munderover",
    "mtable", "mtr", "mtd", "semantics", "mmultiscripts", "mprescripts", "none",
})
#: presentation MathML attributes (layout only: no links, no scripts, no styles)
MATHML_ATTRIBUTES = frozenset({
    "display", "mathvariant", "mathsize", "fence", "separator", "separators", "stretchy", "symmetric",
    "largeop", "movablelimits", "accent", "accentunder", "form", "lspace", "rspace", "open", "close",
    "linethickness", "columnalign", "rowalign", "columnspacing", "rowspacing", "notation", "scriptlevel",
    "displaystyle", "width", "height", "depth", "align", "xmlns", "bevelled",
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
        if tag not in {"meta", "img", "br", "wbr", "mspace"}:
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


#: an attribute value ``clean_mathml`` keeps: words, numbers, lengths and separators (no URL)
_PLAIN_VALUE = re.compile(r"[\w .,;%#+\-]*")


class _MathMLCleaner(HTMLParser):
    """Writes presentation MathML anew from the allow-lists (``parts``), and notes whether the
    input was anything else (``broken``): an element not on the list, a stray or missing end
    tag, text outside every element, a declaration or processing instruction."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.open: list[str] = []
        self.broken = False
        self.has_text = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in MATHML_ELEMENTS and tag != "math":
            self.broken = True
            return
        self.open.append(tag)
        if tag != "math":  # the caller writes the one <math> around the fragment
            kept = "".join(f' {name}="{html.escape(value or "")}"' for name, value in attrs
                           if name in MATHML_ATTRIBUTES and name != "xmlns"
                           and _PLAIN_VALUE.fullmatch(value or ""))
            self.parts.append(f"<{tag}{kept}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if not self.broken:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.broken = True
            return
        self.open.pop()
        if tag != "math":
            self.parts.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not data.strip():
            return
        if not self.open:
            self.broken = True
        self.has_text = True
        self.parts.append(html.escape(data))

    def handle_decl(self, decl: str) -> None:
        self.broken = True

    def handle_pi(self, data: str) -> None:
        self.broken = True

    def unknown_decl(self, data: str) -> None:
        self.broken = True


def clean_mathml(fragment: str) -> str | None:
    """``fragment`` (presentation MathML, with or without its ``<math>`` element) written anew
    from the allow-lists: its elements, the allowed attributes with plain values (any other
    attribute is dropped), every text node escaped.  None when it is empty or not well formed,
    or holds an element or text the allow-lists do not admit: the caller then shows the plain
    formula, never part of this one."""
    cleaner = _MathMLCleaner()
    cleaner.feed(fragment)
    cleaner.close()
    if cleaner.broken or cleaner.open or not cleaner.has_text:
        return None
    return "".join(cleaner.parts)


#: characters no one sees: zero-width spaces and joiners, the word joiner, the byte-order mark
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff]")
#: Greek and Cyrillic letters (some look like Latin ones: "а", "ο")
_LOOKALIKE = re.compile("[\u0370-\u04ff]")
_LATIN_LETTER = re.compile("[A-Za-z]")
_WORD = re.compile(r"\w+")


def _unmixed(match: re.Match) -> str:
    """A word mixing Latin letters with Greek or Cyrillic ones, those shown as escapes
    (``p\\u0430ypal``); a word in one script as it is."""
    word = match.group()
    if not _LOOKALIKE.search(word) or not _LATIN_LETTER.search(word):
        return word
    return _LOOKALIKE.sub(lambda m: f"\\u{ord(m.group()):04x}", word)


def visible_html(markup: str) -> str:
    """``markup`` (a page or fragment interp wrote, its text escaped) with the characters that
    would make a name read as another shown as visible escapes: control and bidirectional
    characters (``interp.terminal.visible``: ``\\u202e`` would reverse what follows), the
    invisible ones, and the Greek or Cyrillic letters of a word that mixes them with Latin
    ones (``p\\u0430ypal``, not ``paypal``).  None of them is markup, so the markup is kept."""
    from .terminal import visible

    shown = visible(_INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", markup))
    return _WORD.sub(_unmixed, shown) if _LOOKALIKE.search(shown) else shown  # linear in the page
