"""Headless Chromium for tests of HTML output: rendered text and screenshots of a local page.

Tests needing it skip when no ``chromium`` is installed, except under ``CI=1`` (``.ci/run``
installs Debian's package), where they fail. Each run gets a fresh profile folder, and the
browser is kept off the network (no background requests, no QUIC, a proxy that goes nowhere).
"""

from __future__ import annotations

import os
import shutil
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
            capture_output=True, text=True, timeout=120, check=False,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def dump_dom(page: Path) -> str:
    """The document after its scripts ran, serialized."""
    return _run(page, "--virtual-time-budget=5000", "--dump-dom")


def screenshot(page: Path, output: Path, width: int = 1280, height: int = 900) -> None:
    _run(page, f"--window-size={width},{height}", "--hide-scrollbars", f"--screenshot={output.resolve()}")
    assert output.exists() and output.stat().st_size > 0
