"""The export's shortcut for prose without Markdown gives exactly what markdown-it renders."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_coding_agent.core.export._markdown import _PARSER, _plain_html, markdown_html

PROSE = st.text(alphabet="ab1 ,.;:'\"?!()/%-\n", max_size=60)
"""The shortcut's characters, dense in the ones that start Markdown at a line's start."""
ANY = st.text(alphabet="ab1 -*_`#>|[]()<>&~=+.\n\t!\\", max_size=40)


@settings(max_examples=2000, deadline=None)
@given(PROSE)
def test_the_shortcut_renders_prose_as_markdown_it_does(text: str) -> None:
    plain = _plain_html(text)
    if plain is not None:
        assert plain == _PARSER.render(text)
    assert markdown_html(text) == _PARSER.render(text)


@settings(max_examples=1000, deadline=None)
@given(ANY)
def test_markdown_is_rendered_as_markdown_it_does(text: str) -> None:
    assert markdown_html(text) == _PARSER.render(text)


def test_prose_takes_the_shortcut_and_markdown_does_not() -> None:
    assert _plain_html("Plain words, (and) 'quotes'.\n  next line  \n\n  A second one.") == (
        "<p>Plain words, (and) 'quotes'.<br />\nnext line</p>\n<p>A second one.</p>\n"
    )
    for markdown in ("- item", "1. item", "a\n---", "    code", "**bold**", "a & b", "`x`"):
        assert _plain_html(markdown) is None, markdown
