"""Writing AWS event-stream messages, as Bedrock's ConverseStream sends them, for loopback
servers and recorded cases (the real Pi's AWS SDK checks every checksum we write)."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any


def _string_header(name: str, value: str) -> bytes:
    raw_name = name.encode()
    raw_value = value.encode()
    return bytes([len(raw_name)]) + raw_name + b"\x07" + struct.pack(">H", len(raw_value)) + raw_value


def message(headers: dict[str, str], payload: bytes) -> bytes:
    """One framed message with string-valued headers."""
    encoded = b"".join(_string_header(name, value) for name, value in headers.items())
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body))


def event(event_type: str, payload: Any) -> bytes:
    """A ``:message-type: event`` message with a JSON payload."""
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return message(headers, json.dumps(payload, separators=(",", ":")).encode())


def exception(exception_type: str, message_text: str) -> bytes:
    """A modeled exception in the stream (``throttlingException``, ...)."""
    headers = {
        ":exception-type": exception_type,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return message(headers, json.dumps({"message": message_text}).encode())


def error(code: str, message_text: str) -> bytes:
    """An unmodeled ``:message-type: error`` message."""
    return message({":error-code": code, ":error-message": message_text, ":message-type": "error"}, b"")


def text_stream(text: str, *, stop: str = "end_turn", usage: dict[str, int] | None = None) -> bytes:
    """A whole ConverseStream body answering ``text``."""
    counts = usage or {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}
    return b"".join(
        [
            event("messageStart", {"role": "assistant"}),
            event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text}}),
            event("contentBlockStop", {"contentBlockIndex": 0}),
            event("messageStop", {"stopReason": stop}),
            event("metadata", {"usage": counts, "metrics": {"latencyMs": 100}}),
        ]
    )
