"""The runtime installed while the model downloads: the first run's two longest steps at once.

The runtime's install (a pip install of the prebuilt wheel, or the source build) runs on a worker
thread while the download runs on the caller's; its progress is kept back while the download
shows its own, replayed when the download is done, and shown live from then on (a source build
outlasts the download). An interruption of the download (Ctrl+C, SIGTERM) stops the install's pip
or build too (its process session), so nothing is left running.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.core.local_model._paths import cache_root
from pi_coding_agent.core.local_model._runtime import kill_session

if TYPE_CHECKING:
    from pi_coding_agent.core.local_model._progress import Progress

STOP_WAIT_SECONDS = 30.0
"""How long an interrupted setup waits for the install's thread once its process is stopped."""
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
"""Blocked on the install's thread, so the kernel hands them to the main thread: one taken by the
install thread would leave the main thread asleep in its wait for the download's pip (Python runs
signal handlers on the main thread only when it wakes), and Ctrl+C would do nothing. The
install's processes inherit the mask; they run in a session of their own and are stopped with
SIGKILL (``kill_session``)."""


class Installable(Protocol):
    @property
    def key(self) -> str: ...

    def install(self, progress: Progress) -> Path: ...


class _Deferred:
    """A ``Progress`` that keeps what it is told until ``attach``, then passes everything on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: list[tuple[str, tuple[object, ...]]] = []
        self._target: Progress | None = None

    def _call(self, name: str, *args: object) -> None:
        with self._lock:
            if self._target is None:
                if name == "advance":  # only the last one matters
                    self._kept = [entry for entry in self._kept if entry[0] != "advance"]
                self._kept.append((name, args))
                return
            getattr(self._target, name)(*args)

    def attach(self, target: Progress) -> None:
        with self._lock:
            for name, args in self._kept:
                getattr(target, name)(*args)
            self._kept, self._target = [], target

    def stage(self, title: str) -> None:
        self._call("stage", title)

    def advance(self, done: float, total: float | None, unit: str = "") -> None:
        self._call("advance", done, total, unit)

    def note(self, text: str) -> None:
        self._call("note", text)

    def finish(self, summary: str) -> None:
        self._call("finish", summary)


def install_while(runtime: Installable, download: Callable[[], object], progress: Progress) -> Path:
    """``runtime.install`` on a worker thread while ``download`` runs here; the runtime folder."""
    deferred = _Deferred()
    outcome: list[Path | BaseException] = []

    def install() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            outcome.append(runtime.install(deferred))
        except BaseException as error:  # handed to the caller's thread
            outcome.append(error)

    worker = threading.Thread(target=install, name="pi-local-runtime-install", daemon=True)
    worker.start()
    try:
        download()
    except BaseException:
        _stop_install(runtime.key)
        worker.join(STOP_WAIT_SECONDS)
        raise
    deferred.attach(progress)
    worker.join()
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _stop_install(key: str) -> None:
    """Stop the pip install or build of the runtime ``key`` (its session id is recorded in its
    ``.partial`` folder; this process holds that folder's lock, so the session is ours)."""
    for session in cache_root().glob(f"*/{key}.partial*/session"):
        try:
            kill_session(int(session.read_text()))
        except (OSError, ValueError):
            continue
