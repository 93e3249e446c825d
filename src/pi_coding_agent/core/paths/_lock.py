"""An exclusive lock file, so two ``pi`` processes never install, build or assemble the same thing
in a cache at once (the embedded model's runtime and weights, Node and Pi's libraries)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pi_coding_agent.core.paths import make_private_dirs


@contextmanager
def exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an advisory lock on ``lock_path`` (created if missing); released when the block exits
    or when the process dies, so an interrupted setup never leaves a stale lock behind."""
    make_private_dirs(str(lock_path.parent))  # ~/.cache too, 0700 as XDG asks
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
