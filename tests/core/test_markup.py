"""The allow-list audit finds every kind of live markup, and passes the report's own page."""

import pytest

from interp import Explanation, Formula, Table, Text
from interp.markup import audit
from interp.report import render_html

HOSTILE = {
    "<script>alert(1)</script>": "element <script>",
    '<img src=x onerror="alert(2)">': "attribute 'onerror'",
    '<a href="javascript:alert(3)">x</a>': "leaves the page",
    '<a href="https://example.com">x</a>': "leaves the page",
    '<svg onload="alert(4)"><circle/></svg>': "element <svg>",
    '<iframe src="data:text/html,x"></iframe>': "element <iframe>",
    '<math><mi xlink:href="javascript:x">a</mi></math>': "attribute 'xlink:href'",
    '<img src="data:image/svg+xml;base64,AAAA">': "not inline PNG data",
    "<body><style>*{}</style></body>": "<style> element outside <head>",
    '<p style="background:url(x)">a</p>': "attribute 'style'",
}


@pytest.mark.parametrize("markup", list(HOSTILE), ids=list(HOSTILE.values()))
def test_each_kind_of_live_markup_is_found(markup):
    problems = audit(markup)
    assert any(HOSTILE[markup] in p for p in problems), problems


def test_the_report_page_of_escaped_text_is_clean():
    exp = Explanation(method="m", sections=[Text("<script>x</script>"), Table(["<b>"], [["<img src=x>"]]),
                                            Formula("a + b", mathml="<mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow>")])
    assert audit(render_html([exp], "<title>")) == []


# -- clean_mathml: the only way a plugin's MathML reaches a page --------------------------------
from interp.markup import clean_mathml  # noqa: E402

SYMPY_STYLE = ('<mrow><mi>f(x)</mi><mo>=</mo><mfrac bevelled="true"><mn>1</mn><msup><mi>&ExponentialE;</mi>'
               '<mi>u</mi></msup></mfrac><mo>&InvisibleTimes;</mo><mspace width="1em"/><mmultiscripts><mi>F</mi>'
               '<mn>2</mn><none/><mprescripts/><mn>1</mn><none/></mmultiscripts>'
               '<mtable columnalign="left"><mtr><mtd columnalign="left" style="text-align: left"><mi>a</mi>'
               "</mtd></mtr></mtable></mrow>")


def test_presentation_mathml_is_kept_and_written_anew():
    cleaned = clean_mathml(SYMPY_STYLE)
    assert cleaned is not None and audit(f"<math>{cleaned}</math>") == []
    assert "<mi>\u2147</mi>" in cleaned and "<mo>\u2062</mo>" in cleaned  # entities decoded, then escaped text
    assert '<mspace width="1em"></mspace>' in cleaned and "<none></none><mprescripts></mprescripts>" in cleaned
    assert 'bevelled="true"' in cleaned and "style" not in cleaned  # a layout attribute kept, a style dropped
    assert clean_mathml(cleaned) == cleaned  # a fixed point


@pytest.mark.parametrize("fragment", [
    "<mi><script>alert(1)</script></mi>",  # the reproduction: a column name in an identifier
    "<mi>b<img src=x onerror=alert(2)></mi>",
    '<mi>a</mi><svg onload="alert(3)"></svg>',
    '<mrow><a href="javascript:alert(4)">x</a></mrow>',
    "<mi>a</mi></mrow>",  # a stray end tag
    "<mrow><mi>a</mi>",  # an element never closed
    "<mi>a</mi> b",  # text outside every element
    "<!DOCTYPE x><mi>a</mi>",
    "<![CDATA[<script>x</script>]]><mi>a</mi>",
    "<?xml version='1.0'?><mi>a</mi>",
    "<mrow></mrow>",  # empty after cleaning
    "",
    "a + b",  # plain text is not MathML
    "<semantics><mi>a</mi><annotation-xml encoding='text/html'><p>x</p></annotation-xml></semantics>",
])
def test_anything_but_allowed_mathml_gives_none(fragment):
    assert clean_mathml(fragment) is None


def test_attributes_are_kept_only_from_the_list_and_with_plain_values():
    cleaned = clean_mathml('<mi mathvariant="bold" onclick="alert(1)" href="javascript:x" xlink:href="#a" '
                           'width="javascript:alert(1)" mathsize="1.2em" class="x">a</mi>')
    assert cleaned == '<mi mathvariant="bold" mathsize="1.2em">a</mi>'


def test_text_is_escaped_whatever_it_decodes_to():
    cleaned = clean_mathml("<mi>&lt;script&gt;alert(1)&lt;/script&gt;</mi><mo>&amp;</mo><mi>\"'</mi>")
    assert cleaned == "<mi>&lt;script&gt;alert(1)&lt;/script&gt;</mi><mo>&amp;</mo><mi>&quot;&#x27;</mi>"


def test_the_report_shows_the_plain_formula_when_the_mathml_is_refused():
    exp = Explanation(method="m", sections=[Formula("f(x) = <script>", mathml="<mi><script>alert(1)</script></mi>")])
    page = render_html([exp], "t")
    assert audit(page) == [] and "<math" not in page and "f(x) = &lt;script&gt;" in page


def test_ids_and_links_are_made_from_names():
    exp = Explanation(method='x" onmouseover="alert(1)', plugin="p", sections=[Text("a")])
    page = render_html([exp, Explanation(method="x-onmouseover-alert-1", plugin="p")], "t")
    assert audit(page) == []
    assert '<section id="x-onmouseover-alert-1">' in page and '<section id="x-onmouseover-alert-1-2">' in page
    assert 'href="#x-onmouseover-alert-1-2"' in page


def test_names_that_would_read_as_other_names_are_shown_visibly_in_html():
    """A bidi override (``\\u202e`` reverses what follows), a zero-width space and a Cyrillic
    ``а`` inside a Latin word are escapes on the page and in a notebook display; a word in one
    script and the page's own markup are kept."""
    from interp.display import Display, display_html

    names = ["evil\u202egnp.exe", "pa\u200byment", "p\u0430ypal", "\u0412\u043e\u0437\u0440\u0430\u0441\u0442"]
    exp = Explanation(method="m", sections=[Table(["feature"], [[n] for n in names]), Text(names[2])])
    for page in (render_html([exp], names[0]), display_html(Display(names[2], exp.sections))):
        assert not any(c in page for c in ("\u202e", "\u200b", "p\u0430ypal")), page
        assert audit(page) == []
    page = render_html([exp], names[0])
    for shown in ("evil\\u202egnp.exe", "pa\\u200byment", "p\\u0430ypal", "\u0412\u043e\u0437\u0440\u0430\u0441\u0442"):
        assert f"<td>{shown}</td>" in page


def test_showing_look_alikes_takes_time_linear_in_the_page():
    """A 2 MB name beside a Cyrillic word: one pass (a pattern that backtracked over each word
    took 10 s on 20,000 characters)."""
    import time

    from interp.markup import visible_html

    page = "<td>" + "a" * 2_000_000 + "</td><td>p\u0430ypal</td>"
    start = time.perf_counter()
    assert visible_html(page).endswith("<td>p\\u0430ypal</td>")
    assert time.perf_counter() - start < 5
