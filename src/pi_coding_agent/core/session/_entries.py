"""Session file lines as typed values.

One struct per entry type, fields in the key order Pi 0.85 writes (``custom`` and
``custom_message`` put ``customType`` and their payload before ``id``). Absent optional keys
are ``UNSET`` (omitted on encode); ``parentId`` is always written, ``null`` for a root.

``SessionMessageEntry.message`` holds any ``AgentMessage``, an open union that grows as roles are
registered, so message lines are decoded through a struct built for the roles registered
at that moment (``entry_decoder``) and then rewrapped as the public ``SessionMessageEntry``.
Lines of an unknown type, or of a known type whose fields do not validate, become
``OpaqueEntry``: the parsed JSON kept as is, written back unchanged.
"""

import sys
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias, cast

import msgspec
from msgspec import UNSET, UnsetType

from pi_agent import AgentMessage, OpaqueMessage, agent_message_from_dict, agent_message_union
from pi_ai import (
    ABSENT_COUNT,
    DecodeError,
    ImageContent,
    TextContent,
    Usage,
    WireStruct,
    convert,
    note_absent_counts,
    to_builtins,
)
from pi_coding_agent.core.session._lines import parse_line

CURRENT_SESSION_VERSION = 3


class _TypeFromTag:
    """Class-level ``type`` read from the struct's tag (``entry.type == "compaction"``)."""

    def __get__(self, instance: object, owner: type[msgspec.Struct]) -> str:
        tag = owner.__struct_config__.tag
        return tag if isinstance(tag, str) else ""


class _Entry(WireStruct, kw_only=True):
    type: ClassVar[str] = cast(str, _TypeFromTag())


class SessionHeader(_Entry, tag_field="type", tag="session", kw_only=True):
    """The first line of a session file. Not part of the entry tree."""

    version: int | UnsetType = UNSET
    """Absent in version 1 files."""
    id: str
    timestamp: str
    cwd: str | UnsetType = UNSET
    parent_session: str | UnsetType = UNSET
    """Absolute path of the session this one was forked or cloned from."""


class SessionMessageEntry(_Entry, tag_field="type", tag="message", kw_only=True):
    id: str
    parent_id: str | None
    timestamp: str
    message: Any
    """An ``AgentMessage`` (typed ``Any`` for msgspec: the role union is open)."""


class ThinkingLevelChangeEntry(_Entry, tag_field="type", tag="thinking_level_change", kw_only=True):
    id: str
    parent_id: str | None
    timestamp: str
    thinking_level: str


class ModelChangeEntry(_Entry, tag_field="type", tag="model_change", kw_only=True):
    id: str
    parent_id: str | None
    timestamp: str
    provider: str
    model_id: str


class CompactionEntry(_Entry, tag_field="type", tag="compaction", kw_only=True):
    id: str
    parent_id: str | None
    timestamp: str
    summary: str
    first_kept_entry_id: str | UnsetType = UNSET
    """Where the kept part of the branch starts. Missing: only entries after this one are kept."""
    tokens_before: int
    details: Any | UnsetType = UNSET
    usage: Usage | UnsetType = UNSET
    from_hook: bool | UnsetType = UNSET
    system_message: dict[str, Any] | UnsetType = UNSET
    """Pi 1.6: the prompt and tools in force at the compaction (a ``system`` message); it leads
    the compacted context in place of the system messages before it."""


class BranchSummaryEntry(_Entry, tag_field="type", tag="branch_summary", kw_only=True):
    id: str
    parent_id: str | None
    timestamp: str
    from_id: str
    """The leaf before navigating away, or ``"root"``."""
    summary: str
    details: Any | UnsetType = UNSET
    usage: Usage | UnsetType = UNSET
    from_hook: bool | UnsetType = UNSET


class CustomEntry(_Entry, tag_field="type", tag="custom", kw_only=True):
    """Extension state: part of the tree, never part of the model's context."""

    custom_type: str
    data: Any | UnsetType = UNSET
    id: str
    parent_id: str | None
    timestamp: str


class CustomMessageEntry(_Entry, tag_field="type", tag="custom_message", kw_only=True):
    """An extension message that does enter the context (as a ``custom`` message)."""

    custom_type: str
    content: str | list[TextContent | ImageContent] | UnsetType | None = UNSET
    display: bool
    details: Any | UnsetType = UNSET
    id: str
    parent_id: str | None
    timestamp: str


class LabelEntry(_Entry, tag_field="type", tag="label", kw_only=True):
    id: str
    parent_id: str | None
    timestamp: str
    target_id: str
    label: str | UnsetType = UNSET
    """Absent or empty: clears the target's label."""


class SessionInfoEntry(_Entry, tag_field="type", tag="session_info", kw_only=True):
    id: str
    parent_id: str | None
    timestamp: str
    name: str | UnsetType = UNSET


@dataclass(eq=False, slots=True)
class OpaqueEntry:
    """A line of an entry type we do not know, or whose fields do not validate.

    Kept verbatim (``data``) and written back unchanged. ``type``, ``id`` and ``parent_id``
    still place it in the tree, as Pi would. ``id`` is ``None`` for a line without one
    (Pi's ``undefined`` id: such an entry is in the tree but cannot be branched to).
    """

    data: dict[str, Any]
    reason: str = field(default="")

    @property
    def type(self) -> str:
        value = self.data.get("type")
        return value if isinstance(value, str) else ""

    @property
    def id(self) -> str | None:
        value = self.data.get("id")
        return value if isinstance(value, str) else None

    @property
    def parent_id(self) -> str | None:
        value = self.data.get("parentId")
        return value if isinstance(value, str) else None

    @property
    def timestamp(self) -> str:
        value = self.data.get("timestamp")
        return value if isinstance(value, str) else ""

    def __pi_json__(self) -> dict[str, Any]:
        return self.data


TypedEntry: TypeAlias = (
    SessionMessageEntry
    | ThinkingLevelChangeEntry
    | ModelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
)
SessionEntry: TypeAlias = TypedEntry | OpaqueEntry
"""Anything on a session line after the header."""

_OTHER_ENTRY_TYPES: tuple[type[WireStruct], ...] = (
    ThinkingLevelChangeEntry,
    ModelChangeEntry,
    CompactionEntry,
    BranchSummaryEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    SessionInfoEntry,
)
ENTRY_TYPES: frozenset[str] = frozenset(
    {"message", *(str(cls.__struct_config__.tag) for cls in _OTHER_ENTRY_TYPES)}
)


# --------------------------------------------------------------------------- decoding


class _DecoderCache:
    """A decoder for a whole entry line, rebuilt when the set of registered roles changes."""

    def __init__(self) -> None:
        self.union: Any = None
        self.shadow: type[msgspec.Struct] | None = None
        self.decoder: msgspec.json.Decoder[Any] | None = None
        classes: tuple[type[WireStruct], ...] = (SessionMessageEntry, *_OTHER_ENTRY_TYPES)
        self.names: dict[type, str] = {cls: str(cls.__struct_config__.tag) for cls in classes}
        """The ``type`` of each entry class (the decoder's message classes included)."""

    def get(self) -> tuple[msgspec.json.Decoder[Any], type[msgspec.Struct]]:
        union = agent_message_union()
        if self.decoder is None or self.shadow is None or union is not self.union:
            # A subclass whose ``message`` is typed with today's roles: decoded entries are
            # ``SessionMessageEntry`` instances without a copy.
            shadow = msgspec.defstruct(
                "SessionMessageEntry",
                [("message", union)],
                bases=(SessionMessageEntry,),
                tag_field="type",
                tag="message",
                kw_only=True,
            )
            members: Any = shadow
            for cls in _OTHER_ENTRY_TYPES:
                members = members | cls
            self.union, self.shadow = union, shadow
            self.names[shadow] = "message"
            self.decoder = msgspec.json.Decoder(members)
            return self.decoder, shadow
        return self.decoder, self.shadow


_decoders = _DecoderCache()
_EXTRA_ATTRS = ("_pi_extra", "_pi_has_extra")


def entry_decoder() -> msgspec.json.Decoder[Any]:
    """The decoder of whole well-formed entry lines for the roles registered now.

    It raises on any line that needs care (unknown keys or type, fields that do not
    validate); ``decode_entry`` reads such lines.
    """
    return _decoders.get()[0]


def decode_entry_lines(lines: memoryview | bytes) -> list[SessionEntry]:
    """Whole well-formed entry lines (newline-separated) in one call; raises on any line
    that needs care (see ``entry_decoder``). Usage counts a line lacks stay absent."""
    # A count the JSON lacks is filled with the one ABSENT_COUNT object, and the decoder
    # holds the GIL throughout, so an unchanged reference count means none was filled and
    # the entries need no walk (which costs ~20 ms of a long resume: bench/session_resume.py).
    before = sys.getrefcount(ABSENT_COUNT)
    entries: list[SessionEntry] = entry_decoder().decode_lines(lines)
    if sys.getrefcount(ABSENT_COUNT) != before:
        note_absent_usage(entries)
    return entries


def note_absent_usage(entries: list[SessionEntry]) -> None:
    """Record the usage counts that decoded message entries' JSON did not have.

    Old files lack some (``totalTokens``, ``cost``); decoding leaves them ``0`` to compute
    with, and this notes them so that writing a message (a context, an RPC answer) does not
    invent them.
    """
    for entry in entries:
        message = getattr(entry, "message", None)
        if type(getattr(message, "usage", None)) is Usage:
            note_absent_counts(message)


def entry_type_names(entries: list[SessionEntry]) -> list[str]:
    """``entry.type`` of each entry that ``entry_decoder`` decoded (looked up by class)."""
    return list(map(_decoders.names.__getitem__, map(type, entries)))


def decode_entry(line: bytes | memoryview | str, problems: list[str] | None = None) -> SessionEntry:
    """Decode one entry line (already known to be a JSON object with a string ``id``).

    Unknown keys are kept. A line that does not validate as its type is read the way Pi
    reads it (without validation) into an ``OpaqueEntry`` or, for messages, a
    ``SessionMessageEntry`` holding an ``OpaqueMessage``; the reason is added to ``problems``.
    """
    try:
        entry: SessionEntry = entry_decoder().decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError):
        pass
    except RecursionError:
        pass
    else:
        note_absent_usage([entry])
        return entry
    data = parse_line(line)
    return entry_from_dict(data, problems)


def entry_from_dict(data: dict[str, Any], problems: list[str] | None = None) -> SessionEntry:
    """Typed entry for parsed JSON data (which is kept when it does not validate)."""
    kind = data.get("type")
    if kind == "message":
        return _message_entry_from_dict(data, problems)
    for cls in _OTHER_ENTRY_TYPES:
        if cls.__struct_config__.tag == kind:
            try:
                entry: SessionEntry = cast(TypedEntry, convert(data, cls))
            except DecodeError as error:
                reason = f"{kind} entry does not validate: {error}"
                if problems is not None:
                    problems.append(reason)
                return OpaqueEntry(data, reason)
            return entry
    return OpaqueEntry(data, f"unknown entry type {kind!r}")


def _message_entry_from_dict(data: dict[str, Any], problems: list[str] | None) -> SessionEntry:
    envelope = {key: data.get(key) for key in ("id", "parentId", "timestamp")}
    if not (
        isinstance(envelope["id"], str)
        and (envelope["parentId"] is None or isinstance(envelope["parentId"], str))
        and isinstance(envelope["timestamp"], str)
        and isinstance(data.get("message"), dict)
    ):
        reason = (
            "message entry does not validate: needs string id and timestamp, parentId and a message object"
        )
        if problems is not None:
            problems.append(reason)
        return OpaqueEntry(data, reason)
    message = message_from_value(data["message"], problems)
    entry = SessionMessageEntry(
        id=envelope["id"], parent_id=envelope["parentId"], timestamp=envelope["timestamp"], message=message
    )
    extra = {key: value for key, value in data.items() if key not in _MESSAGE_ENTRY_KEYS}
    if extra:
        entry.__dict__["_pi_extra"] = extra
        entry.__dict__["_pi_has_extra"] = True
    return entry


_MESSAGE_ENTRY_KEYS = frozenset({"type", "id", "parentId", "timestamp", "message"})
_LLM_ROLES = frozenset({"user", "assistant", "toolResult"})


def message_from_value(value: dict[str, Any], problems: list[str] | None = None) -> AgentMessage:
    """An ``AgentMessage`` for a stored message value, read as leniently as Pi reads it.

    Pi normalizes a missing or null ``content`` of user, assistant and tool-result messages
    to ``[]`` when it builds a context; the same is done here. A value that still does not
    validate is kept verbatim as an ``OpaqueMessage`` (never sent to a model).
    """
    role = value.get("role")
    if not isinstance(role, str):
        # Pi keeps it (convertToLlm drops it): a role that is no string is no role.
        if problems is not None:
            problems.append("message does not validate: its role is not a string")
        return OpaqueMessage(value)
    if role in _LLM_ROLES and value.get("content") is None:
        value = {**value, "content": []}
    try:
        return agent_message_from_dict(value)
    except DecodeError as error:
        if problems is not None:
            problems.append(f"message does not validate: {error}")
        return OpaqueMessage(value)


# --------------------------------------------------------------------------- encoding


def entry_to_dict(entry: SessionEntry) -> dict[str, Any]:
    """Plain JSON data of an entry, in Pi's key order, unknown keys included."""
    if isinstance(entry, OpaqueEntry):
        return entry.data
    if isinstance(entry, SessionMessageEntry):
        data: dict[str, Any] = {
            "type": "message",
            "id": entry.id,
            "parentId": entry.parent_id,
            "timestamp": entry.timestamp,
            "message": to_builtins(entry.message),
        }
        extra = entry.__dict__.get("_pi_extra")
        if extra:
            for key, value in extra.items():
                data.setdefault(key, value)
        return data
    built = to_builtins(entry)
    assert isinstance(built, dict)
    return built


def copy_extras(source: object, target: object) -> None:
    """Carry the unknown keys ``source`` was read with over to a modified copy."""
    for name in _EXTRA_ATTRS:
        if name in source.__dict__:
            target.__dict__[name] = source.__dict__[name]
