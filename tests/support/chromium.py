"""Headless Chromium for tests of HTML output: rendered text and screenshots of a local page.

Tests needing it skip when no ``chromium`` is installed, except under ``CI=1`` (``.ci/run``
installs Debian's package), where they fail. Each run gets a fresh profile folder, and the
browser is kept off the network (no background requests, no QUIC, a proxy that goes nowhere).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--proxy-server=127.0.0.1:9",
)


def require_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI") == "1":
        pytest.fail("CI=1 but no chromium is installed (.ci/run installs Debian's chromium package)")
    pytest.skip("chromium is not installed")
    raise AssertionError("unreachable")


def _run(page: Path, *flags: str) -> str:
    browser = require_chromium()
    with tempfile.TemporaryDirectory(prefix="pi-chromium-") as profile:
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", *flags, page.resolve().as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def dump_dom(page: Path) -> str:
    """The document after its scripts ran, serialized."""
    return _run(page, "--virtual-time-budget=5000", "--dump-dom")


def screenshot(page: Path, output: Path, width: int = 1280, height: int = 900) -> None:
    _run(page, f"--window-size={width},{height}", "--hide-scrollbars", f"--screenshot={output.resolve()}")
    assert output.exists() and output.stat().st_size > 0


class BrowserPage:
    """A page open in headless Chromium, driven over the DevTools protocol: what it requested,
    what it logged as an error, how long it took to load, and scripts evaluated in it.

    ``open(path)`` loads a local file and waits for its ``load`` event; ``requests`` holds every
    URL the page asked for beyond the file itself and ``data:`` URIs; ``errors`` every console
    error and uncaught exception.
    """

    def __init__(self) -> None:
        import websockets.sync.client

        browser = require_chromium()
        self._profile = tempfile.TemporaryDirectory(prefix="pi-chromium-")
        self._process = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-port=0",
             "--window-size=1400,1000", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        assert self._process.stderr is not None
        port = ""
        for line in self._process.stderr:
            if "DevTools listening on ws://" in line:
                port = line.split("ws://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]
                break
        assert port, "chromium did not open its DevTools port"
        self._socket = websockets.sync.client.connect(self._page_socket(int(port)), max_size=None).__enter__()
        self._next_id = 0
        self.requests: list[str] = []
        self.errors: list[str] = []
        self._loaded = False
        for domain in ("Page", "Runtime", "Network", "Log", "Inspector"):
            self.call(f"{domain}.enable")

    @staticmethod
    def _page_socket(port: int) -> str:
        import json
        import time
        import urllib.request

        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        for _ in range(100):
            with opener.open(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
                pages = [t for t in json.loads(answer.read()) if t.get("type") == "page"]
            if pages:
                return str(pages[0]["webSocketDebuggerUrl"])
            time.sleep(0.05)
        raise AssertionError("chromium opened no page")

    def _event(self, message: dict[str, object]) -> None:
        method, params = message.get("method"), message.get("params")
        assert isinstance(params, dict) or params is None
        params = params or {}
        if method == "Network.requestWillBeSent":
            url = str(params["request"]["url"])
            if not url.startswith(("data:", self._file)):
                self.requests.append(url)
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(
                str([arg.get("value", arg.get("description")) for arg in params.get("args", [])])
            )
        elif method == "Runtime.exceptionThrown":
            self.errors.append(str(params["exceptionDetails"]))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append(str(params["entry"].get("text")))
        elif method == "Page.loadEventFired":
            self._loaded = True
        elif method == "Inspector.targetCrashed":
            raise AssertionError("the page crashed (out of memory?)")

    def call(self, method: str, **params: object) -> dict[str, object]:
        import json

        self._next_id += 1
        self._socket.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv(timeout=300))
            if message.get("id") == self._next_id:
                assert "error" not in message, message["error"]
                return dict(message.get("result", {}))
            self._event(message)

    def open(self, page: Path, query: str = "", timeout: float = 600) -> float:
        """Load ``page`` (with ``?query``); returns seconds until its ``load`` event. Raises
        ``TimeoutError`` when it has not come after ``timeout`` seconds."""
        import json
        import time

        self._file = page.resolve().as_uri()
        self._loaded = False
        started = time.perf_counter()
        self.call("Page.navigate", url=self._file + (f"?{query}" if query else ""))
        while not self._loaded:
            left = started + timeout - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"{page.name} not loaded after {timeout:.0f} s")
            self._event(json.loads(self._socket.recv(timeout=left)))
        return time.perf_counter() - started

    def evaluate(self, expression: str) -> object:
        """The value of ``expression`` in the page (awaited when it is a promise)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        value = result["result"]
        assert isinstance(value, dict)
        return value.get("value")

    def close(self) -> None:
        self._socket.close()
        # The whole process group: Chromium's helpers (renderer, GPU, crash handler) can outlive
        # the browser process for a moment and write to the profile while it is being removed.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGTERM)
        self._process.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        self._profile.cleanup()

    def __enter__(self) -> BrowserPage:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
