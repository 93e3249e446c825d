"""The first run installs the runtime while the model downloads (issue 27 item 6): the install's
progress comes after the download's, its errors reach the caller, and an interrupted download
stops the install's real process too."""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from pi_coding_agent.core.local_model import StderrProgress
from pi_coding_agent.core.local_model._errors import SetupError
from pi_coding_agent.core.local_model._overlap import install_while
from pi_coding_agent.core.local_model._progress import Progress
from pi_coding_agent.core.local_model._runtime import run_logged


class _Runtime:
    """Installs by running ``command`` as the real setup runs pip (``run_logged``: its own session,
    recorded in ``<cache>/runtime/<key>.partial/session``)."""

    key = "test-runtime"

    def __init__(self, cache: Path, command: list[str]) -> None:
        self.partial = cache / "runtime" / f"{self.key}.partial"
        self.command = command
        self.started = threading.Event()
        self.pid = 0

    def install(self, progress: Progress) -> Path:
        self.partial.mkdir(parents=True)
        progress.stage("installing the test runtime")
        self.started.set()
        status = run_logged(
            self.command, env=dict(os.environ), log=self.partial / "install.log", progress=progress, unit=""
        )
        self.pid = int((self.partial / "session").read_text())
        if status != 0:
            raise SetupError(f"installing the test runtime failed (exit {status})")
        progress.finish("done")
        return self.partial


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PI_LOCAL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_install_shows_its_progress_after_the_download(cache: Path) -> None:
    runtime = _Runtime(cache, [sys.executable, "-c", "print('installed')"])
    shown = io.StringIO()
    progress = StderrProgress(shown)

    def download() -> None:
        progress.stage("downloading the model")
        assert runtime.started.wait(30)
        time.sleep(0.5)  # the install is done meanwhile (not asserted: only the order of the lines is)
        progress.finish("done")

    assert install_while(runtime, download, progress) == runtime.partial
    assert shown.getvalue().splitlines() == [
        "pi: downloading the model",
        "pi: downloading the model: done",
        "pi: installing the test runtime",
        "pi: installing the test runtime: done",
    ]


def test_an_install_that_fails_is_the_callers_error(cache: Path) -> None:
    runtime = _Runtime(cache, [sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(SetupError, match=r"failed \(exit 3\)"):
        install_while(runtime, lambda: None, StderrProgress(None))


def test_an_interrupted_download_stops_the_install_process(cache: Path) -> None:
    runtime = _Runtime(cache, [sys.executable, "-c", "import time; time.sleep(120)"])

    def download() -> None:
        assert runtime.started.wait(30)
        session = runtime.partial / "session"
        while not session.exists():
            time.sleep(0.05)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        install_while(runtime, download, StderrProgress(None))
    pid = int((runtime.partial / "session").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # stopped and reaped: no process is left running
