"""Published npm packages for tests, installed once into a cache the runs share.

``npm_package("pi-aliases", "1.0.7")`` installs the package (with its dependencies, without
running scripts) under ``~/.cache/pi-for-python/test-npm/<name>-<version>`` and returns the
package's folder; later calls reuse it. CI keeps ``~/.cache`` between runs.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def _root() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "pi-for-python" / "test-npm"


def npm_package(name: str, version: str) -> Path:
    root = _root()
    target = root / f"{name.replace('/', '+')}-{version}"  # a scoped name (@scope/name) in one folder
    package = target / "node_modules" / name
    if (package / "package.json").is_file():
        return package
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is needed to fetch the published Pi packages these tests load")
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (package / "package.json").is_file():
            return package
        staging = Path(tempfile.mkdtemp(prefix=target.name + ".partial-", dir=root))
        (staging / "package.json").write_text(
            '{"name": "pi-test-packages", "private": true}\n', encoding="utf-8"
        )
        done = subprocess.run(
            [
                npm,
                "install",
                f"{name}@{version}",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--omit=peer",
            ],
            cwd=staging,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            pytest.fail(f"npm install {name}@{version} failed: {done.stderr[-500:]}")
        shutil.rmtree(target, ignore_errors=True)
        os.replace(staging, target)
    return package


def node_cache() -> str:
    """The Node runtime cache of the machine (``core.node_runtime``), for runs in a throwaway home."""
    from pi_coding_agent.core.node_runtime import cache_root

    return str(cache_root())
