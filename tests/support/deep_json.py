"""JSON for documents nested thousands of levels deep (Pi's ``tree`` of a long session).

``json`` and ``msgspec`` both recurse once per level and stop at Python's recursion limit;
so does ``==`` on nested lists and dicts. These versions keep their own stack, so any depth
works on the default limit: ``loads``, ``dumps`` and ``first_difference`` (an equality test
that says where two documents differ).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pi_ai.js_json import js_number

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_scan_string = json.decoder.scanstring  # type: ignore[attr-defined]


class _Open:
    """A container being filled: the value, and (for objects) the key waiting for its value."""

    __slots__ = ("key", "value")

    def __init__(self, value: dict[str, Any] | list[Any]) -> None:
        self.value = value
        self.key: str | None = None


def loads(text: str | bytes) -> Any:
    """``json.loads`` without recursion (strict JSON: no NaN, no trailing commas)."""
    source = text.decode() if isinstance(text, bytes) else text
    stack: list[_Open] = []
    position = _WHITESPACE.match(source, 0).end()  # type: ignore[union-attr]
    result: Any = None
    done = False
    while True:
        char = source[position : position + 1]
        if not char:
            raise ValueError(f"unexpected end of JSON at {position}")
        top = stack[-1] if stack else None
        if top is not None and isinstance(top.value, dict) and top.key is None:
            if char == "}" and not top.value:
                position += 1
                value: Any = stack.pop().value
            else:
                if char != '"':
                    raise ValueError(f"expected a key at {position}")
                top.key, position = _scan_string(source, position + 1)
                position = _WHITESPACE.match(source, position).end()  # type: ignore[union-attr]
                if source[position : position + 1] != ":":
                    raise ValueError(f"expected ':' at {position}")
                position = _WHITESPACE.match(source, position + 1).end()  # type: ignore[union-attr]
                continue
        elif char == "{":
            stack.append(_Open({}))
            position = _WHITESPACE.match(source, position + 1).end()  # type: ignore[union-attr]
            continue
        elif char == "[":
            stack.append(_Open([]))
            position = _WHITESPACE.match(source, position + 1).end()  # type: ignore[union-attr]
            if source[position : position + 1] == "]":
                position += 1
                value = stack.pop().value
            else:
                continue
        elif char == '"':
            value, position = _scan_string(source, position + 1)
        else:
            matched = _NUMBER.match(source, position)
            if matched is not None:
                number = matched.group()
                value = float(number) if any(c in number for c in ".eE") else int(number)
                position = matched.end()
            else:
                word = next((w for w in _LITERALS if source.startswith(w, position)), None)
                if word is None:
                    raise ValueError(f"unexpected {char!r} at {position}")
                value = _LITERALS[word]
                position += len(word)
        # ``value`` is complete: put it in its container, then close what it completes.
        while True:
            if not stack:
                result, done = value, True
                break
            top = stack[-1]
            if isinstance(top.value, dict):
                assert top.key is not None
                top.value[top.key] = value
                top.key = None
            else:
                top.value.append(value)
            position = _WHITESPACE.match(source, position).end()  # type: ignore[union-attr]
            char = source[position : position + 1]
            closer = "}" if isinstance(top.value, dict) else "]"
            if char == ",":
                position = _WHITESPACE.match(source, position + 1).end()  # type: ignore[union-attr]
                break
            if char != closer:
                raise ValueError(f"expected ',' or {closer!r} at {position}")
            position += 1
            value = stack.pop().value
        if done:
            break
    if _WHITESPACE.match(source, position).end() != len(source):  # type: ignore[union-attr]
        raise ValueError(f"extra data after the JSON value at {position}")
    return result


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _scalar(value: Any) -> str:
    """One scalar as the oracle writes it: ``JSON.stringify``'s (numbers spelled as JavaScript
    spells them, lone surrogates escaped), but a number JSON cannot hold as a string
    (``"Infinity"``, ``"NaN"``), as its ``toJsonText`` does."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return '"NaN"' if math.isnan(value) else ('"Infinity"' if value > 0 else '"-Infinity"')
        return js_number(value)  # ``3``, ``123456789012345680000``, ``1e+21``: Node's spelling
    text = json.dumps(value, ensure_ascii=False)
    if isinstance(value, str) and _LONE_SURROGATE.search(text):
        text = _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return text


def dumps(value: Any) -> str:
    """Compact ``JSON.stringify(value)`` (non-ASCII kept) without recursion."""
    out: list[str] = []
    # Work items: a value to write, or a literal piece of text (a str wrapped in a tuple).
    work: list[Any] = [value]
    while work:
        item = work.pop()
        if isinstance(item, tuple):
            out.append(item[0])
        elif isinstance(item, dict):
            pieces: list[Any] = [("{",)]
            for index, (key, inner) in enumerate(item.items()):
                prefix = "," if index else ""
                pieces += [(prefix + _scalar(str(key)) + ":",), inner]
            pieces.append(("}",))
            work.extend(reversed(pieces))
        elif isinstance(item, list):
            pieces = [("[",)]
            for index, inner in enumerate(item):
                if index:
                    pieces.append((",",))
                pieces.append(inner)
            pieces.append(("]",))
            work.extend(reversed(pieces))
        else:
            out.append(_scalar(item))
    return "".join(out)


def first_difference(actual: Any, expected: Any) -> str | None:
    """``None`` if the documents are equal, else where they first differ and how."""
    work: list[tuple[Any, Any, str]] = [(actual, expected, "$")]
    while work:
        ours, theirs, path = work.pop()
        if isinstance(ours, dict) and isinstance(theirs, dict):
            if ours.keys() != theirs.keys():
                only_ours = sorted(set(ours) - set(theirs))
                only_theirs = sorted(set(theirs) - set(ours))
                return f"{path}: keys only in ours {only_ours}, only in Pi's {only_theirs}"
            work.extend((ours[key], theirs[key], f"{path}.{key}") for key in reversed(list(ours)))
        elif isinstance(ours, list) and isinstance(theirs, list):
            if len(ours) != len(theirs):
                return f"{path}: {len(ours)} items in ours, {len(theirs)} in Pi's"
            work.extend((ours[i], theirs[i], f"{path}[{i}]") for i in reversed(range(len(ours))))
        elif type(ours) is not type(theirs) and not _same_number(ours, theirs):
            return f"{path}: ours {_short(ours)}, Pi's {_short(theirs)}"
        elif isinstance(ours, str) and isinstance(theirs, str) and ours != theirs:
            at = next(
                (i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
                min(len(ours), len(theirs)),
            )
            return f"{path}: at character {at}, ours {ours[max(0, at - 80) : at + 80]!r}, Pi's {theirs[max(0, at - 80) : at + 80]!r}"
        elif ours != theirs:
            return f"{path}: ours {_short(ours)}, Pi's {_short(theirs)}"
    return None


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def _short(value: Any) -> str:
    text = dumps(value) if isinstance(value, dict | list) else repr(value)
    return text if len(text) <= 300 else text[:300] + "..."
