"""The SSE decoder: the SDKs' line rules whatever the chunking, and work linear in the bytes.

Behaviour: every split of a body (inside UTF-8 characters, between ``\\r`` and ``\\n``, inside
the byte order mark) gives the events a plain line-by-line reading of the whole body gives.

Complexity is asserted by counting, never by timing: the bytes allocated while feeding
(every copy of buffered text allocates a new string, so a decoder that rejoins its buffer
per chunk allocates quadratically) and the Python bytecode instructions executed (a loop over
buffered pieces per chunk would show there). Both are deterministic.
"""

from __future__ import annotations

import re
import sys
import tracemalloc
from collections.abc import Callable
from types import FrameType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_ai.api._sse import SseDecoder
from tests.reliability.figures import record
from tests.support.loopback import split

Events = list[tuple[str | None, str]]


def _decode(pieces: list[bytes], *, flush_partial: bool = True) -> Events:
    decoder = SseDecoder()
    events = []
    for piece in pieces:
        events += decoder.feed(piece)
    events += decoder.finish(flush_partial=flush_partial)
    return [(event.event, event.data) for event in events]


def _reference(body: bytes, *, flush_partial: bool) -> Events:
    """The SSE line rules applied to the whole body at once, written as plainly as possible."""
    text = body.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = re.split(r"\r\n|\r|\n", text)
    last = lines.pop()  # text after the last line break (a line only when the body ends)
    events: Events = []
    name: str | None = None
    data: list[str] = []

    def take(line: str) -> None:
        nonlocal name, data
        if line == "":
            if name is not None or data:
                events.append((name, "\n".join(data)))
            name, data = None, []
            return
        if line.startswith(":"):
            return
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)

    for line in lines:
        take(line)
    if flush_partial:
        if last:
            take(last)
        take("")
    return events


def test_every_split_of_a_tricky_body() -> None:
    body = (
        '\ufeffevent: a\r\ndata: {"t":"héllo 😀"}\r\n\r\n: comment\ndata:x\ndata: y\n\n'
        "id: 7\nretry: 1000\nevent: b\rdata: z\r\r"
        "data\nevent\n\n"
        "data: tail"
    ).encode()
    expected: Events = [("a", '{"t":"héllo 😀"}'), (None, "x\ny"), ("b", "z"), ("", ""), (None, "tail")]
    for size in range(1, len(body) + 1):
        assert _decode(split(body, size)) == expected, size
    assert _decode([body], flush_partial=False) == expected[:-1]


def test_crlf_split_between_chunks_is_one_line_break() -> None:
    assert _decode([b"data: 1\r", b"\n", b"\r", b"\ndata: 2\r\n\r\n"]) == [(None, "1"), (None, "2")]
    # a lone CR at the end of a chunk followed by text: a line break, not swallowed
    assert _decode([b"data: 1\r", b"data: 2\r", b"\r"]) == [(None, "1\n2")]


def test_cr_then_a_chunk_that_decodes_to_nothing() -> None:
    # The second chunk is half a character: no text yet, and the CR still waits for its LF.
    assert _decode([b"data: 1\r", b"\xc3", b"\xa9\ndata: 2\n\n"]) == [(None, "1\n2")]
    assert _decode([b"data: \xc3\r", b"\xe2", b"\x82"]) == [(None, "\ufffd")]
    assert _decode([b"data: 1\r", b"\xe2\x82"]) == [(None, "1")]


def test_only_the_leading_byte_order_mark_is_dropped() -> None:
    body = b"\xef\xbb\xbfdata: a\n\n\xef\xbb\xbfdata: b\n\ndata: c\n\n"
    for size in (1, 2, 3, 4, len(body)):
        # the second BOM makes "\ufeffdata" a field name nobody knows: that event is empty
        assert _decode(split(body, size)) == [(None, "a"), (None, "c")], size


def test_invalid_utf8_becomes_replacement_characters() -> None:
    assert _decode(split(b"data: \xff\xe2\x82\n\n", 1)) == [(None, "\ufffd\ufffd")]
    assert _decode([b"data: \xe2\x82"]) == [(None, "\ufffd")]


def test_unterminated_event_is_flushed_only_when_asked() -> None:
    assert _decode([b"event: e\ndata: 1\n"], flush_partial=True) == [("e", "1")]
    assert _decode([b"event: e\ndata: 1\n"], flush_partial=False) == []


def test_raw_lines_keep_comments_and_unknown_fields() -> None:
    decoder = SseDecoder()
    (event,) = decoder.feed(b": hi\nid: 3\nevent: x\ndata: {}\n\n")
    assert event.raw == [": hi", "id: 3", "event: x", "data: {}"]
    (plain,) = decoder.feed(b"event: y\ndata: 2\n\n")
    assert plain.raw == ["event: y", "data: 2"]


_PIECES = [
    "data:",
    "data: ",
    "event:",
    "event: e",
    ":",
    ": c",
    "id: 1",
    "retry: 5",
    "x",
    "{}",
    " ",
    "\r",
    "\n",
    "\r\n",
    "\n\n",
    "é",
    "😀",
    "\ufeff",
]


@settings(max_examples=500, deadline=None)  # new bodies each run
@given(
    st.lists(st.sampled_from(_PIECES), max_size=40).map("".join).map(str.encode),
    st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=8),
    st.booleans(),
)
def test_any_body_any_split_matches_the_plain_reading(body: bytes, sizes: list[int], flush: bool) -> None:
    record("fuzz_input", target="SSE decoder")
    pieces, offset, turn = [], 0, 0
    while offset < len(body):
        size = sizes[turn % len(sizes)]
        pieces.append(body[offset : offset + size])
        offset += size
        turn += 1
    # A "\r" ending one chunk and the "\n" starting the next are one line break, as in the body.
    expected = _reference(body, flush_partial=flush)
    assert _decode(pieces, flush_partial=flush) == expected
    assert _decode(split(body, 1), flush_partial=flush) == expected


# --------------------------------------------------------------------------- complexity


def _allocated_while_feeding(pieces: list[bytes]) -> int:
    """Sum over ``feed`` calls of the most memory each one held beyond what existed before it."""
    decoder = SseDecoder()
    total = 0
    events = []
    tracemalloc.start()
    try:
        for piece in pieces:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            events += decoder.feed(piece)
            total += tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert len(events) == 1
    return total


def _instructions_while_feeding(pieces: list[bytes]) -> int:
    """Python bytecode instructions executed inside the decoder's own frames."""
    decoder = SseDecoder()
    count = 0
    module_file = sys.modules[SseDecoder.__module__].__file__

    def tracer(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        nonlocal count
        if event == "call":
            if frame.f_code.co_filename != module_file:
                return None
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        for piece in pieces:
            decoder.feed(piece)
        decoder.finish(flush_partial=True)
    finally:
        sys.settrace(None)
    return count


def _one_event(size: int) -> bytes:
    return b"event: big\ndata: " + b"x" * size + b"\n\n"


def test_work_is_linear_in_event_size_for_tiny_chunks() -> None:
    """Four times the bytes, fed 1 or 3 bytes at a time, cost about four times the work.

    A decoder that rejoins or rescans what it buffered on every chunk does work proportional to
    the square of the event's size: sixteen times as much here (the decoder this replaced
    allocated 2.1 GB feeding the 64 KB event byte by byte; this one allocates 0.6 MB).
    """
    for chunk in (1, 3):
        small = split(_one_event(16_384), chunk)
        large = split(_one_event(65_536), chunk)
        allocated_small = _allocated_while_feeding(small)
        allocated_large = _allocated_while_feeding(large)
        assert allocated_large < 5 * allocated_small, (chunk, allocated_small, allocated_large)
        # about 10 (1-byte chunks) and 21 (3-byte chunks) bytes per byte; the old decoder: 33,000
        assert allocated_large / 65_536 < 64, (chunk, allocated_large)
    small_ops = _instructions_while_feeding(split(_one_event(4_096), 1))
    large_ops = _instructions_while_feeding(split(_one_event(16_384), 1))
    assert large_ops < 4.5 * small_ops, (small_ops, large_ops)
