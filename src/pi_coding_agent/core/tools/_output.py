"""Streaming command output with bounded memory, for the ``bash`` tool.

Raw bytes are decoded incrementally (a character split across chunks is not mangled);
only a decoded tail of about 100-200 KB is kept for display, while line and byte totals
cover everything. Once the output is over a limit, every raw byte (including what was
received before) goes to a private file whose path the result reports, so nothing is lost
(``_output_files`` says where it lives and when it is removed).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, replace
from typing import BinaryIO

from pi_coding_agent.core.tools._output_files import create_output_file
from pi_coding_agent.core.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    truncate_tail,
    utf8_len,
)


@dataclass(slots=True)
class OutputSnapshot:
    content: str
    truncation: TruncationResult
    full_output_path: str | None


class OutputAccumulator:
    def __init__(
        self,
        *,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        temp_file_prefix: str = "pi-output",
        keep_file: bool = True,
    ) -> None:
        """``keep_file``: the file's path will be stored in a session file, so it outlives
        this process (see ``_output_files``); otherwise it is removed when the process exits."""
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.max_rolling_bytes = max(max_bytes * 2, 1)
        self.temp_file_prefix = temp_file_prefix
        self.keep_file = keep_file
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._raw_chunks: list[bytes] = []
        self._tail = ""
        self._tail_bytes = 0
        self._tail_at_line_start = True
        self._raw_bytes = 0
        self._decoded_bytes = 0
        self._completed_lines = 0
        self._total_lines = 0
        self._line_bytes = 0
        self._open_line = False
        self._finished = False
        self.full_output_path: str | None = None
        self._file: BinaryIO | None = None

    @property
    def last_line_bytes(self) -> int:
        """Bytes of the last (possibly unterminated) line, however long."""
        return self._line_bytes

    def append(self, data: bytes) -> None:
        if self._finished:
            raise RuntimeError("Cannot append to a finished output accumulator")
        self._raw_bytes += len(data)
        self._add_text(self._decoder.decode(data))
        if self._file is not None or self._over_limit():
            self._ensure_file()
            assert self._file is not None
            self._file.write(data)
        elif data:
            self._raw_chunks.append(data)

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._add_text(self._decoder.decode(b"", final=True))
        if self._over_limit():
            self._ensure_file()

    def snapshot(self, *, persist_if_truncated: bool = False) -> OutputSnapshot:
        tail = truncate_tail(self._snapshot_text(), max_lines=self.max_lines, max_bytes=self.max_bytes)
        truncated = self._total_lines > self.max_lines or self._decoded_bytes > self.max_bytes
        by = None
        if truncated:
            by = tail.truncated_by or ("bytes" if self._decoded_bytes > self.max_bytes else "lines")
        truncation = replace(
            tail,
            truncated=truncated,
            truncated_by=by,
            total_lines=self._total_lines,
            total_bytes=self._decoded_bytes,
        )
        if persist_if_truncated and truncated:
            self._ensure_file()
        return OutputSnapshot(truncation.content, truncation, self.full_output_path)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _add_text(self, text: str) -> None:
        if not text:
            return
        size = utf8_len(text)
        self._decoded_bytes += size
        self._tail += text
        self._tail_bytes += size
        if self._tail_bytes > self.max_rolling_bytes * 2:
            self._trim()
        newlines = text.count("\n")
        if newlines == 0:
            self._line_bytes += size
            self._open_line = True
        else:
            self._completed_lines += newlines
            rest = text[text.rfind("\n") + 1 :]
            self._line_bytes = utf8_len(rest)
            self._open_line = bool(rest)
        self._total_lines = self._completed_lines + (1 if self._open_line else 0)

    def _trim(self) -> None:
        data = self._tail.encode("utf-8", "replace")
        if len(data) <= self.max_rolling_bytes:
            self._tail_bytes = len(data)
            return
        start = len(data) - self.max_rolling_bytes
        while start < len(data) and (data[start] & 0xC0) == 0x80:
            start += 1
        if start:
            self._tail_at_line_start = data[start - 1] == 0x0A
        self._tail = data[start:].decode("utf-8", "replace")
        self._tail_bytes = utf8_len(self._tail)

    def _snapshot_text(self) -> str:
        if self._tail_at_line_start:
            return self._tail
        newline = self._tail.find("\n")
        return self._tail if newline == -1 else self._tail[newline + 1 :]

    def _over_limit(self) -> bool:
        return (
            self._raw_bytes > self.max_bytes
            or self._decoded_bytes > self.max_bytes
            or self._total_lines > self.max_lines
        )

    def _ensure_file(self) -> None:
        if self.full_output_path is not None:
            return
        self.full_output_path, fd = create_output_file(self.temp_file_prefix, keep=self.keep_file)
        self._file = open(fd, "wb")  # noqa: SIM115 - closed by close()
        for chunk in self._raw_chunks:
            self._file.write(chunk)
        self._raw_chunks = []
