"""The open ``AgentMessage`` union: pi-ai's roles plus roles applications register.

pi-ai's roles are the three a model sees (``Message``) and ``system`` (``SystemMessage``, Pi
1.6's prompt and tool declarations inside a transcript), which only reaches a model through a
converter that keeps it (the default one leaves it out, as it leaves out every other role).

Pi widens its message union with TypeScript declaration merging, which only exists at
compile time; the application must still supply a converter, a renderer and a persistence
rule for each new role. Here one call binds all of them to the role:

    class Notification(CustomMessage, tag="notification", kw_only=True):
        text: str
        timestamp: int

    register_role(Notification, to_llm=lambda m: UserMessage(content=m.text, timestamp=m.timestamp),
                  owner="my_app")

Registering binds the class (whose msgspec codec validates it when sessions or RPC payloads
are decoded), its projection for the model (a ``Message``, a list of them, or ``None``) and
an optional renderer for UIs. A role registered without a projection never reaches a model.
A role nobody registered decodes to ``OpaqueMessage``: kept verbatim, never sent to a model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any, ClassVar, TypeAlias, TypeVar, cast

import msgspec

from pi_ai import (
    AssistantMessage,
    DecodeError,
    Message,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    WireStruct,
)
from pi_ai import convert as convert_value
from pi_ai import decode as decode_value


class _RoleFromTag:
    """Class-level ``role`` read from the struct's tag, so subclasses need not repeat it."""

    def __get__(self, instance: object, owner: type[msgspec.Struct]) -> str:
        tag = owner.__struct_config__.tag
        return tag if isinstance(tag, str) else ""


class CustomMessage(WireStruct, tag_field="role", kw_only=True):
    """Base class of application-defined roles. Subclasses pass ``tag="<role>"``.

    The ``role`` class attribute is filled from the tag so ``message.role`` works as for the
    built-in messages.
    """

    role: ClassVar[str] = cast(str, _RoleFromTag())


class OpaqueMessage:
    """A message whose role nobody registered. Round-trips unchanged; never sent to a model."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    @property
    def role(self) -> str:
        return str(self.data.get("role"))

    def __pi_json__(self) -> dict[str, Any]:
        return self.data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpaqueMessage) and other.data == self.data

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"OpaqueMessage({self.data!r})"


AgentMessage: TypeAlias = (
    UserMessage | AssistantMessage | ToolResultMessage | SystemMessage | CustomMessage | OpaqueMessage
)
"""Anything the agent keeps in its transcript. Only pi-ai's ``ContextMessage``\\ s ever reach a model."""

M = TypeVar("M", bound=CustomMessage)
Projection = Callable[[Any], Message | Sequence[Message] | None]
Renderer = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class RoleBinding:
    role: str
    cls: type[CustomMessage]
    owner: str
    to_llm: Projection | None
    render: Renderer | None


class RoleConflictError(ValueError):
    """A role was registered twice with different classes."""


_BUILTIN_ROLES = frozenset({"user", "assistant", "toolResult", "system"})
_bindings: dict[str, RoleBinding] = {}
_union_cache: list[Any] = []


def register_role(
    cls: type[M],
    *,
    owner: str,
    to_llm: Callable[[M], Message | Sequence[Message] | None] | None = None,
    render: Callable[[M], Any] | None = None,
) -> type[M]:
    """Bind ``cls`` (a ``CustomMessage`` subclass) to its role. Returns ``cls``.

    Registering the same class again is a no-op (projection and renderer are updated);
    registering a different class for a taken role raises ``RoleConflictError`` naming both.
    """
    role = getattr(cls, "role", None)
    if not isinstance(role, str) or not role:
        raise TypeError(f"{cls.__qualname__} must subclass CustomMessage with tag='<role>'")
    if role in _BUILTIN_ROLES:
        raise RoleConflictError(f"role {role!r} belongs to pi_ai and cannot be registered by {owner}")
    existing = _bindings.get(role)
    if existing is not None and existing.cls is not cls:
        raise RoleConflictError(
            f"role {role!r} is already registered by {existing.owner} "
            f"({existing.cls.__module__}.{existing.cls.__qualname__}); {owner} tried to register "
            f"{cls.__module__}.{cls.__qualname__}"
        )
    _bindings[role] = RoleBinding(role=role, cls=cls, owner=owner, to_llm=to_llm, render=render)
    _union_cache.clear()
    return cls


def unregister_role(role: str) -> None:
    _bindings.pop(role, None)
    _union_cache.clear()


def role_binding(role: str) -> RoleBinding | None:
    return _bindings.get(role)


def registered_roles() -> list[str]:
    return sorted(_bindings)


def agent_message_union() -> Any:
    """The msgspec type union of every message class (pi_ai's roles and the registered ones);
    a new object after each ``register_role``/``unregister_role``, the same one in between."""
    if not _union_cache:
        members: tuple[Any, ...] = (UserMessage, AssistantMessage, ToolResultMessage, SystemMessage)
        members += tuple(binding.cls for binding in _bindings.values())
        union = members[0]
        for member in members[1:]:
            union = union | member
        _union_cache.append(union)
    return _union_cache[0]


def _is_unknown_role(error: DecodeError) -> bool:
    return error.path == "$.role" and error.reason.startswith("Invalid value")


def decode_agent_message(data: bytes | str) -> AgentMessage:
    """Decode JSON text into the registered class for its role (``OpaqueMessage`` if none)."""
    try:
        return cast(AgentMessage, decode_value(data, agent_message_union()))
    except DecodeError as error:
        if not _is_unknown_role(error):
            raise
    raw = msgspec.json.decode(data)
    return OpaqueMessage(raw)


def agent_message_from_dict(value: dict[str, Any]) -> AgentMessage:
    """Like ``decode_agent_message`` for already-parsed JSON data."""
    if not isinstance(value, dict):
        raise DecodeError(f"Expected `object`, got `{type(value).__name__}`")
    role = value.get("role")
    if isinstance(role, str) and role not in _BUILTIN_ROLES and role not in _bindings:
        return OpaqueMessage(value)
    return cast(AgentMessage, convert_value(value, agent_message_union()))


_LLM_TYPES = (UserMessage, AssistantMessage, ToolResultMessage)
_is_llm_type: dict[type, bool] = {cls: True for cls in _LLM_TYPES}
"""Per-class answer of ``isinstance(m, Message)``: this runs over the whole transcript before
every model call, and a dict lookup is several times cheaper than a union ``isinstance``."""


def _is_llm_class(cls: type) -> bool:
    known = _is_llm_type.get(cls)
    if known is None:
        known = _is_llm_type[cls] = issubclass(cls, _LLM_TYPES)
    return known


def is_llm_message(message: AgentMessage) -> bool:
    return _is_llm_class(type(message))


def default_convert_to_llm(messages: Iterable[AgentMessage]) -> list[Message]:
    """The Agent's default: keep user, assistant and toolResult messages, drop everything else."""
    items = messages if isinstance(messages, list) else list(messages)
    classes = set(map(type, items))
    if classes.issubset(_LLM_TYPES):
        return cast(list[Message], list(items))
    keep = {cls for cls in classes if _is_llm_class(cls)}
    return cast(list[Message], list(compress(items, map(keep.__contains__, map(type, items)))))


class IncrementalLlmFilter:
    """``default_convert_to_llm`` for a transcript that grows between calls.

    The loop converts its whole transcript before every model call; with thousands of
    messages, looking at each message's class every turn is most of the loop's own cost.
    This filter remembers the list it saw last time and classifies only what was appended
    since. A list whose known prefix changed (compaction, pruning, a new run) is classified
    from scratch, so the result is always what ``default_convert_to_llm`` returns.
    """

    __slots__ = ("_keep", "_keep_all", "_seen")

    def __init__(self) -> None:
        self._seen: list[AgentMessage] = []
        self._keep: list[bool] = []
        self._keep_all = True

    def __call__(self, messages: Iterable[AgentMessage]) -> list[Message]:
        items = messages if type(messages) is list else list(messages)
        known = len(self._seen)
        # List equality checks identity first, so an unchanged prefix costs a pointer
        # comparison per message; a replaced message (even an equal one) restarts the scan.
        if known > len(items) or (known and items[:known] != self._seen):
            known = 0
            self._keep = []
            self._keep_all = True
        if len(items) > known:
            flags = list(map(_is_llm_class, map(type, items[known:] if known else items)))
            self._keep.extend(flags)
            self._keep_all = self._keep_all and all(flags)
        self._seen = items.copy()
        if self._keep_all:
            return cast(list[Message], items.copy())
        return cast(list[Message], list(compress(items, self._keep)))


def project_to_llm(messages: Iterable[AgentMessage]) -> list[Message]:
    """Apply each registered role's projection; built-in messages pass through unchanged.

    Roles without a projection and opaque messages are dropped. Order is preserved.
    """
    result: list[Message] = []
    table = _is_llm_type
    for message in messages:
        if table.get(type(message)) or _is_llm_class(type(message)):
            result.append(cast(Message, message))
            continue
        if isinstance(message, OpaqueMessage):
            continue
        binding = _bindings.get(message.role)
        if binding is None or binding.to_llm is None:
            continue
        projected = binding.to_llm(message)
        if projected is None:
            continue
        if isinstance(projected, UserMessage | AssistantMessage | ToolResultMessage):
            result.append(projected)
        else:
            result.extend(projected)
    return result
