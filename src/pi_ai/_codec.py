"""JSON codec for the wire structs: validating decode, round-trip-preserving encode.

The fast path is msgspec's own decoder, which refuses unknown keys. When a document does
carry keys we do not model (written by a newer Pi, or by an extension) the slow path strips
them before validating and keeps them on the struct that owned them, so encoding writes them
back. Validation failures raise ``DecodeError`` naming the reason and the path inside the
document, e.g. ``Expected `str`, got `int` at $.content[0].text``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

import msgspec

if TYPE_CHECKING:
    from msgspec import inspect as msgspec_inspect

from pi_ai._messages import Message
from pi_ai.js_json import JsEncoder

T = TypeVar("T")

_EXTRA = "_pi_extra"
"""Instance attribute (in the struct's ``__dict__``) holding the unknown keys it was read with."""
_HAS_EXTRA = "_pi_has_extra"
"""Set on the outermost decoded struct when it or anything inside it has unknown keys."""


def _enc_hook(value: Any) -> Any:
    """Objects outside the struct model (e.g. opaque messages) encode via ``__pi_json__()``."""
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
        return _decoder(type_).decode(data)
    except msgspec.ValidationError as error:
        if "unknown field" not in str(error):
            raise DecodeError.from_msgspec(error) from None
    except msgspec.DecodeError as error:
        raise DecodeError(f"Invalid JSON: {error}") from None
    return _convert_keeping_extras(msgspec.json.decode(data), type_)


@overload
def convert(value: Any, type_: type[T]) -> T: ...
@overload
def convert(value: Any, type_: Any) -> Any: ...
def convert(value: Any, type_: Any) -> Any:
    """Validate already-parsed JSON data (dicts, lists, ...) as ``type_``."""
    try:
        return msgspec.convert(value, type_)
    except msgspec.ValidationError as error:
        if "unknown field" not in str(error):
            raise DecodeError.from_msgspec(error) from None
    return _convert_keeping_extras(value, type_)


def decode_message(data: bytes | str) -> Message:
    """Decode one pi-ai ``Message`` (user, assistant or toolResult) from JSON text."""
    return cast(Message, decode(data, Message))


def message_from_dict(value: Any) -> Message:
    return cast(Message, convert(value, Message))


def encode(value: Any) -> bytes:
    """Compact JSON as ``JSON.stringify`` writes it (``pi_ai.js_json``), unknown keys read earlier included."""
    if _carries_extras(value):
        return _ENCODER.encode(to_builtins(value))
    return _ENCODER.encode(value)


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


# --------------------------------------------------------------------------- slow path


def _carries_extras(value: Any) -> bool:
    if isinstance(value, msgspec.Struct):
        return getattr(value, _HAS_EXTRA, False) is True
    if isinstance(value, list):
        return any(_carries_extras(item) for item in value)
    if isinstance(value, dict):
        return any(_carries_extras(item) for item in value.values())
    return False


def _merge_extras(value: Any, built: Any) -> None:
    if isinstance(value, msgspec.Struct):
        if not isinstance(built, dict):
            return
        for key, item in (getattr(value, _EXTRA, None) or {}).items():
            built.setdefault(key, item)
        for field in msgspec.structs.fields(value):
            if field.encode_name in built:
                _merge_extras(getattr(value, field.name), built[field.encode_name])
    elif isinstance(value, list) and isinstance(built, list):
        for item, built_item in zip(value, built, strict=False):
            _merge_extras(item, built_item)
    elif isinstance(value, dict) and isinstance(built, dict):
        for key, item in value.items():
            if key in built:
                _merge_extras(item, built[key])


Path = tuple[str | int | tuple[str], ...]
"""Steps to a struct: attribute names, list indices, and ``(key,)`` for dict entries."""


def _convert_keeping_extras(raw: Any, type_: Any) -> Any:
    from msgspec import inspect as msgspec_inspect  # only documents with unknown keys need it

    found: list[tuple[Path, dict[str, Any]]] = []
    cleaned = _strip(raw, msgspec_inspect.type_info(type_), (), found)
    try:
        result = msgspec.convert(cleaned, type_)
    except msgspec.ValidationError as error:
        raise DecodeError.from_msgspec(error) from None
    for path, extra in found:
        target: Any = result
        for step in path:
            if isinstance(step, str):
                target = getattr(target, step)
            else:
                target = target[step] if isinstance(step, int) else target[step[0]]
        setattr(target, _EXTRA, extra)
    if found and isinstance(result, msgspec.Struct):
        setattr(result, _HAS_EXTRA, True)
    return result


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
