"""Reading just the header (first parsed line) of a session file."""

from __future__ import annotations

from typing import Any

from pi_coding_agent.core.session._files import open_for_reading
from pi_coding_agent.core.session._lines import LineError, parse_line

HEADER_SCAN_LIMIT = 1 << 20


def read_header(path: str, limit: int = HEADER_SCAN_LIMIT) -> dict[str, Any] | None:
    """The first parsed line of ``path`` if it is a session header, reading at most ``limit`` bytes.

    ``NotRegularFileError`` if ``path`` is a FIFO, a device, a directory or a socket."""
    try:
        with open_for_reading(path) as file:
            pending = b""
            while True:
                block = file.read(4096)
                *lines, pending = (pending + block).split(b"\n")
                if not block:
                    lines.append(pending)
                for line in lines:
                    verdict = _header_candidate(line)
                    if verdict is not _SKIP:
                        return verdict if isinstance(verdict, dict) else None
                if not block:
                    return None
                if file.tell() >= limit and file.read(1):
                    return None  # no header within the first ``limit`` bytes
    except OSError:
        return None


_SKIP = object()


def _header_candidate(line: bytes) -> object:
    """``_SKIP`` for blank/unparsable lines, the header dict, or ``None`` for any other value."""
    if not line.strip():
        return _SKIP
    try:
        value = parse_line(line)
    except LineError:
        return _SKIP
    if not value:
        return _SKIP
    if isinstance(value, dict) and value.get("type") == "session" and isinstance(value.get("id"), str):
        return value
    return None
