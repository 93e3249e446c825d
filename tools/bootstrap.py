#!/usr/bin/env python3
"""Create or refresh the project's virtualenv at ``<repo>/.venv``.

Usage: ``python3 tools/bootstrap.py run|dev``. ``run`` installs what the ``pi`` command needs,
with the ``openai-codex`` extra (zstd bodies and the WebSocket transport, which Pi always has;
imported only by a Codex request, see docs/decisions/codex-transport.md) and the ``codemode`` extra
(the QuickJS sandbox, a small prebuilt wheel, imported only when a script runs, so a Pi 1.6 user's
``mcp.json`` that turns codemode on works out of the box) and the ``local`` extra (huggingface_hub,
imported only when the embedded model's weights are fetched); ``dev`` adds the test
and lint tools. A stamp file remembers the hash of ``pyproject.toml`` for
each profile so an unchanged tree costs nothing on the next call.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
PROFILES = {"run": ".[openai-codex,codemode,local]", "dev": ".[dev]", "bench": ".[dev,bench]"}


def _stamp_ok(stamp: Path, digest: str) -> bool:
    return stamp.exists() and stamp.read_text().strip() == digest


def main() -> int:
    profile = sys.argv[1] if len(sys.argv) > 1 else "run"
    if profile not in PROFILES:
        print(f"bootstrap: unknown profile {profile!r} (choose from {', '.join(PROFILES)})", file=sys.stderr)
        return 2
    if sys.version_info < (3, 11):  # noqa: UP036 - this script runs on whatever python3 is
        print(f"bootstrap: Python >= 3.11 is required, this is {sys.version.split()[0]}", file=sys.stderr)
        return 2
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    # A richer profile satisfies a poorer one: dev includes run.
    satisfied_by = {"run": ["run", "dev", "bench"], "dev": ["dev", "bench"], "bench": ["bench"]}[profile]
    if (VENV / "bin" / "python").exists() and any(
        _stamp_ok(VENV / f".bootstrap-{name}", digest) for name in satisfied_by
    ):
        return 0
    if not (VENV / "bin" / "python").exists():
        print(f"bootstrap: creating {VENV}", file=sys.stderr)
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    python = str(VENV / "bin" / "python")
    print(f"bootstrap: installing {PROFILES[profile]} into .venv (one time)", file=sys.stderr)
    quiet = ["-q", "--disable-pip-version-check"]
    result = subprocess.run(
        [python, "-m", "pip", "install", *quiet, "-e", PROFILES[profile]], cwd=ROOT, check=False
    )
    if result.returncode != 0:
        print("bootstrap: pip install failed (see above)", file=sys.stderr)
        return result.returncode
    for name in PROFILES:
        (VENV / f".bootstrap-{name}").unlink(missing_ok=True)
    (VENV / f".bootstrap-{profile}").write_text(digest + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
