"""Truncation helpers: both limits, whichever comes first, whole lines, UTF-8 boundaries."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_coding_agent.core.tools import format_size, truncate_head, truncate_line, truncate_tail


def test_head_untouched_within_limits() -> None:
    result = truncate_head("a\nb\n", max_lines=2, max_bytes=10)
    assert (result.content, result.truncated, result.truncated_by) == ("a\nb\n", False, None)
    assert (result.total_lines, result.total_bytes) == (2, 4)


def test_head_by_lines_and_by_bytes() -> None:
    text = "\n".join(f"l{i}" for i in range(10))
    by_lines = truncate_head(text, max_lines=3, max_bytes=1000)
    assert (by_lines.content, by_lines.truncated_by, by_lines.output_lines) == ("l0\nl1\nl2", "lines", 3)
    by_bytes = truncate_head(text, max_lines=100, max_bytes=7)
    assert (by_bytes.content, by_bytes.truncated_by, by_bytes.output_bytes) == ("l0\nl1", "bytes", 5)


def test_head_first_line_over_limit_gives_nothing() -> None:
    result = truncate_head("x" * 20 + "\nshort", max_bytes=10)
    assert result.content == "" and result.first_line_exceeds_limit and result.truncated_by == "bytes"


def test_head_counts_utf8_bytes() -> None:
    result = truncate_head("é" * 5 + "\n" + "é", max_bytes=11)
    assert result.content == "é" * 5 and result.total_bytes == 13


def test_tail_keeps_the_end() -> None:
    text = "\n".join(f"l{i}" for i in range(10)) + "\n"
    result = truncate_tail(text, max_lines=2)
    assert (result.content, result.total_lines, result.truncated_by) == ("l8\nl9", 10, "lines")


def test_tail_partial_last_line_cut_at_char_boundary() -> None:
    result = truncate_tail("start\n" + "ab€" * 10, max_bytes=8)
    assert result.last_line_partial and result.truncated_by == "bytes"
    assert result.content == "€ab€" and result.output_bytes == 8
    odd = truncate_tail("€" * 10, max_bytes=7)
    assert odd.content == "€€" and odd.output_bytes == 6


def test_details_json_keys_are_pis() -> None:
    keys = list(truncate_tail("x").to_json())
    assert keys == [
        "content", "truncated", "truncatedBy", "totalLines", "totalBytes", "outputLines",
        "outputBytes", "lastLinePartial", "firstLineExceedsLimit", "maxLines", "maxBytes",
    ]  # fmt: skip


def test_format_size() -> None:
    assert [format_size(n) for n in (0, 1023, 1024, 1280, 51200, 1536 * 1024)] == [
        "0B", "1023B", "1.0KB", "1.3KB", "50.0KB", "1.5MB",
    ]  # fmt: skip


def test_truncate_line_counts_utf16_units() -> None:
    assert truncate_line("abc", 3) == ("abc", False)
    assert truncate_line("abcd", 3) == ("abc... [truncated]", True)
    # An astral character is two units: it does not fit in the last single unit.
    assert truncate_line("ab\U0001f600", 3) == ("ab... [truncated]", True)


def _reference_head(content: str, max_lines: int, max_bytes: int) -> tuple[str, str | None, int, int, bool]:
    """Spec 8.1 taken literally: split everything, keep whole lines while both limits hold."""
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    if not content:
        lines = []
    size = len(content.encode())
    if len(lines) <= max_lines and size <= max_bytes:
        return content, None, len(lines), size, False
    if len(lines[0].encode()) > max_bytes:
        return "", "bytes", len(lines), size, True
    kept: list[str] = []
    used = 0
    by = "lines"
    for index, line in enumerate(lines[:max_lines]):
        cost = len(line.encode()) + (1 if index else 0)
        if used + cost > max_bytes:
            by = "bytes"
            break
        kept.append(line)
        used += cost
    return "\n".join(kept), by, len(lines), size, False


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["", "a", "bb", "é", "x" * 7, "\u20ac\u20ac"]), max_size=12),
    max_lines=st.integers(1, 6),
    max_bytes=st.integers(1, 20),
)
def test_truncate_head_matches_the_literal_algorithm(
    lines: list[str], max_lines: int, max_bytes: int
) -> None:
    content = "\n".join(lines)
    result = truncate_head(content, max_lines=max_lines, max_bytes=max_bytes)
    expected = _reference_head(content, max_lines, max_bytes)
    assert (result.content, result.truncated_by, result.total_lines, result.total_bytes) == expected[:4]
    assert result.first_line_exceeds_limit == expected[4]
