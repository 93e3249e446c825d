"""The results file: one JSON line per finished task, appended durably.

Each result is written with one ``write`` on an ``O_APPEND`` descriptor and ``fsync``ed
before the runner counts the task as finished, so a crash of the runner (or of the machine)
loses no finished result. A crash inside that write can leave a torn last line: it is cut
off when the file is opened again, and its task runs again. Later lines for the same task
(``--retry-failed``) win. One runner at a time: the file is ``flock``ed while open.
"""

from __future__ import annotations

import fcntl
import json
import os

from pi_coding_agent.app.batch._result import BatchResult


class ResultsFileError(Exception):
    """The results file cannot be used (unreadable, in use, or a line that is not a result)."""


def _parse(data: bytes, path: str) -> tuple[dict[str, BatchResult], int]:
    """(results by id, length of the complete lines); a torn last line is not counted."""
    complete = data.rfind(b"\n") + 1
    results: dict[str, BatchResult] = {}
    for number, line in enumerate(data[:complete].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            result = BatchResult.from_json(json.loads(line))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ResultsFileError(
                f"{path}:{number}: not a result line ({error}); fix or remove that line, or write to another --out file"
            ) from None
        results[result.id] = result
    return results, complete


def load_results(path: str) -> dict[str, BatchResult]:
    """The results recorded in ``path`` (last line per task wins); a missing file has none."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot read the results file: {error.strerror or error}") from None
    return _parse(data, path)[0]


class ResultsFile:
    """An open results file: what it already holds, and durable appends."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.dropped_torn_line = False
        existed = os.path.exists(path)
        try:
            parent = os.path.dirname(os.path.abspath(path))
            os.makedirs(parent, exist_ok=True)
            self._fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise ResultsFileError(
                f"{path}: cannot open the results file: {error.strerror or error}"
            ) from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise ResultsFileError(
                f"{path}: another pi batch is writing this results file; wait for it to end"
            ) from None
        try:
            self.finished = self._read()
        except BaseException:
            self.close()
            raise
        if not existed:
            _fsync_dir(parent)

    def _read(self) -> dict[str, BatchResult]:
        size = os.fstat(self._fd).st_size
        data = os.pread(self._fd, size, 0) if size else b""
        results, complete = _parse(data, self.path)
        if complete < len(data):
            os.ftruncate(self._fd, complete)
            os.fsync(self._fd)
            self.dropped_torn_line = True
        return results

    def append(self, result: BatchResult) -> None:
        line = json.dumps(result.to_json(), ensure_ascii=False).encode("utf-8") + b"\n"
        view = memoryview(line)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)
        self.finished[result.id] = result

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
