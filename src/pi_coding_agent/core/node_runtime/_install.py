"""Installing Node and Pi 1.6's libraries from npm into the cache, once.

Both installs run ``npm`` (the user's, or ``npmCommand``) into a fresh folder beside the target
and are renamed into place only once verified, so an interrupted install never looks finished.
Pi's libraries come from the lock file shipped with this package (``pi_libraries``): ``npm ci``
checks every tarball against the lock's ``sha512`` integrity, so the same bytes load everywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pi_coding_agent.core.local_model import Progress
from pi_coding_agent.core.node_runtime._errors import NodeUnavailable

NODE_VERSION = "22.23.5"
"""The Node installed when the machine has none new enough (the one Pi 1.6's own tests use)."""
PI_VERSION = "1.6.0"
LIBRARIES = Path(__file__).resolve().parent / "pi_libraries"
_NPM_FLAGS = ("--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=http")


def _npm(npm_command: Sequence[str] | None) -> list[str]:
    command = list(npm_command or ())
    if command:
        return command
    found = shutil.which("npm")
    if found is None:
        raise NodeUnavailable("npm is not on PATH")
    return [found]


def _run_npm(command: list[str], folder: Path, progress: Progress, expected: int | None) -> None:
    """Run npm in ``folder``; its ``http fetch`` lines are the progress. A failure raises with
    npm's last error line."""
    log_path = folder / "npm-install.log"
    fetched = 0
    try:
        process = subprocess.Popen(
            command,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    except OSError as error:
        raise NodeUnavailable(f"cannot run {command[0]}: {error.strerror or error}") from error
    assert process.stdout is not None
    with open(log_path, "w", encoding="utf-8") as log:
        for line in process.stdout:
            log.write(line)
            if "http fetch GET 200" in line:
                fetched += 1
                progress.advance(fetched, expected, "packages")
    if process.wait() != 0:
        lines = [line.strip() for line in log_path.read_text(encoding="utf-8").splitlines() if "ERR" in line]
        raise NodeUnavailable(f"npm failed ({lines[-1] if lines else 'exit ' + str(process.returncode)})")


def _fresh(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=target.name + ".partial-", dir=target.parent))


def _promote(staging: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)
    os.replace(staging, target)


def node_binary_in(folder: Path, package: str) -> Path:
    executable = "node.exe" if package.startswith("node-win") else "node"
    return folder / "node_modules" / package / "bin" / executable


def install_node(target: Path, package: str, npm_command: Sequence[str] | None, progress: Progress) -> Path:
    """Node ``NODE_VERSION`` (npm package ``package``) into ``target``; its binary."""
    staging = _fresh(target)
    try:
        (staging / "package.json").write_text('{"name": "pi-node", "private": true}\n', encoding="utf-8")
        progress.stage(f"installing Node {NODE_VERSION} from npm ({package})")
        _run_npm(
            [*_npm(npm_command), "install", f"{package}@{NODE_VERSION}", *_NPM_FLAGS], staging, progress, 1
        )
        from pi_coding_agent.core.node_runtime._find import node_version

        version = node_version(str(node_binary_in(staging, package)))
        if version is None or ".".join(map(str, version)) != NODE_VERSION:
            raise NodeUnavailable(f"the installed Node reports {version}, not {NODE_VERSION}")
        _promote(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    progress.finish("done")
    return node_binary_in(target, package)


def libraries_key() -> str:
    """Names the install folder after the lock file, so a new lock installs beside the old one."""
    digest = hashlib.sha256((LIBRARIES / "package-lock.json").read_bytes()).hexdigest()[:10]
    return f"pi-{PI_VERSION}-{digest}"


def pi_package_root(folder: Path) -> Path:
    return folder / "node_modules" / "@earendil-works" / "pi-coding-agent"


def libraries_ready(folder: Path) -> bool:
    return (folder / ".verified").is_file() and pi_package_root(folder).is_dir()


def install_libraries(target: Path, npm_command: Sequence[str] | None, progress: Progress) -> None:
    """``npm ci`` of the shipped lock into ``target``; the installed Pi must be ``PI_VERSION``."""
    staging = _fresh(target)
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(LIBRARIES / name, staging / name)
        lock = json.loads((LIBRARIES / "package-lock.json").read_text(encoding="utf-8"))
        expected = sum(1 for key in lock.get("packages", {}) if key)
        progress.stage(f"installing Pi {PI_VERSION}'s extension libraries from npm")
        _run_npm([*_npm(npm_command), "ci", *_NPM_FLAGS], staging, progress, expected)
        manifest = json.loads((pi_package_root(staging) / "package.json").read_text(encoding="utf-8"))
        if manifest.get("version") != PI_VERSION:
            raise NodeUnavailable(f"npm installed Pi {manifest.get('version')}, not {PI_VERSION}")
        (staging / ".verified").write_text(PI_VERSION + "\n", encoding="utf-8")
        _promote(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    progress.finish("done")
