"""The custom-role guide (docs/agent/custom-roles.md) runs as written and type-checks."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_agent import unregister_role

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "agent" / "custom-roles.md"


def guide_code() -> str:
    return "\n\n".join(re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.DOTALL))


@pytest.fixture
def clean_roles() -> Iterator[None]:
    yield
    unregister_role("notification")
    unregister_role("checkpoint")


def test_the_guide_runs(clean_roles: None) -> None:
    namespace: dict[str, object] = {"__name__": "guide"}
    exec(compile(guide_code(), str(GUIDE), "exec"), namespace)
    describe = namespace["describe"]
    notification = namespace["Notification"](text="hi", level="warn", timestamp=1)  # type: ignore[operator]
    assert describe(notification) == "warn: hi"  # type: ignore[operator]


def _mypy(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "guide_example.py"
    source.write_text(code)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"),
         str(source)],
        capture_output=True, text=True, cwd=REPO, check=False,
        env={"MYPYPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
    )


def test_the_guide_type_checks_and_a_wrong_projection_does_not(tmp_path: Path) -> None:
    code = guide_code()
    clean = _mypy(code, tmp_path)
    assert clean.returncode == 0, clean.stdout
    wrong = code + "\n\ndef checkpoint_text(message: Checkpoint) -> UserMessage:\n    return UserMessage(content=message.label, timestamp=0)\n\n\nregister_role(Notification, owner='x', to_llm=checkpoint_text)\n"
    rejected = _mypy(wrong, tmp_path)
    assert rejected.returncode == 1 and "register_role" in rejected.stdout, rejected.stdout
