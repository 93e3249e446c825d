"""From the coding agent's transcript to what a model may see.

``convert_to_llm`` is Pi's ``convertToLlm``: built-in messages pass through as the same
objects, each registered role goes through its projection (the coding agent's four roles
are bound in ``_roles``), and anything without a projection is dropped. ``block_images``
is the wrapper Pi's agent applies when the ``images.blockImages`` setting is on.
Nothing here mutates its input.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

from pi_agent import AgentMessage, project_to_llm
from pi_ai import ContextMessage, ImageContent, SystemMessage, TextContent, ToolResultMessage, UserMessage
from pi_coding_agent.core.messages._roles import (
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomRoleMessage,
)
from pi_coding_agent.core.messages._time import iso_to_ms

IMAGE_BLOCKED_TEXT = "Image reading is disabled."


def convert_to_llm(
    messages: Iterable[AgentMessage], *, block_images: bool = False, system_messages: bool = False
) -> list[ContextMessage]:
    """Project an agent transcript to LLM messages, in order.

    ``bashExecution`` runs marked ``exclude_from_context`` are dropped here and only here;
    ``custom`` messages are sent whatever their ``display`` flag. With ``block_images``,
    images in user and tool-result messages become a text placeholder. ``system`` messages are
    left out, unless ``system_messages``: then each stays where it stands, the same object
    (for a model that takes them mid-conversation, Pi 1.6's ``convertToLlm``; the request's
    prompt and tools then come from them, see ``pi_ai.prepare_context``).
    """
    converted: list[ContextMessage]
    if not system_messages:
        converted = list(project_to_llm(messages))
    else:
        converted = _with_system_messages(list(messages))
    return replace_images(converted) if block_images else converted


def _with_system_messages(messages: list[AgentMessage]) -> list[ContextMessage]:
    """The projection with each ``system`` message kept in place (the runs between them are
    projected as usual)."""
    result: list[ContextMessage] = []
    start = 0
    for index, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            result += project_to_llm(messages[start:index])
            result.append(message)
            start = index + 1
    result += project_to_llm(messages[start:])
    return result


def converter(
    block_images: Callable[[], bool], system_messages: Callable[[], bool] = lambda: False
) -> Callable[[Sequence[AgentMessage]], list[ContextMessage]]:
    """A ``convert_to_llm`` hook that reads the settings on every call, as Pi's agent does."""

    def convert(messages: Sequence[AgentMessage]) -> list[ContextMessage]:
        return convert_to_llm(messages, block_images=block_images(), system_messages=system_messages())

    return convert


def replace_images(messages: Iterable[ContextMessage]) -> list[ContextMessage]:
    """Replace image blocks of user and tool-result messages with a text placeholder.

    A placeholder directly after another placeholder (in the replaced list) is dropped, so
    a run of images collapses to one notice. Messages without images are returned as is;
    the others are copies. System messages are kept as they are.
    """
    result: list[ContextMessage] = []
    for message in messages:
        content = message.content
        if (
            isinstance(message, UserMessage | ToolResultMessage)
            and isinstance(content, list)
            and any(isinstance(block, ImageContent) for block in content)
        ):
            mapped = [
                TextContent(text=IMAGE_BLOCKED_TEXT) if isinstance(block, ImageContent) else block
                for block in content
            ]
            kept = [
                block
                for index, block in enumerate(mapped)
                if not (index > 0 and _is_placeholder(block) and _is_placeholder(mapped[index - 1]))
            ]
            result.append(_replace_content(message, kept))
        else:
            result.append(message)
    return result


def _is_placeholder(block: Any) -> bool:
    return isinstance(block, TextContent) and block.text == IMAGE_BLOCKED_TEXT


def _replace_content(message: UserMessage | ToolResultMessage, content: list[Any]) -> ContextMessage:
    copy = msgspec.structs.replace(message, content=content)
    # Unknown keys the message was read with live in the instance dict; keep them.
    copy.__dict__.update(message.__dict__)
    return copy


def create_branch_summary_message(summary: str, from_id: str | None, timestamp: str) -> BranchSummaryMessage:
    """The message a ``branch_summary`` entry becomes (``timestamp``: the entry's ISO time)."""
    return BranchSummaryMessage(summary=summary, from_id=from_id, timestamp=_entry_ms(timestamp))


def create_compaction_summary_message(
    summary: str, tokens_before: int, timestamp: str
) -> CompactionSummaryMessage:
    """The message a ``compaction`` entry becomes (``timestamp``: the entry's ISO time)."""
    return CompactionSummaryMessage(
        summary=summary, tokens_before=tokens_before, timestamp=_entry_ms(timestamp)
    )


def create_custom_message(
    custom_type: str,
    content: str | list[TextContent | ImageContent],
    display: bool,
    details: Any,
    timestamp: str,
) -> CustomRoleMessage:
    """The message a ``custom_message`` entry becomes. ``details`` may be ``msgspec.UNSET``."""
    return CustomRoleMessage(
        custom_type=custom_type,
        content=content,
        display=display,
        details=details,
        timestamp=_entry_ms(timestamp),
    )


def _entry_ms(timestamp: str) -> int:
    """Entry ISO time in milliseconds. An unparsable time (JavaScript's NaN) becomes 0."""
    ms = iso_to_ms(timestamp)
    return 0 if ms is None else ms
