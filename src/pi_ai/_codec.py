"""JSON codec for the wire structs: validating decode, round-trip-preserving encode.

The fast path is msgspec's own decoder, which refuses unknown keys. When a document does
carry keys we do not model (written by a newer Pi, or by an extension) the slow path strips
them before validating and keeps them on the struct that owned them, so encoding writes them
back. Validation failures raise ``DecodeError`` naming the reason and the path inside the
document, e.g. ``Expected `str`, got `int` at $.content[0].text``.

Messages are read as Pi reads them (``WireStruct.lenient_decoding``): a missing or ``null``
field Pi never requires gets a stand-in, and usage counts an old file lacks stay ``0``
(``ABSENT_COUNT``). Either way the struct notes which keys the JSON did not have (or had
as ``null``), so encoding it writes the document it was read from, not invented values.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

import msgspec

if TYPE_CHECKING:
    from msgspec import inspect as msgspec_inspect

from pi_ai._messages import ABSENT_COUNT, Message, Usage, UsageCost, _AbsentCount
from pi_ai.js_json import JsEncoder, scan_value

T = TypeVar("T")

_EXTRA = "_pi_extra"
"""Instance attribute (in the struct's ``__dict__``) holding the unknown keys it was read with."""
_HAS_EXTRA = "_pi_has_extra"
"""Set on the outermost decoded struct when anything inside it must be written differently
from its fields: unknown keys, or keys that were absent or ``null``."""
_ABSENT = "_pi_absent"
"""Encode names of the keys the struct was read without (left out when writing it)."""
_NULLS = "_pi_nulls"
"""Encode names of the keys that were ``null`` where the struct has a stand-in value."""


def _enc_hook(value: Any) -> Any:
    """Objects outside the struct model (e.g. opaque messages) encode via ``__pi_json__()``."""
    if type(value) is _AbsentCount:
        return 0
    to_json = getattr(value, "__pi_json__", None)
    if to_json is None:
        raise TypeError(f"Cannot encode {type(value).__name__} as JSON")
    return to_json()


_ENCODER = JsEncoder(enc_hook=_enc_hook)
_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


class DecodeError(ValueError):
    """A document that is not valid JSON or does not match the expected shape."""

    def __init__(self, reason: str, path: str = "$") -> None:
        super().__init__(f"{reason} at {path}")
        self.reason = reason
        self.path = path

    @classmethod
    def from_msgspec(cls, error: msgspec.ValidationError) -> DecodeError:
        reason, sep, where = str(error).partition(" - at `")
        return cls(reason, where.rstrip("`") if sep else "$")


def _decoder(type_: Any) -> msgspec.json.Decoder[Any]:
    decoder = _decoders.get(type_)
    if decoder is None:
        decoder = _decoders[type_] = msgspec.json.Decoder(type_)
    return decoder


@overload
def decode(data: bytes | str, type_: type[T]) -> T: ...
@overload
def decode(data: bytes | str, type_: Any) -> Any: ...
def decode(data: bytes | str, type_: Any) -> Any:
    """Parse and validate JSON text as ``type_`` (a struct class or a union of them)."""
    try:
        result = _decoder(type_).decode(data)
    except msgspec.ValidationError as error:
        return _convert_slowly(msgspec.json.decode(data), type_, error)
    except msgspec.DecodeError as error:
        raise DecodeError(f"Invalid JSON: {error}") from None
    except RecursionError:
        raise DecodeError("Invalid JSON: nested too deeply") from None
    if _has_usage(result):
        note_absent_counts(result)
    return result


@overload
def convert(value: Any, type_: type[T]) -> T: ...
@overload
def convert(value: Any, type_: Any) -> Any: ...
def convert(value: Any, type_: Any) -> Any:
    """Validate already-parsed JSON data (dicts, lists, ...) as ``type_``."""
    try:
        result = _msgspec_convert(value, type_)
    except msgspec.ValidationError as error:
        return _convert_slowly(value, type_, error)
    except RecursionError:
        raise DecodeError("nested too deeply") from None
    if _has_usage(result):
        note_absent_counts(result)
    return result


_LONE_SURROGATE = "Expected text without unpaired UTF-16 surrogates, got a lone surrogate"


def _msgspec_convert(value: Any, type_: Any) -> Any:
    """``msgspec.convert``, with a lone surrogate (``"\\ud800"``: valid JSON, which Node writes)
    in a key or a non-text position refused as a ``ValidationError``: msgspec raises
    ``UnicodeEncodeError`` there, which no caller expects."""
    try:
        return msgspec.convert(value, type_)
    except UnicodeEncodeError:
        raise msgspec.ValidationError(_LONE_SURROGATE) from None


def decode_message(data: bytes | str) -> Message:
    """Decode one pi-ai ``Message`` (user, assistant or toolResult) from JSON text."""
    return cast(Message, decode(data, Message))


def message_from_dict(value: Any) -> Message:
    return cast(Message, convert(value, Message))


def encode(value: Any) -> bytes:
    """Compact JSON as ``JSON.stringify`` writes it (``pi_ai.js_json``), unknown keys read earlier included."""
    scan = scan_value(value, _HAS_EXTRA)
    if scan.flagged:
        return _ENCODER.encode(to_builtins(value))
    return _ENCODER.encode(value, scan=scan)


def to_builtins(value: Any) -> Any:
    """Plain dicts/lists with Pi's JSON keys, unknown keys read earlier included."""
    built = msgspec.to_builtins(value, enc_hook=_enc_hook)
    if _carries_extras(value):
        _merge_extras(value, built)
    return built


def extra_keys(struct: msgspec.Struct) -> dict[str, Any]:
    """The keys this struct was decoded with that it does not model (empty if none)."""
    found = getattr(struct, _EXTRA, None)
    return dict(found) if found else {}


def absent_keys(struct: msgspec.Struct) -> tuple[str, ...]:
    """JSON keys of fields this struct was read without or with ``null`` (their values are
    stand-ins)."""
    found: tuple[str, ...] = (*getattr(struct, _ABSENT, ()), *getattr(struct, _NULLS, ()))
    return found


_COUNTS = (
    ("input", "input"),
    ("output", "output"),
    ("cache_read", "cacheRead"),
    ("cache_write", "cacheWrite"),
)
_USAGE_COUNTS = (*_COUNTS, ("total_tokens", "totalTokens"))
_COST_COUNTS = (*_COUNTS, ("total", "total"))


def _has_usage(value: Any) -> bool:
    return type(getattr(value, "usage", None)) is Usage


def note_absent_counts(message: Any) -> bool:
    """Note the usage counts of a decoded ``message`` that its JSON did not have.

    Decoding fills them with ``ABSENT_COUNT``; afterwards they are recorded as absent so
    writing the message leaves them out again. Returns whether any was.
    """
    usage = message.usage
    cost = usage.cost
    absent = ABSENT_COUNT
    missing = [key for name, key in _USAGE_COUNTS if getattr(usage, name) is absent]
    cost_missing = [key for name, key in _COST_COUNTS if getattr(cost, name) is absent]
    if not missing and not cost_missing:
        return False
    if len(cost_missing) == len(_COST_COUNTS) and type(cost) is UsageCost:
        missing.append("cost")  # no cost object at all (or an empty one)
    elif cost_missing:
        setattr(cost, _ABSENT, tuple(cost_missing))
    if len(missing) == len(_USAGE_COUNTS) + 1 and usage.reasoning is msgspec.UNSET:
        # No usage object at all (or an empty one).
        setattr(message, _ABSENT, (*getattr(message, _ABSENT, ()), "usage"))
    elif missing:
        setattr(usage, _ABSENT, tuple(missing))
    setattr(message, _HAS_EXTRA, True)
    return True


# --------------------------------------------------------------------------- slow path


def _carries_extras(value: Any) -> bool:
    if isinstance(value, msgspec.Struct):
        return getattr(value, _HAS_EXTRA, False) is True
    if isinstance(value, list):
        return any(_carries_extras(item) for item in value)
    if isinstance(value, dict):
        return any(_carries_extras(item) for item in value.values())
    return False


@functools.cache
def _field_keys(struct_type: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    """Each field's attribute name and JSON key, read once per type: ``msgspec.structs.fields``
    evaluates every annotation on each call (a third of the session loader fuzz's time)."""
    return tuple(zip(struct_type.__struct_fields__, struct_type.__struct_encode_fields__, strict=True))


def _merge_extras(value: Any, built: Any) -> None:
    """Write what the structs in ``value`` remember into ``built`` (its ``to_builtins``):
    unknown keys back in, absent keys out, ``null`` keys back to ``null``. No recursion:
    ``details`` may nest deeply."""
    work: list[tuple[Any, Any]] = [(value, built)]
    while work:
        value, built = work.pop()
        if isinstance(value, msgspec.Struct):
            if not isinstance(built, dict):
                continue
            for key, item in (getattr(value, _EXTRA, None) or {}).items():
                built.setdefault(key, item)
            for key in getattr(value, _ABSENT, ()):
                built.pop(key, None)
            for key in getattr(value, _NULLS, ()):
                built[key] = None
            for name, key in _field_keys(type(value)):
                inner = getattr(value, name)
                if key in built and isinstance(inner, msgspec.Struct | list | dict):
                    work.append((inner, built[key]))
        elif isinstance(value, list) and isinstance(built, list):
            work.extend(
                (item, built_item)
                for item, built_item in zip(value, built, strict=False)
                if isinstance(item, msgspec.Struct | list | dict)
            )
        elif isinstance(value, dict) and isinstance(built, dict):
            work.extend(
                (item, built[key])
                for key, item in value.items()
                if key in built and isinstance(item, msgspec.Struct | list | dict)
            )


Path = tuple[str | int | tuple[str], ...]
"""Steps to a struct: attribute names, list indices, and ``(key,)`` for dict entries."""


@functools.cache
def _type_info(type_: Any) -> msgspec_inspect.Type:
    """msgspec's description of ``type_``, built once per type: building it walks every annotation
    of every struct it reaches (about 2 ms for a message union), and a damaged session file asks
    for it on each of its bad lines (100 files of the session loader fuzz: 2.9 s before, 1.4 s)."""
    from msgspec import inspect as msgspec_inspect  # only unusual documents need it

    return msgspec_inspect.type_info(type_)


def _convert_slowly(raw: Any, type_: Any, error: msgspec.ValidationError) -> Any:
    """``raw`` as ``type_`` when the fast path refused it: unknown keys kept, messages read leniently."""
    info = _type_info(type_)
    found: list[tuple[Path, dict[str, Any]]] = []
    try:
        cleaned = _strip(raw, info, (), found)
        result = _msgspec_convert(cleaned, type_)
        repaired = False
    except msgspec.ValidationError as stripped_error:
        result = _convert_leniently(cleaned, type_, info)
        if result is None:
            raise DecodeError.from_msgspec(stripped_error if found else error) from None
        repaired = True
    except RecursionError:
        raise DecodeError("nested too deeply") from None
    for path, extra in found:
        target: Any = result
        for step in path:
            if isinstance(step, str):
                target = getattr(target, step)
            else:
                target = target[step] if isinstance(step, int) else target[step[0]]
        setattr(target, _EXTRA, extra)
    if _has_usage(result):
        note_absent_counts(result)
    if (found or repaired) and isinstance(result, msgspec.Struct):
        setattr(result, _HAS_EXTRA, True)
    return result


def _convert_leniently(value: Any, type_: Any, info: msgspec_inspect.Type) -> Any:
    """``value`` as ``type_`` after Pi-style repairs of its top-level message fields, or ``None``."""
    from msgspec import inspect as msgspec_inspect

    if not isinstance(value, dict):
        return None
    struct = _struct_for(value, info) if isinstance(info, msgspec_inspect.UnionType) else info
    if not isinstance(struct, msgspec_inspect.StructType) or not getattr(
        struct.cls, "lenient_decoding", False
    ):
        return None
    repairs = _repair(value, struct)
    if repairs is None:
        return None
    repaired, absent, nulls, literals = repairs
    try:
        result = _msgspec_convert(repaired, type_)
    except (msgspec.ValidationError, RecursionError):
        return None
    for name, original in literals.items():
        setattr(result, name, original)  # the value Pi would see, though the type does not list it
    if absent:
        setattr(result, _ABSENT, tuple(absent))
    if nulls:
        setattr(result, _NULLS, tuple(nulls))
    return result


def _repair(
    value: dict[str, Any], struct: msgspec_inspect.StructType
) -> tuple[dict[str, Any], list[str], list[str], dict[str, str]] | None:
    """(repaired copy, keys filled in, keys that were null, attribute -> unknown literal), or
    ``None`` when nothing here can be repaired."""
    from msgspec import inspect as msgspec_inspect

    repaired = dict(value)
    absent: list[str] = []
    nulls: list[str] = []
    literals: dict[str, str] = {}
    for field in struct.fields:
        key = field.encode_name
        if key not in value:
            if field.required:
                stand_in = _stand_in(field.type)
                if stand_in is _NO_STAND_IN:
                    return None
                repaired[key] = stand_in
                absent.append(key)
            continue
        item = value[key]
        if item is None and not _accepts_none(field.type):
            stand_in = _stand_in(field.type)
            if stand_in is not _NO_STAND_IN:
                repaired[key] = stand_in
                nulls.append(key)
        elif (
            isinstance(item, str)
            and isinstance(field.type, msgspec_inspect.LiteralType)
            and item not in field.type.values
        ):
            repaired[key] = field.type.values[0]
            literals[field.name] = item
    if not (absent or nulls or literals):
        return None
    return repaired, absent, nulls, literals


_NO_STAND_IN = object()


def _stand_in(info: msgspec_inspect.Type) -> Any:
    """The value a missing field holds: what JavaScript's ``undefined`` acts like (falsy)."""
    from msgspec import inspect as msgspec_inspect

    simple: dict[type, Any] = {
        msgspec_inspect.StrType: "",
        msgspec_inspect.IntType: 0,
        msgspec_inspect.FloatType: 0.0,
        msgspec_inspect.BoolType: False,
        msgspec_inspect.AnyType: None,
    }
    if type(info) in simple:
        return simple[type(info)]
    if isinstance(info, msgspec_inspect.ListType):
        return []
    if isinstance(info, msgspec_inspect.LiteralType):
        return info.values[0]
    if isinstance(info, msgspec_inspect.UnionType):
        if _accepts_none(info):
            return None
        members = sorted(info.types, key=lambda member: not isinstance(member, msgspec_inspect.ListType))
        for member in members:
            stand_in = _stand_in(member)
            if stand_in is not _NO_STAND_IN:
                return stand_in
    return _NO_STAND_IN


def _accepts_none(info: msgspec_inspect.Type) -> bool:
    from msgspec import inspect as msgspec_inspect

    if isinstance(info, msgspec_inspect.NoneType | msgspec_inspect.AnyType):
        return True
    return isinstance(info, msgspec_inspect.UnionType) and any(
        isinstance(member, msgspec_inspect.NoneType) for member in info.types
    )


def _struct_for(value: dict[str, Any], info: msgspec_inspect.UnionType) -> msgspec_inspect.StructType | None:
    from msgspec import inspect as msgspec_inspect

    structs = [t for t in info.types if isinstance(t, msgspec_inspect.StructType)]
    for candidate in structs:
        if candidate.tag_field is not None and value.get(candidate.tag_field) == candidate.tag:
            return candidate
    untagged = [t for t in structs if t.tag_field is None]
    return untagged[0] if len(untagged) == 1 else None


def _strip(
    value: Any, info: msgspec_inspect.Type, path: Path, found: list[tuple[Path, dict[str, Any]]]
) -> Any:
    """Copy of ``value`` without unknown struct keys; each removed set is recorded with its path."""
    from msgspec import inspect as msgspec_inspect

    if isinstance(info, msgspec_inspect.UnionType):
        if isinstance(value, dict):
            struct = _struct_for(value, info)
            if struct is not None:
                return _strip(value, struct, path, found)
            for option in info.types:
                if isinstance(option, msgspec_inspect.DictType):
                    return _strip(value, option, path, found)
        elif isinstance(value, list):
            for option in info.types:
                if isinstance(option, msgspec_inspect.ListType):
                    return _strip(value, option, path, found)
        return value
    if isinstance(info, msgspec_inspect.StructType) and isinstance(value, dict):
        fields = {field.encode_name: field for field in info.fields}
        cleaned: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, item in value.items():
            field = fields.get(key)
            if field is not None:
                cleaned[key] = _strip(item, field.type, (*path, field.name), found)
            elif key == info.tag_field:
                cleaned[key] = item
            else:
                extra[key] = item
        if extra:
            found.append((path, extra))
        return cleaned
    if isinstance(info, msgspec_inspect.ListType) and isinstance(value, list):
        return [_strip(item, info.item_type, (*path, index), found) for index, item in enumerate(value)]
    if isinstance(info, msgspec_inspect.DictType) and isinstance(value, dict):
        if isinstance(info.value_type, msgspec_inspect.AnyType):
            return value
        return {key: _strip(item, info.value_type, (*path, (key,)), found) for key, item in value.items()}
    return value
