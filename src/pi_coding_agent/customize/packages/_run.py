"""Running the programs package installs need (``git``, ``pip``) with errors as one line."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence


class PackageError(Exception):
    """A package operation that failed; the message says what and why, in one line."""


def run(command: Sequence[str], *, cwd: str | None = None, what: str) -> str:
    """Run ``command``; its stdout, or ``PackageError`` naming ``what`` failed and the program's last words."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    try:
        done = subprocess.run(
            list(command),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise PackageError(f"{what}: {command[0]} is not installed") from None
    if done.returncode != 0:
        detail = (done.stderr.strip() or done.stdout.strip()).splitlines()
        last = detail[-1] if detail else f"exit status {done.returncode}"
        raise PackageError(f"{what}: {last}")
    return done.stdout
