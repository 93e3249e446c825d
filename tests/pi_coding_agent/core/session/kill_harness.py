"""kill -9 during appends, many times over (run by ``test_safety``; also a script).

    python kill_harness.py FOLDER ROUNDS SEED

Each round seeds a new session file, forks a writer that opens it and appends entries of
random sizes (100 bytes to 300 KB, so kills land inside long writes too), acknowledging
each append on a pipe once it returned, and kills the writer with SIGKILL a random delay
after its first 0 to 3 acknowledgements (so the kills do not depend on the machine's speed). Then the file is checked: every acknowledged entry is there, whole; at most one
problem, a torn last line; a writer can open it, append and be read back. A copy of each
file as the kill left it is kept for the oracle (``survivor-N.jsonl``). Prints a JSON
summary: kills, acknowledged entries, entries lost, files we could not read.
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from pi_ai import AssistantMessage, TextContent, Usage, UserMessage
from pi_coding_agent.core.session import SessionManager


def _assistant(text: str, number: int) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)],
        api="a",
        provider="p",
        model="m",
        usage=Usage(input=1, output=1, total_tokens=2),
        stop_reason="stop",
        timestamp=number,
    )


def _writer(path: Path, ack: int, seed: int) -> None:
    """The child: append until killed; write each returned id to ``ack``."""
    rng = random.Random(seed)
    manager = SessionManager.open(str(path))
    for number in range(1_000_000):
        size = rng.choice((100, 2_000, 40_000, 300_000))
        entry_id = manager.append_message(_assistant("x" * size, number))
        os.write(ack, f"{entry_id}\n".encode())


def _seed(folder: Path, number: int) -> Path:
    manager = SessionManager.create("/kill", str(folder), durable=False)
    manager.append_message(UserMessage(content=[TextContent(text="start")], timestamp=0))
    manager.append_message(_assistant("ok", 0))
    path = Path(manager.get_session_file() or "")
    manager.close()
    return path.rename(folder / f"round-{number}.jsonl")


def _one_round(folder: Path, number: int, rng: random.Random) -> dict[str, Any]:
    path = _seed(folder, number)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked writer
        os.close(read_end)
        try:
            _writer(path, write_end, rng.randrange(1 << 30))
        finally:
            os._exit(0)
    os.close(write_end)
    # Wait for a few acknowledgements first, so most kills land after some appends returned
    # however slow the machine and its syncs are; then kill at a random moment.
    early = _read_acks(read_end, rng.choice((0, 1, 1, 2, 3)))
    time.sleep(rng.choice((0.0, 0.002, 0.01, 0.02, 0.04)))
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
    acked = (early + _read_all(read_end)).split()
    os.close(read_end)
    survivor = folder / f"survivor-{number}.jsonl"
    shutil.copyfile(path, survivor)
    return {"path": str(path), "survivor": str(survivor), "acked": [ack.decode() for ack in acked]}


def _read_acks(fd: int, count: int, within: float = 60.0) -> bytes:
    """Read from the acknowledgement pipe until ``count`` ids came (or the writer is gone, or
    ``within`` seconds passed: a bound on a stuck writer, not a timing)."""
    data = b""
    deadline = time.monotonic() + within
    while data.count(b"\n") < count and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 65536) if ready else b""
        if not chunk:
            break
        data += chunk
    return data


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def check(result: dict[str, Any]) -> dict[str, Any]:
    """What the killed writer left: lost acknowledged entries, unreadable or odd files."""
    path = result["path"]
    reader = SessionManager.open(path, read_only=True)
    lost = [entry_id for entry_id in result["acked"] if reader.get_entry(entry_id) is None]
    problems = reader.problems
    odd = len(problems) > 1 or any(problem.kind != "torn" for problem in problems)
    ids = [entry.id for entry in reader.get_entries()]
    with SessionManager.open(path) as writer:  # repairs a torn line, as Pi does
        after = writer.append_message(UserMessage(content=[TextContent(text="after")], timestamp=1))
    readable = SessionManager.open(path, read_only=True).get_entry(after) is not None
    return {"lost": lost, "odd": odd, "unreadable": not readable, "ids": ids}


def main(argv: list[str]) -> int:
    folder, rounds, seed = Path(argv[0]), int(argv[1]), int(argv[2])
    rng = random.Random(seed)
    summary: dict[str, Any] = {"kills": 0, "acknowledged": 0, "lost": 0, "odd": 0, "unreadable": 0}
    survivors = []
    for number in range(rounds):
        result = _one_round(folder, number, rng)
        verdict = check(result)
        summary["kills"] += 1
        summary["acknowledged"] += len(result["acked"])
        summary["lost"] += len(verdict["lost"])
        summary["odd"] += int(verdict["odd"])
        summary["unreadable"] += int(verdict["unreadable"])
        survivors.append({"file": result["survivor"], "ids": verdict["ids"]})
    summary["survivors"] = survivors
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
