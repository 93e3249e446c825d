"""Where a batch keeps each task's files, under one state folder.

    STATE/sessions/<key>/<Pi session file name>.jsonl   (or --session-dir/<key>/)
    STATE/worktrees/<key>/                             scratch checkouts of repo tasks
    STATE/attempts/<key>.jsonl                         one line per start of the task
    STATE/attempts/<key>.base                          snapshot a ``cwd`` task's diff starts from
    STATE/finished/<key>.json                          the result, until the runner recorded it

``key`` is the task id when it is a safe file name, else a cleaned-up id with a hash of the
real one. The attempts log says which process ran each attempt (and, for tasks in a
directory of their own, the snapshot their diff is taken against); it is how a re-run knows
a task was interrupted and how many times it started. The finished file is written by
whoever ran the task (a Ray worker; any runner before it removes a scratch worktree) before
it cleans up, so a result (its diff too) is not lost when the runner dies before appending
it to the results file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from typing import Any

from pi_coding_agent.app.batch._result import BatchResult

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def task_key(task_id: str) -> str:
    cleaned = _UNSAFE.sub("_", task_id)[:80].lstrip(".") or "_"
    if cleaned == task_id:
        return cleaned
    return f"{cleaned}-{hashlib.sha256(task_id.encode()).hexdigest()[:10]}"


class BatchLayout:
    def __init__(self, state_dir: str, session_dir: str | None = None) -> None:
        self.state_dir = os.path.abspath(state_dir)
        self.session_root = (
            os.path.abspath(session_dir) if session_dir else os.path.join(self.state_dir, "sessions")
        )

    def session_folder(self, task_id: str) -> str:
        return os.path.join(self.session_root, task_key(task_id))

    def worktree(self, task_id: str) -> str:
        return os.path.join(self.state_dir, "worktrees", task_key(task_id))

    def attempts_file(self, task_id: str) -> str:
        return os.path.join(self.state_dir, "attempts", task_key(task_id) + ".jsonl")

    def latest_session_file(self, task_id: str) -> str | None:
        """The task's newest session file (Pi's names start with the creation time)."""
        folder = self.session_folder(task_id)
        try:
            names = sorted(name for name in os.listdir(folder) if name.endswith(".jsonl"))
        except FileNotFoundError:
            return None
        return os.path.join(folder, names[-1]) if names else None

    def attempts(self, task_id: str) -> list[dict[str, Any]]:
        try:
            with open(self.attempts_file(task_id), encoding="utf-8") as file:
                lines = file.read().splitlines()
        except FileNotFoundError:
            return []
        attempts = []
        for line in lines:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a crash
            if isinstance(value, dict):
                attempts.append(value)
        return attempts

    def record_attempt(self, task_id: str, info: dict[str, Any]) -> int:
        """Append this start of the task; returns its number (1 for the first)."""
        number = len(self.attempts(task_id)) + 1
        path = self.attempts_file(task_id)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps({"attempt": number, **info}) + "\n")
        return number

    def recorded_base(self, task_id: str) -> str | None:
        try:
            with open(self.attempts_file(task_id)[: -len(".jsonl")] + ".base", encoding="utf-8") as file:
                return file.read().strip() or None
        except FileNotFoundError:
            return None

    def record_base(self, task_id: str, tree: str) -> None:
        _write_atomically(self.attempts_file(task_id)[: -len(".jsonl")] + ".base", tree.encode())

    def finished_file(self, task_id: str) -> str:
        return os.path.join(self.state_dir, "finished", task_key(task_id) + ".json")

    def read_finished(self, task_id: str) -> BatchResult | None:
        try:
            with open(self.finished_file(task_id), encoding="utf-8") as file:
                return BatchResult.from_json(json.load(file))
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, AttributeError):
            return None  # torn by a crash: the task is judged from its session instead

    def write_finished(self, result: BatchResult) -> None:
        _write_atomically(self.finished_file(result.id), json.dumps(result.to_json()).encode())

    def discard_finished(self, task_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.finished_file(task_id))


def _write_atomically(path: str, data: bytes) -> None:
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
