"""Output size limits shared by the built-in tools and the user bash executor.

Two independent limits apply, whichever is hit first: a line count and a UTF-8 byte count.
``truncate_head`` keeps the beginning (file reads, search results), ``truncate_tail`` keeps
the end (command output, where the errors usually are). Only whole lines are kept, except
when the very last line of a tail alone is over the byte limit: then its end is kept.

The result is stored in tool ``details`` with Pi's camelCase keys (``to_json``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pi_ai.js_json import utf16_len

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
"""Characters kept of one grep line (counted like JavaScript: UTF-16 code units)."""

TruncatedBy = Literal["lines", "bytes"]


@dataclass(slots=True)
class TruncationResult:
    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_json(self) -> dict[str, Any]:
        """The object as Pi stores it in ``details.truncation`` (same keys, same order)."""
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


def utf8_len(text: str) -> int:
    """UTF-8 byte length; lone surrogates count 3 bytes like the replacement char Node writes."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "replace"))


def count_lines(content: str) -> list[str]:
    """Split for counting: a trailing newline does not start another line; ``""`` has none."""
    if not content:
        return []
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    return lines


def format_size(num_bytes: int) -> str:
    """``512B``, ``50.0KB``, ``1.5MB`` (one decimal, like Pi's notices)."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{_to_fixed1(num_bytes / 1024)}KB"
    return f"{_to_fixed1(num_bytes / (1024 * 1024))}MB"


def _to_fixed1(value: float) -> str:
    # JavaScript's toFixed rounds half away from zero on the decimal expansion of the double;
    # Python's format rounds half to even. They only differ on exact ties.
    scaled = value * 10
    rounded = int(scaled + 0.5) if scaled - int(scaled) == 0.5 else round(scaled)
    return f"{rounded // 10}.{rounded % 10}"


def _untruncated(content: str, lines: int, size: int, max_lines: int, max_bytes: int) -> TruncationResult:
    return TruncationResult(
        content=content,
        truncated=False,
        truncated_by=None,
        total_lines=lines,
        total_bytes=size,
        output_lines=lines,
        output_bytes=size,
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_head(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the start. A first line over the byte limit yields empty content.

    Only the beginning of a big text is split into lines: a character is at least one byte,
    so nothing past the first ``max_bytes + 2`` characters can be kept, and a line cut there
    can never fit.
    """
    total_bytes = utf8_len(content)
    total_lines = _line_count(content)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)
    newline = content.find("\n")
    first_line = content if newline == -1 else content[:newline]
    if utf8_len(first_line) > max_bytes:
        return TruncationResult(
            content="",
            truncated=True,
            truncated_by="bytes",
            total_lines=total_lines,
            total_bytes=total_bytes,
            output_lines=0,
            output_bytes=0,
            last_line_partial=False,
            first_line_exceeds_limit=True,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )
    prefix = content[: max_bytes + 2]
    lines = prefix.split("\n", max_lines)
    if len(lines) <= max_lines and len(prefix) == len(content) and content.endswith("\n"):
        lines.pop()  # the empty "line" after a final newline is not a line
    kept: list[str] = []
    used = 0
    by: TruncatedBy = "lines"
    for index, line in enumerate(lines[:max_lines]):
        cost = utf8_len(line) + (1 if index > 0 else 0)
        if used + cost > max_bytes:
            by = "bytes"
            break
        kept.append(line)
        used += cost
    if len(kept) >= max_lines and used <= max_bytes:
        by = "lines"
    output = "\n".join(kept)
    return TruncationResult(
        content=output,
        truncated=True,
        truncated_by=by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=utf8_len(output),
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def _line_count(content: str) -> int:
    if not content:
        return 0
    return content.count("\n") + (0 if content.endswith("\n") else 1)


def truncate_tail(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the end; if the last line alone is too big, keep its last bytes."""
    total_bytes = utf8_len(content)
    lines = count_lines(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)
    kept: list[str] = []
    used = 0
    by: TruncatedBy = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            by = "bytes"
            if not kept:
                tail = tail_bytes(line, max_bytes)
                kept.append(tail)
                used = utf8_len(tail)
                partial = True
            break
        kept.append(line)
        used += cost
    if len(kept) >= max_lines and used <= max_bytes:
        by = "lines"
    kept.reverse()
    output = "\n".join(kept)
    return TruncationResult(
        content=output,
        truncated=True,
        truncated_by=by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=utf8_len(output),
        last_line_partial=partial,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def tail_bytes(text: str, max_bytes: int) -> str:
    """The longest suffix of ``text`` within ``max_bytes`` UTF-8 bytes, cut at a char boundary."""
    data = text.encode("utf-8", "replace")
    if len(data) <= max_bytes:
        return text
    start = len(data) - max_bytes
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", "replace")


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` (UTF-16 units, as Pi counts) and mark it.

    A surrogate pair straddling the cut is dropped whole rather than split.
    """
    if utf16_len(line) <= max_chars:
        return line, False
    units = 0
    end = 0
    for char in line:
        width = 2 if ord(char) > 0xFFFF else 1
        if units + width > max_chars:
            break
        units += width
        end += 1
    return f"{line[:end]}... [truncated]", True
