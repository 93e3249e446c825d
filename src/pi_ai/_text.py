"""The text of a message's content (Pi's ``contentText``, ``utils/text.ts``)."""

from __future__ import annotations

from collections.abc import Sequence

from pi_ai._messages import TextContent


def content_text(content: str | Sequence[object], separator: str = "\n") -> str:
    """The text of a message's content: the string itself, or its text blocks joined by ``separator``.

    Only ``TextContent`` blocks count: thinking, tool calls and images add nothing, not even a
    separator, so ``[text "a", image, text "b"]`` gives ``"a\\nb"``. Pi's default separator is a
    newline; callers that glue a user's text back together (as typed) pass ``""``.
    """
    if isinstance(content, str):
        return content
    return separator.join(block.text for block in content if isinstance(block, TextContent))
