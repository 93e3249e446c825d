"""The normalized message model shared by every provider.

Each class is a ``msgspec.Struct`` whose attributes are snake_case and whose JSON keys are
Pi's camelCase keys, in the order Pi's own producers write them. Optional fields default to
``None`` (or ``UNSET`` where JSON ``null`` is a meaningful value) and are omitted on encode.
Unknown keys found while decoding are kept beside the struct (see ``_codec``) so a message
read from disk is written back unchanged.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeAlias

import msgspec
from msgspec import UNSET, UnsetType

StopReason: TypeAlias = Literal["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]
"""Why an assistant message ended. ``pending`` only appears on streaming partials."""

STOP_REASONS: tuple[str, ...] = ("pending", "stop", "length", "toolUse", "error", "aborted", "deferred")


class WireStruct(
    msgspec.Struct,
    kw_only=True,
    omit_defaults=True,
    rename="camel",
    forbid_unknown_fields=True,
    dict=True,
):
    """Base of every struct that crosses a wire or a file.

    ``forbid_unknown_fields`` makes the fast decoder refuse unknown keys; the codec then
    falls back to a slower path that keeps them (``dict=True`` gives each instance a
    ``__dict__`` to hold them without turning them into fields).
    """

    lenient_decoding: ClassVar[bool] = False
    """Read as Pi reads it (messages): Pi validates nothing, so a message that lacks a field
    Pi never requires (``api``, ``timestamp``, a flag), has ``null`` where a flag or text
    belongs, or a ``stopReason`` Pi 0.85 does not know, is still that message. The codec
    gives a missing or ``null`` field a stand-in (``""``, ``0``, ``False``, ``[]``) and
    writes the key back as it was (absent, or ``null``); an unknown literal string is kept
    as the attribute's value. Anything else that does not validate still raises."""


# --------------------------------------------------------------------------- content blocks


class TextContent(WireStruct, tag_field="type", tag="text", kw_only=True):
    type: ClassVar[Literal["text"]] = "text"
    text: str
    text_signature: str | None = None


class ThinkingContent(WireStruct, tag_field="type", tag="thinking", kw_only=True):
    type: ClassVar[Literal["thinking"]] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class ImageContent(WireStruct, tag_field="type", tag="image", kw_only=True):
    type: ClassVar[Literal["image"]] = "image"
    data: str
    """Base64 payload without a ``data:`` prefix."""
    mime_type: str


class ToolCall(WireStruct, tag_field="type", tag="toolCall", kw_only=True):
    type: ClassVar[Literal["toolCall"]] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any]
    thought_signature: str | None = None
    namespace: str | None = None
    arguments_error: str | None = None
    """Pi 1.6: why the finished call's argument text is not a JSON object (``arguments`` is
    then ``{}``); the agent answers such a call with an error result naming it."""


UserContentBlock: TypeAlias = TextContent | ImageContent
AssistantContentBlock: TypeAlias = TextContent | ThinkingContent | ToolCall
ContentBlock: TypeAlias = TextContent | ThinkingContent | ImageContent | ToolCall


# --------------------------------------------------------------------------- usage


class _AbsentCount(int):
    """The zero a count holds when its key was absent (old session files lack some).

    It is ``0`` in every computation and is written as ``0`` for a usage built here (Pi
    always writes every count), but a usage read from JSON without the key is written
    without it again: the codec notes which keys were absent (see ``_codec``), so an old
    file's messages are not given counts they never had.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "0"


ABSENT_COUNT = _AbsentCount(0)
"""The default of every ``Usage`` and ``UsageCost`` count (compared by identity)."""


class _CountStruct(msgspec.Struct, kw_only=True, rename="camel", forbid_unknown_fields=True, dict=True):
    """Like ``WireStruct`` but zero counts are written: Pi always writes every count."""


class UsageCost(_CountStruct, kw_only=True):
    """Dollar cost of one response, split like ``Usage``."""

    input: int | float = ABSENT_COUNT
    output: int | float = ABSENT_COUNT
    cache_read: int | float = ABSENT_COUNT
    cache_write: int | float = ABSENT_COUNT
    total: int | float = ABSENT_COUNT
    total_from_provider: bool | UnsetType = UNSET
    """Pi 1.6: ``false`` once the total was priced from the catalog, ``true`` when it is the
    amount the provider billed (OpenRouter, ``pi_ai.api.apply_openrouter_cost``); absent on
    a usage nothing priced (a pending message, files of Pi 0.85)."""


def _zero_cost() -> UsageCost:
    return UsageCost()


class Usage(_CountStruct, kw_only=True):
    """Token counts of one response.

    ``input`` excludes cached prompt tokens; ``output`` includes reasoning tokens.
    ``reasoning`` and ``cache_write_1h`` exist only for providers that report them.
    """

    input: int = ABSENT_COUNT
    output: int = ABSENT_COUNT
    cache_read: int = ABSENT_COUNT
    cache_write: int = ABSENT_COUNT
    reasoning: int | UnsetType = UNSET
    total_tokens: int = ABSENT_COUNT
    cost: UsageCost = msgspec.field(default_factory=_zero_cost)
    cache_write_1h: int | UnsetType = msgspec.field(default=UNSET, name="cacheWrite1h")


def _zero_usage() -> Usage:
    return Usage()


class DiagnosticError(WireStruct, kw_only=True):
    """The error a diagnostic records, in Pi's shape (its ``extractDiagnosticError``). Ours carry
    no ``stack`` (a Python traceback names this machine's files and is no part of the wire);
    one read from a file Pi wrote keeps its own."""

    name: str | None = None
    message: str
    stack: str | None = None
    code: str | int | None = None

    @classmethod
    def of(cls, error: BaseException, name: str = "Error", code: str | int | None = None) -> DiagnosticError:
        """``error`` as Pi records a thrown ``Error`` (or the subclass ``name``)."""
        return cls(name=name, message=str(error) or name, code=code)


class Diagnostic(WireStruct, kw_only=True):
    type: str
    timestamp: int
    error: DiagnosticError | str | None = None
    """Pi's object; a plain text is read too (what earlier versions of this package wrote)."""
    details: Any | UnsetType = UNSET


class DeferredHandle(WireStruct, kw_only=True):
    """Handle of an accepted asynchronous (batch) request."""

    provider: str
    model_id: str
    api: str
    id: str
    poll_after_ms: int | None = None


# --------------------------------------------------------------------------- messages


class UserMessage(WireStruct, tag_field="role", tag="user", kw_only=True):
    role: ClassVar[Literal["user"]] = "user"
    lenient_decoding: ClassVar[bool] = True
    content: str | list[TextContent | ImageContent]
    timestamp: int


class AssistantMessage(WireStruct, tag_field="role", tag="assistant", kw_only=True):
    role: ClassVar[Literal["assistant"]] = "assistant"
    lenient_decoding: ClassVar[bool] = True
    content: list[TextContent | ThinkingContent | ToolCall]
    api: str
    provider: str
    model: str
    usage: Usage = msgspec.field(default_factory=_zero_usage)
    stop_reason: StopReason
    timestamp: int
    response_id: str | None = None
    response_model: str | None = None
    provider_thinking_level: str | None = None
    diagnostics: list[Diagnostic] | None = None
    deferred: DeferredHandle | None = None
    raw_stop_reason: str | None = None
    error_message: str | None = None
    end_turn: bool | None = None
    duration_ms: int | None = None
    """Pi 1.6: whole milliseconds from the request to the final message (a monotonic clock),
    set by ``AssistantMessageEventStream`` when the answer ends."""
    thinking_level: str | None = None
    """Pi 1.6: the thinking level the agent asked for (``"off"`` when none), set by the agent
    loop on the final message."""


class ToolResultMessage(WireStruct, tag_field="role", tag="toolResult", kw_only=True):
    role: ClassVar[Literal["toolResult"]] = "toolResult"
    lenient_decoding: ClassVar[bool] = True
    tool_call_id: str
    tool_name: str
    content: list[TextContent | ImageContent]
    details: Any | UnsetType = UNSET
    """Application data for UIs and storage; never sent to a model."""
    usage: Usage | None = None
    added_tool_names: list[str] | None = None
    is_error: bool
    duration_ms: int | None = None
    """Pi 1.6: whole milliseconds the tool's ``execute`` ran (absent when it did not run)."""
    timestamp: int
    nested_calls: dict[str, Any] | None = None
    """The calls the tool made to other tools (``codemode`` scripts), as Pi 1.6 records them:
    ``{"calls": [{id, name, status, arguments?, durationMs?, error?}], "complete": bool}``,
    never their results. Never sent to a model."""


class SystemMessage(WireStruct, tag_field="role", tag="system", kw_only=True):
    """A prompt and tool declaration, or a patch of them, among a context's messages (Pi 1.6).

    The first one of a transcript states the prompt (free ``content`` and named ``sections``)
    and every tool (``tools_added``, declarations as dicts); later ones patch sections by name
    (``None`` removes one), append ``content``, and add or remove tools. A model whose compat has
    ``supportsMidConvoSystemMessages`` gets later ones in place; for every other model pi-ai
    folds them into the request's system prompt and tools (``pi_ai.prepare_context``).
    """

    role: ClassVar[Literal["system"]] = "system"
    lenient_decoding: ClassVar[bool] = True
    # The field order is the key order of the session files the coding agent writes.
    content: str | list[TextContent | ImageContent]
    """Free prompt text; ``""`` when the prompt lives in ``sections`` (Pi 1.6 writes ``""``)."""
    sections: dict[str, str | None] | UnsetType = UNSET
    """Named prompt sections; a ``None`` value removes that section."""
    timestamp: int
    tools_added: list[dict[str, Any]] | UnsetType = UNSET
    """Tool declarations (``name``, ``description``, ``parameters``, ...) added or redefined."""
    tools_removed: list[dict[str, Any]] | UnsetType = UNSET
    """``{"name": ...}`` of each tool removed."""


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage
"""What a model sees: the three roles every provider understands."""

MESSAGE_TYPES: tuple[type[WireStruct], ...] = (UserMessage, AssistantMessage, ToolResultMessage)

ContextMessage: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage | SystemMessage
"""What a context's messages may be: the three roles, and Pi 1.6's system messages."""
