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

_ENCODER = msgspec.json.Encoder()


def serialize_line(value: Any) -> bytes:
    """One record: compact JSON (as ``JSON.stringify`` writes it) and ``\\n``.

    Records are plain JSON data (dicts, lists, ``msgspec.Raw``) by the time they get here,
    so the plain encoder is used: ``pi_ai.encode`` would first search every value for wire
    structs carrying unknown keys, which cost most of a ``get_state`` answer (``bench/rpc.py``).
    """
    return _ENCODER.encode(value) + b"\n"


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
