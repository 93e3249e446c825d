"""``content_text``: the one way to read the text of a message's content (Pi's ``contentText``)."""

from __future__ import annotations

from pi_ai import ImageContent, TextContent, ThinkingContent, ToolCall, content_text


def test_string_content_is_its_own_text() -> None:
    assert content_text("as typed") == "as typed"
    assert content_text("as typed", "") == "as typed"


def test_only_text_blocks_count_and_are_joined_by_a_newline_by_default() -> None:
    content = [
        TextContent(text="a"),
        ImageContent(data="AAAA", mime_type="image/png"),
        ThinkingContent(thinking="hidden"),
        ToolCall(id="1", name="read", arguments={}),
        TextContent(text="b"),
    ]
    assert content_text(content) == "a\nb"
    assert content_text(content, "") == "ab"


def test_content_without_text_blocks_has_empty_text() -> None:
    assert content_text([]) == ""
    assert content_text([ImageContent(data="AAAA", mime_type="image/png")]) == ""
