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
