"""Finding and listing session files without reading them whole.

A listing reads each file's header (its first line) and a tail window, which is all that
sorting by last activity needs. The fields that depend on every line (``name``,
``message_count``, ``first_message``, ``all_messages_text``) are computed on first use,
by one streaming pass over that file only. Pi reads every file completely to list them.

``modified`` is the latest user/assistant message time found in the tail (the window
grows backwards until it holds one), where Pi takes the maximum over the whole file: the
two differ only if message times go backwards in file order.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec

from pi_coding_agent.core.messages import iso_to_ms
from pi_coding_agent.core.paths import resolve_path
from pi_coding_agent.core.session._files import NotRegularFileError, open_for_reading
from pi_coding_agent.core.session._header import read_header
from pi_coding_agent.core.session._lines import LineError, parse_line
from pi_coding_agent.core.session._paths import (
    default_session_dir,
    default_session_dir_path,
    sessions_dir,
)

TAIL_WINDOW = 64 * 1024
ProgressCallback = Callable[[int, int], None]


def _cwd_matches(cwd: Any, resolved_cwd: str) -> bool:
    return isinstance(cwd, str) and cwd != "" and resolve_path(cwd) == resolved_cwd


def find_most_recent_session(session_dir: str, cwd: str | None = None) -> str | None:
    """Newest (by file modification time) ``*.jsonl`` with a valid header; with ``cwd``, only its sessions."""
    try:
        names = [name for name in os.listdir(session_dir) if name.endswith(".jsonl")]
    except OSError:
        return None
    resolved_cwd = resolve_path(cwd) if cwd else None
    best: tuple[int, str] | None = None
    for name in names:
        path = os.path.join(session_dir, name)
        try:
            header = read_header(path)
        except NotRegularFileError:
            continue
        if header is None or (resolved_cwd is not None and not _cwd_matches(header.get("cwd"), resolved_cwd)):
            continue
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            continue
        if best is None or mtime > best[0]:
            best = (mtime, path)
    return best[1] if best else None


# --------------------------------------------------------------------------- SessionInfo


@dataclass(slots=True)
class _Details:
    name: str | None = None
    message_count: int = 0
    first_message: str = "(no messages)"
    all_messages_text: str = ""


@dataclass(eq=False)
class SessionInfo:
    """One session in a listing."""

    path: str
    id: str
    cwd: str
    parent_session_path: str | None
    created: datetime | None
    modified: datetime
    _details: _Details | None = field(default=None, repr=False)

    def _load(self) -> _Details:
        if self._details is None:
            self._details = _read_details(self.path)
        return self._details

    @property
    def name(self) -> str | None:
        """The latest ``session_info`` name (trimmed; empty means none). Reads the file once."""
        return self._load().name

    @property
    def message_count(self) -> int:
        return self._load().message_count

    @property
    def first_message(self) -> str:
        """Text of the first user message (text blocks joined with spaces), or ``(no messages)``."""
        return self._load().first_message

    @property
    def all_messages_text(self) -> str:
        """Every user and assistant text, joined with spaces (for searching)."""
        return self._load().all_messages_text


class _Probe(msgspec.Struct):
    type: Any = None
    name: Any = None
    timestamp: Any = None
    message: Any = None


_PROBE = msgspec.json.Decoder(_Probe)


def _probe(raw: bytes) -> _Probe | None:
    """The listing's fields of one line, or ``None`` if it is not a JSON object."""
    try:
        return _PROBE.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        pass
    try:
        value = parse_line(raw)  # a line only the careful parser reads (see ``_lines``)
    except LineError:
        return None
    if not isinstance(value, dict):
        return None
    return _Probe(value.get("type"), value.get("name"), value.get("timestamp"), value.get("message"))


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return " ".join(
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def _read_details(path: str) -> _Details:
    details = _Details()
    texts: list[str] = []
    first = ""
    seen_header = False
    try:
        with open_for_reading(path) as file:
            for raw in file:
                entry = _probe(raw)
                if entry is None:
                    continue
                if not seen_header:
                    seen_header = True
                    continue
                if entry.type == "session_info":
                    name = entry.name
                    details.name = (name.strip() or None) if isinstance(name, str) else None
                if entry.type != "message":
                    continue
                details.message_count += 1
                message = entry.message
                if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
                    continue
                if "content" not in message:
                    continue
                text = _message_text(message)
                if not text:
                    continue
                texts.append(text)
                if not first and message.get("role") == "user":
                    first = text
    except (OSError, NotRegularFileError):
        pass
    details.first_message = first or "(no messages)"
    details.all_messages_text = " ".join(texts)
    return details


def _activity_ms(entry: _Probe) -> int | None:
    message = entry.message
    if not isinstance(message, dict) or not isinstance(message.get("role"), str) or "content" not in message:
        return None
    if message["role"] not in ("user", "assistant"):
        return None
    stamp = message.get("timestamp")
    if isinstance(stamp, float):
        return int(stamp) if math.isfinite(stamp) else None
    if isinstance(stamp, int) and not isinstance(stamp, bool):
        return stamp  # exact, however long: ``_datetime`` refuses what no date holds
    return iso_to_ms(entry.timestamp) if isinstance(entry.timestamp, str) else None


def _last_activity(path: str, size: int) -> int | None:
    """Latest message activity found reading backwards from the end, window by window."""
    window = TAIL_WINDOW
    with open_for_reading(path) as file:
        while True:
            start = max(0, size - window)
            file.seek(start)
            data = file.read(size - start)
            lines = data.split(b"\n")
            if start > 0:
                lines = lines[1:]  # the first line of the window may be cut
            latest: int | None = None
            for raw in lines:
                if b'"message"' not in raw:
                    continue
                entry = _probe(raw)
                if entry is None or entry.type != "message":
                    continue
                found = _activity_ms(entry)
                if found is not None:
                    latest = found if latest is None else max(latest, found)
            if latest is not None or start == 0:
                return latest
            window *= 4


def _datetime(ms: int) -> datetime | None:
    """The time ``ms`` after the epoch; ``None`` outside what ``datetime`` holds (years 1-9999),
    where JavaScript's ``Date`` would be invalid or we cannot follow it."""
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, ValueError, OSError):
        return None


def build_session_info(path: str) -> SessionInfo | None:
    """Header and tail of one file as a ``SessionInfo``; ``None`` if it is not a session."""
    try:
        stat = os.stat(path)
        header = read_header(path)
        if header is None:
            return None
        header_ms = iso_to_ms(header["timestamp"]) if isinstance(header.get("timestamp"), str) else None
        activity = _last_activity(path, stat.st_size)
    except (OSError, NotRegularFileError):
        return None
    created = _datetime(header_ms) if header_ms is not None else None
    modified = (_datetime(activity) if activity is not None and activity > 0 else None) or created
    if modified is None:
        modified = datetime.fromtimestamp(stat.st_mtime, tz=UTC)
    cwd = header.get("cwd")
    parent = header.get("parentSession")
    return SessionInfo(
        path=path,
        id=header["id"],
        cwd=cwd if isinstance(cwd, str) else "",
        parent_session_path=parent if isinstance(parent, str) else None,
        created=created,
        modified=modified,
    )


def _infos(
    files: list[str], on_progress: ProgressCallback | None, offset: int, total: int
) -> list[SessionInfo]:
    found: list[SessionInfo] = []
    for count, path in enumerate(files, start=1):
        info = build_session_info(path)
        if info is not None:
            found.append(info)
        if on_progress is not None:
            on_progress(offset + count, total)
    return found


def _session_files(folder: str) -> list[str]:
    try:
        return [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith(".jsonl")]
    except OSError:
        return []


def _newest_first(infos: list[SessionInfo]) -> list[SessionInfo]:
    return sorted(infos, key=lambda info: info.modified, reverse=True)


def list_sessions(
    cwd: str, session_dir: str | None = None, on_progress: ProgressCallback | None = None
) -> list[SessionInfo]:
    """Sessions of ``cwd`` (a shared custom folder is filtered by header ``cwd``), newest first."""
    folder = resolve_path(session_dir) if session_dir else default_session_dir(cwd)
    filter_cwd = session_dir is not None and folder != default_session_dir_path(cwd)
    files = _session_files(folder)
    infos = _infos(files, on_progress, 0, len(files))
    if filter_cwd:
        resolved = resolve_path(cwd)
        infos = [info for info in infos if _cwd_matches(info.cwd, resolved)]
    return _newest_first(infos)


def list_all_sessions(
    session_dir: str | None = None, on_progress: ProgressCallback | None = None
) -> list[SessionInfo]:
    """Sessions of every project under ``<agent dir>/sessions`` (or in one custom folder)."""
    if session_dir:
        files = _session_files(resolve_path(session_dir))
        return _newest_first(_infos(files, on_progress, 0, len(files)))
    root = sessions_dir()
    try:
        folders = [os.path.join(root, name) for name in sorted(os.listdir(root))]
    except OSError:
        return []
    files = [path for folder in folders if os.path.isdir(folder) for path in _session_files(folder)]
    return _newest_first(_infos(files, on_progress, 0, len(files)))
