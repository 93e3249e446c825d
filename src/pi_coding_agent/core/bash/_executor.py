"""Running a command the user typed (``!cmd``): Pi's ``executeBash`` behaviour.

Unlike the model's ``bash`` tool there is no timeout (the user cancels), and the output is
cleaned for display (``_sanitize``). Memory stays bounded: only the most recent chunks,
about 100 KB of text, are kept; once more than 50 KB of raw output has arrived, all of the
cleaned output also goes to a private file (``fullOutputPath``; where it lives and when it is
removed: ``pi_coding_agent.core.tools.create_output_file``). The result keeps the last 2,000 lines /
50 KB, like the tool.
"""

from __future__ import annotations

import codecs
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TextIO

from pi_ai import AbortSignal
from pi_ai.js_json import utf16_len
from pi_coding_agent.core.bash._sanitize import StreamSanitizer
from pi_coding_agent.core.tools import (
    DEFAULT_MAX_BYTES,
    BashOperations,
    LocalShell,
    ShellAbortedError,
    create_output_file,
    truncate_tail,
)

ROLLING_LIMIT = DEFAULT_MAX_BYTES * 2
"""Text kept in memory, in UTF-16 code units as Pi counts it (whole chunks are dropped, so
up to one read chunk more is kept)."""


@dataclass(frozen=True, slots=True)
class BashResult:
    """What a ``bashExecution`` message records about a run."""

    output: str
    exit_code: int | None
    """``None`` when the run was cancelled (or a signal ended it)."""
    cancelled: bool
    truncated: bool
    full_output_path: str | None
    """Set whenever the temp file exists, even if the final output was not truncated."""


class _Collector:
    def __init__(self, on_chunk: Callable[[str], None] | None, keep_file: bool) -> None:
        self.on_chunk = on_chunk
        self.keep_file = keep_file
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.cleaner = StreamSanitizer()
        self.chunks: deque[tuple[str, int]] = deque()
        self.kept = 0
        self.raw_bytes = 0
        self.path: str | None = None
        self.file: TextIO | None = None

    def feed(self, data: bytes) -> None:
        self.raw_bytes += len(data)
        self._add(self.cleaner.feed(self.decoder.decode(data)))

    def finish(self) -> None:
        self._add(self.cleaner.feed(self.decoder.decode(b"", final=True)) + self.cleaner.flush())

    def _add(self, text: str) -> None:
        if self.raw_bytes > DEFAULT_MAX_BYTES:
            self.ensure_file()
        if self.file is not None:
            self.file.write(text)
        if not text:
            return
        size = utf16_len(text)
        self.chunks.append((text, size))
        self.kept += size
        # Drop the oldest chunk only while what remains is still a full window: Pi drops it
        # as soon as the total is over the window, which can leave less than the 50 KB the
        # result shows (and then reports the cut output as not truncated).
        while len(self.chunks) > 1 and self.kept - self.chunks[0][1] >= ROLLING_LIMIT:
            self.kept -= self.chunks.popleft()[1]
        if self.on_chunk is not None:
            self.on_chunk(text)

    def ensure_file(self) -> None:
        if self.path is not None:
            return
        self.path, fd = create_output_file("pi-bash", keep=self.keep_file)
        self.file = open(fd, "w", encoding="utf-8", errors="replace", newline="")  # noqa: SIM115
        for text, _ in self.chunks:
            self.file.write(text)

    def result(self, exit_code: int | None, cancelled: bool) -> BashResult:
        full = "".join(text for text, _ in self.chunks)
        truncation = truncate_tail(full)
        if truncation.truncated:
            self.ensure_file()
        self.close()
        return BashResult(
            output=truncation.content if truncation.truncated else full,
            exit_code=None if cancelled else exit_code,
            cancelled=cancelled,
            truncated=truncation.truncated,
            full_output_path=self.path,
        )

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


async def execute_bash(
    command: str,
    cwd: str,
    *,
    signal: AbortSignal | None = None,
    on_chunk: Callable[[str], None] | None = None,
    operations: BashOperations | None = None,
    env: Mapping[str, str] | None = None,
    keep_full_output: bool = True,
) -> BashResult:
    """Run ``command`` in the user's shell in ``cwd`` until it ends or ``signal`` fires.

    ``on_chunk`` receives each piece of cleaned output as it arrives. Cancelling kills the
    whole process group and returns ``cancelled=True`` with the output so far. A missing
    ``cwd`` raises ``ToolError`` (``Working directory does not exist: ...``).
    ``keep_full_output=False`` when nothing will store ``full_output_path`` (no session file):
    the file is then removed when the process exits.
    """
    collector = _Collector(on_chunk, keep_full_output)
    shell = operations or LocalShell()
    try:
        exit_code = await shell.exec(command, cwd, on_data=collector.feed, signal=signal, env=env)
    except ShellAbortedError:
        collector.finish()
        return collector.result(None, True)
    except BaseException:
        collector.close()
        raise
    collector.finish()
    return collector.result(exit_code, signal is not None and signal.aborted)
