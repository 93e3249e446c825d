"""The tools package loads only what is used: the default tools do not import the search
tools or ``pathspec``, and ``pathspec`` waits for the first ignore file the Python walk meets."""

from __future__ import annotations

import subprocess
import sys

from pi_coding_agent.core import tools


def _loaded_after(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


def test_default_tools_load_only_their_modules() -> None:
    loaded = _loaded_after("from pi_coding_agent.core.tools import create_tools\ncreate_tools('.')")
    assert {"pi_coding_agent.core.tools._read", "pi_coding_agent.core.tools._bash"} <= loaded
    unused = {f"pi_coding_agent.core.tools._{name}" for name in ("grep", "find", "ls", "walk", "external")}
    assert loaded & (unused | {"pathspec"}) == set()


def test_pathspec_loads_with_the_first_ignore_file() -> None:
    code = (
        "import os, sys, tempfile\n"
        "from pi_coding_agent.core.tools._walk import IgnoreWalker\n"
        "root = tempfile.mkdtemp()\n"
        "open(os.path.join(root, 'a.txt'), 'w').close()\n"
        "os.environ['HOME'] = os.environ['XDG_CONFIG_HOME'] = root\n"
        "list(IgnoreWalker(root, tool_ignore_file='.rgignore', require_git=False).walk())\n"
        "assert 'pathspec' not in sys.modules\n"
        "open(os.path.join(root, '.ignore'), 'w').write('*.txt\\n')\n"
        "assert list(IgnoreWalker(root, tool_ignore_file='.rgignore', require_git=False).walk()) != []\n"
        "assert 'pathspec' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_public_name_resolves() -> None:
    for name in tools.__all__:
        assert getattr(tools, name) is not None, name
    assert sorted(tools.__all__) == sorted(set(tools.__all__))
