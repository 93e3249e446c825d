"""Strict JSONL framing for RPC: LF is the only record separator.

A record ends at ``\\n`` and nowhere else: U+2028 and U+2029 (valid, unescaped, inside JSON
strings) and lone ``\\r`` are part of the record; a ``\\r`` right before the ``\\n`` is
dropped, so CRLF input works. The last record may end at end of input without a newline.
Records are split as bytes and decoded afterwards, so a multi-byte character cut between
two reads is never damaged.
"""

from __future__ import annotations

from typing import Any

import msgspec

from pi_ai.js_json import JsEncoder

_ENCODER = msgspec.json.Encoder()
_JS_ENCODER = JsEncoder()


def serialize_line(value: Any) -> bytes:
    """One record: compact JSON and ``\\n``.

    Records are plain JSON data (dicts, lists, ``msgspec.Raw``) by the time they get here,
    so msgspec's plain encoder writes them. ``pi_ai.js_json``'s ``JSON.stringify`` spelling of
    floats (``0.000015`` for ``1.5e-05``) would cost a walk over every value of every record,
    five times the encoding itself (``bench/rpc.py``: a fifth of a ``get_state`` round trip),
    for numbers any JSON reader reads the same (docs/rpc.md). Text holding an unpaired
    surrogate, which msgspec cannot write, is written as ``JSON.stringify`` escapes it.
    """
    try:
        return _ENCODER.encode(value) + b"\n"
    except UnicodeEncodeError:
        return _JS_ENCODER.encode(value) + b"\n"


class LineSplitter:
    """Feed bytes as they arrive; get back the complete records (without their line end)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        if b"\n" not in data:
            return []
        *lines, rest = bytes(self._buffer).split(b"\n")
        self._buffer = bytearray(rest)
        return [_strip_cr(line) for line in lines]

    def finish(self) -> list[bytes]:
        """End of input: the unterminated last record, if any."""
        rest, self._buffer = bytes(self._buffer), bytearray()
        return [_strip_cr(rest)] if rest else []


def _strip_cr(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\r") else line
