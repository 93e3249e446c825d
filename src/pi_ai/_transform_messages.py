"""Cross-provider replay: make a stored conversation acceptable to the model about to be called.

Every wire adapter runs the history through ``transform_messages`` before converting it:

- images become placeholder text when the target model cannot see them (a run of images
  becomes one placeholder);
- assistant turns from another model (provider, API or model id differs) lose what only
  their producer can read: thinking (readable, redacted or signed) and signatures are
  dropped, tool-call ids are rewritten by the adapter's ``normalize_tool_call_id`` (and
  the matching tool results follow the new ids);
- assistant turns that ended in ``error`` or ``aborted`` are not replayed;
- a tool call left without a result gets a synthetic error result (``"No result
  provided"``) placed before the message that interrupted it.

The input list and its messages are never modified; changed messages are copies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload

import msgspec

from pi_ai._event_stream import now_ms
from pi_ai._messages import (
    AssistantMessage,
    ContextMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_ai._model import Model
from pi_ai.js_json import js_trim

__all__ = ["NO_RESULT_PROVIDED", "NormalizeToolCallId", "transform_messages"]

NormalizeToolCallId = Callable[[str, Model, AssistantMessage], str]
"""``(id, target model, source message) -> id`` acceptable to the target API."""

USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"
TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)"
NO_RESULT_PROVIDED = "No result provided"


def _without_images(
    content: Sequence[TextContent | ImageContent], placeholder: str
) -> list[TextContent | ImageContent]:
    result: list[TextContent | ImageContent] = []
    previous_was_placeholder = False
    for block in content:
        if isinstance(block, ImageContent):
            if not previous_was_placeholder:
                result.append(TextContent(text=placeholder))
            previous_was_placeholder = True
            continue
        result.append(block)
        previous_was_placeholder = block.text == placeholder
    return result


def _downgrade_images(messages: Sequence[ContextMessage], model: Model) -> list[ContextMessage]:
    if "image" in model.input:
        return list(messages)
    out: list[ContextMessage] = []
    for message in messages:
        content = message.content if isinstance(message, UserMessage | ToolResultMessage) else None
        if content is None or isinstance(content, str) or not any(isinstance(b, ImageContent) for b in content):
            out.append(message)  # nothing to replace: the message itself, not a copy
            continue
        placeholder = USER_IMAGE_PLACEHOLDER if isinstance(message, UserMessage) else TOOL_IMAGE_PLACEHOLDER
        out.append(msgspec.structs.replace(message, content=_without_images(content, placeholder)))
    return out


def _is_same_model(message: AssistantMessage, model: Model) -> bool:
    return message.provider == model.provider and message.api == model.api and message.model == model.id


def _transform_assistant(
    message: AssistantMessage,
    model: Model,
    normalize: NormalizeToolCallId | None,
    renamed: dict[str, str],
) -> AssistantMessage:
    same = _is_same_model(message, model)
    content: list[TextContent | ThinkingContent | ToolCall] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            # Another model's thinking is dropped (Pi 1.6; 0.85 replayed it as text, which the
            # new model read as part of the visible reply: docs/pi-1.6/models.md).
            if not same:
                continue
            if block.redacted or block.thinking_signature or (block.thinking and js_trim(block.thinking)):
                content.append(block)
        elif isinstance(block, TextContent):
            content.append(block if same else TextContent(text=block.text))
        else:
            call = block
            if not same and call.thought_signature:
                call = msgspec.structs.replace(call, thought_signature=None)
            if not same and normalize is not None:
                new_id = normalize(call.id, model, message)
                if new_id != call.id:
                    renamed[call.id] = new_id
                    call = msgspec.structs.replace(call, id=new_id)
            content.append(call)
    if same and len(content) == len(message.content):
        return message  # every block kept as it was: no copy (bench/request_build.py)
    return msgspec.structs.replace(message, content=content)


@overload
def transform_messages(
    messages: Sequence[Message], model: Model, normalize_tool_call_id: NormalizeToolCallId | None = None
) -> list[Message]: ...
@overload
def transform_messages(
    messages: Sequence[ContextMessage], model: Model, normalize_tool_call_id: NormalizeToolCallId | None = None
) -> list[ContextMessage]: ...
def transform_messages(
    messages: Sequence[ContextMessage], model: Model, normalize_tool_call_id: NormalizeToolCallId | None = None
) -> list[Any]:
    """The history as ``model`` (reached through ``model.api``) should be sent it. System messages
    pass through (like a user message, they close a run of unanswered tool calls)."""
    renamed: dict[str, str] = {}
    transformed: list[ContextMessage] = []
    for message in _downgrade_images(messages, model):
        if isinstance(message, AssistantMessage):
            transformed.append(_transform_assistant(message, model, normalize_tool_call_id, renamed))
        elif isinstance(message, ToolResultMessage):
            new_id = renamed.get(message.tool_call_id)
            if new_id and new_id != message.tool_call_id:
                transformed.append(msgspec.structs.replace(message, tool_call_id=new_id))
            else:
                transformed.append(message)
        else:
            transformed.append(message)

    result: list[ContextMessage] = []
    pending: list[ToolCall] = []
    answered: set[str] = set()

    def answer_orphans() -> None:
        nonlocal pending, answered
        for call in pending:
            if call.id not in answered:
                result.append(
                    ToolResultMessage(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        content=[TextContent(text=NO_RESULT_PROVIDED)],
                        is_error=True,
                        timestamp=now_ms(),
                    )
                )
        pending = []
        answered = set()

    for message in transformed:
        if isinstance(message, AssistantMessage):
            answer_orphans()
            if message.stop_reason in ("error", "aborted"):
                continue
            calls = [block for block in message.content if isinstance(block, ToolCall)]
            if calls:
                pending = calls
                answered = set()
            result.append(message)
        elif isinstance(message, ToolResultMessage):
            answered.add(message.tool_call_id)
            result.append(message)
        else:
            answer_orphans()
            result.append(message)
    answer_orphans()
    return result
