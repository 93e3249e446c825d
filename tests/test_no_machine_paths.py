"""No file of the repo names a path of one particular machine: the shared folder is found as
``$PI_ORACLE_DIR`` or ``<repo>/../shared/...``, homes through ``~`` or ``Path.home()``."""

from __future__ import annotations

import re
import subprocess

from tests.support.oracle import REPO

MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root)/")


def test_no_committed_file_names_a_machine_path() -> None:
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    offending = []
    for name in filter(None, listed):
        path = REPO / name
        if name == "tests/test_no_machine_paths.py" or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        offending += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in MACHINE_PATH.finditer(text)]
    assert offending == []
