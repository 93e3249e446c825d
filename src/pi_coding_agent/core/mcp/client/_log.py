"""``mcp.log``: the messages servers send with ``notifications/message``, one line each,
``<ISO time> [<server>] <level> <logger>: <message>`` (continuation lines indented four spaces),
as Pi 1.6 writes them. Past 5 MB the file moves to ``mcp.log.1``. Writing never fails a call:
the log is best effort."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from typing import Any

MAX_LOG_BYTES = 5 * 1024 * 1024


def format_log_line(
    server: str, level: str | None, logger: str | None, data: Any, now: datetime | None = None
) -> str:
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if isinstance(data, str):
        text = data
    else:
        try:
            text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(data)
    text = text.replace("\r\n", "\n").replace("\n", "\n    ")
    named = f" {logger}:" if logger else ""
    return f"{stamp} [{server}] {level or 'info'}{named} {text}\n"


class McpServerLog:
    """Appends to one file; several pi processes may share it (one append per line)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._size: int | None = None

    def _current_size(self) -> int:
        try:
            return os.stat(self.path).st_size
        except OSError:
            return 0

    def write(self, server: str, level: str | None, logger: str | None, data: Any) -> None:
        line = format_log_line(server, level, logger, data).encode("utf-8")
        try:
            if self._size is None:
                os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
                self._size = self._current_size()
            if self._size > MAX_LOG_BYTES:
                if self._current_size() > MAX_LOG_BYTES:  # another process may have rotated it
                    os.replace(self.path, self.path + ".1")
                self._size = self._current_size()
            with open(self.path, "ab") as file:
                file.write(line)
            self._size += len(line)
        except OSError:
            return
