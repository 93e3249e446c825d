"""AWS event-stream framing (``application/vnd.amazon.eventstream``), the binary body of
Bedrock's ``ConverseStream``: an incremental decoder.

Each message is: total length (u32, big-endian), headers length (u32), a CRC-32 of those 8
bytes, the headers, the payload, and a CRC-32 of everything before it. A header is a
one-byte name length, the name, a one-byte value type and the value (strings and byte
arrays carry a u16 length). Bedrock sends ``:message-type`` (``event``, ``exception`` or
``error``), ``:event-type`` / ``:exception-type`` / ``:error-code`` and a JSON payload.

Written here rather than taken from botocore: the framing is this page of code, and
botocore costs far more to import (docs/decisions/0005-aws-signing-and-credentials.md).
"""

from __future__ import annotations

import struct
import uuid
import zlib
from dataclasses import dataclass

__all__ = ["EventStreamDecoder", "EventStreamError", "EventStreamMessage"]

_PRELUDE = 12
_MIN_MESSAGE = 16
_MAX_MESSAGE = 16 * 1024 * 1024
"""The largest message the AWS SDKs accept (16 MiB)."""

HeaderValue = bool | int | bytes | str


class EventStreamError(Exception):
    """The body is not a well-formed event stream (a checksum or a length is wrong)."""


@dataclass(frozen=True, slots=True)
class EventStreamMessage:
    headers: dict[str, HeaderValue]
    payload: bytes


class EventStreamDecoder:
    """Feed body bytes in any pieces; get back the messages they complete."""

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[EventStreamMessage]:
        buffer = self._buffer
        buffer += data
        messages: list[EventStreamMessage] = []
        offset = 0
        while len(buffer) - offset >= _PRELUDE:
            total, headers_length, prelude_crc = struct.unpack_from(">III", buffer, offset)
            if zlib.crc32(buffer[offset : offset + 8]) != prelude_crc:
                raise EventStreamError(
                    f"The prelude checksum specified in the message ({prelude_crc}) does not match "
                    f"the calculated CRC32 checksum ({zlib.crc32(buffer[offset : offset + 8])})."
                )
            if total < _MIN_MESSAGE or total > _MAX_MESSAGE or headers_length > total - _MIN_MESSAGE:
                raise EventStreamError(f"Invalid event stream message length: {total}")
            if len(buffer) - offset < total:
                break
            end = offset + total
            (message_crc,) = struct.unpack_from(">I", buffer, end - 4)
            calculated = zlib.crc32(buffer[offset : end - 4])
            if calculated != message_crc:
                raise EventStreamError(
                    f"The message checksum ({calculated}) did not match the expected value of {message_crc}"
                )
            headers_start = offset + _PRELUDE
            payload_start = headers_start + headers_length
            headers = _parse_headers(bytes(buffer[headers_start:payload_start]))
            messages.append(EventStreamMessage(headers, bytes(buffer[payload_start : end - 4])))
            offset = end
        if offset:
            del buffer[:offset]
        return messages

    def finish(self) -> None:
        """The body ended: bytes of an unfinished message are an error."""
        if self._buffer:
            raise EventStreamError("The event stream ended in the middle of a message")


_FIXED = {2: (1, ">b"), 3: (2, ">h"), 4: (4, ">i"), 5: (8, ">q"), 8: (8, ">q")}


def _parse_headers(data: bytes) -> dict[str, HeaderValue]:
    headers: dict[str, HeaderValue] = {}
    offset = 0
    try:
        while offset < len(data):
            name_length = data[offset]
            name = data[offset + 1 : offset + 1 + name_length].decode("utf-8")
            offset += 1 + name_length
            kind = data[offset]
            offset += 1
            value: HeaderValue
            if kind in (0, 1):
                value = kind == 0
            elif kind in _FIXED:
                size, fmt = _FIXED[kind]
                (value,) = struct.unpack_from(fmt, data, offset)
                offset += size
            elif kind in (6, 7):
                (length,) = struct.unpack_from(">H", data, offset)
                raw = data[offset + 2 : offset + 2 + length]
                value = raw.decode("utf-8") if kind == 7 else raw
                offset += 2 + length
            elif kind == 9:
                value = str(uuid.UUID(bytes=data[offset : offset + 16]))
                offset += 16
            else:
                raise EventStreamError(f"Unrecognized header type tag {kind}")
            headers[name] = value
    except (IndexError, struct.error, UnicodeDecodeError):
        raise EventStreamError("Malformed event stream headers") from None
    return headers
