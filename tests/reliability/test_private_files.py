"""Secrets and permissions, through the real CLI: full bash output files are private and go
with their session's rules (``pi_coding_agent.core.tools._output_files``), and the folders pi
creates for itself are ``0700`` down to the agent dir.

Each run gets its own ``TMPDIR``, so the private output folder is ``<TMPDIR>/pi-<uid>``.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Completed, Sandbox, run_ours
from tests.reliability.leaks import wait_for_pids
from tests.support.scripted_provider import ScriptedProvider

LINES = 30_000
BIG_OUTPUT = f"seq 1 {LINES}"
EIGHT_DAYS = 8 * 24 * 3600


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _tool_call(command: str) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": command}}]},
        {"text": "done"},
    ]


def _run(root: Path, tmpdir: Path, *args: str, command: str = BIG_OUTPUT) -> tuple[Completed, str | None]:
    """One ``pi --mode json`` run whose bash call prints ``command``'s output; the full-output path."""
    with ScriptedProvider(_tool_call(command)) as provider:
        sandbox = Sandbox.create(root, provider.base_url)
        done = run_ours(
            sandbox, "--model", OPENAI_MODEL, "--mode", "json", *args, "-p", "go", TMPDIR=str(tmpdir)
        )
    assert done.returncode == 0, done.stderr
    ends = [event for event in done.json_lines() if event["type"] == "tool_execution_end"]
    details = ends[0]["result"].get("details") or {}
    return done, details.get("fullOutputPath")


@pytest.fixture
def tmpdir_(tmp_path: Path) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder


def test_a_session_keeps_its_full_output_private(tmp_path: Path, tmpdir_: Path) -> None:
    _, path = _run(tmp_path / "run", tmpdir_)
    assert path is not None
    full = Path(path)
    private = tmpdir_ / f"pi-{os.getuid()}"
    assert full.parent == private
    assert (_mode(private), _mode(full)) == (0o700, 0o600)
    assert full.read_text() == "".join(f"{i}\n" for i in range(1, LINES + 1))


def test_no_session_removes_its_full_output_at_exit(tmp_path: Path, tmpdir_: Path) -> None:
    _, path = _run(tmp_path / "run", tmpdir_, "--no-session")
    assert path is not None
    full = Path(path)
    assert full.parent.parent == tmpdir_ / f"pi-{os.getuid()}"
    assert full.parent.name.startswith("run-")
    assert not full.exists() and not full.parent.exists()


def test_leftovers_of_a_killed_run_and_old_kept_files_are_swept(tmp_path: Path, tmpdir_: Path) -> None:
    private = tmpdir_ / f"pi-{os.getuid()}"
    killed_run = _killed_no_session_run(tmp_path / "killed", tmpdir_)
    assert killed_run.is_dir() and any(killed_run.iterdir())
    old, recent = private / "pi-bash-00000000000000aa.log", private / "pi-bash-00000000000000bb.log"
    for path in (old, recent):
        path.write_text("secret")
    os.utime(old, (time.time() - EIGHT_DAYS, time.time() - EIGHT_DAYS))
    _run(tmp_path / "next", tmpdir_)  # its first full output sweeps the folder
    assert not killed_run.exists() and not old.exists()
    assert recent.exists()


def _killed_no_session_run(root: Path, tmpdir: Path) -> Path:
    """A ``--no-session`` pi killed with SIGKILL after its bash call saved a full output."""
    marker = root / "written"
    with ScriptedProvider(_tool_call(f"{BIG_OUTPUT}; echo $PPID > {marker}; sleep 300")) as provider:
        sandbox = Sandbox.create(root, provider.base_url)
        pi = subprocess.Popen(
            [str(OUR_PI), "--model", OPENAI_MODEL, "--no-session", "-p", "go"],
            cwd=sandbox.work,
            env=sandbox.env(TMPDIR=str(tmpdir)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            [pid] = wait_for_pids(marker, 1)
            assert pid == pi.pid
        finally:
            pi.send_signal(signal.SIGKILL)
            pi.wait()
    return tmpdir / f"pi-{os.getuid()}" / f"run-{pi.pid}"


@pytest.mark.parametrize("squatted", ["symlink", "file", "loose"])
def test_an_unsafe_private_folder_is_not_used(tmp_path: Path, tmpdir_: Path, squatted: str) -> None:
    private = tmpdir_ / f"pi-{os.getuid()}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if squatted == "symlink":
        private.symlink_to(elsewhere)
    elif squatted == "file":
        private.write_text("not a folder")
    else:
        private.mkdir(mode=0o755)
        private.chmod(0o777)
    _, path = _run(tmp_path / "run", tmpdir_)
    assert path is not None
    full = Path(path)
    assert _mode(full) == 0o600 and _mode(full.parent) == 0o700
    if squatted == "loose":
        assert full.parent == private  # our own folder, tightened
    else:
        assert full.parent.parent == tmpdir_ and full.parent.name.startswith(f"pi-{os.getuid()}-")
        assert list(elsewhere.iterdir()) == []


def _pi_at_home(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pi ARGS`` with only ``HOME`` (no agent-dir variable) and ``TMPDIR`` set."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "TMPDIR": str(cwd)}
    return subprocess.run(
        [str(OUR_PI), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=60
    )


@pytest.mark.parametrize(
    ("command", "created"),
    [(["--list-models"], "auth.json"), (["install", "./package"], "settings.json")],
    ids=["first-run", "install"],
)
def test_folders_pi_creates_are_private_down_to_the_agent_dir(
    tmp_path: Path, command: list[str], created: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "package").mkdir()
    done = _pi_at_home(home, tmp_path, *command)
    assert done.returncode == 0, done.stderr
    assert (_mode(home / ".pi"), _mode(home / ".pi" / "agent")) == (0o700, 0o700)
    assert _mode(home / ".pi" / "agent" / created) == 0o600


def test_a_loose_auth_file_is_tightened_with_a_notice_on_stderr(tmp_path: Path) -> None:
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    auth = agent / "auth.json"
    auth.write_text('{"anthropic": {"type": "api_key", "key": "sk-ant-secret"}}', encoding="utf-8")
    auth.chmod(0o640)
    runs = [_pi_at_home(home, tmp_path, "--list-models", "claude-sonnet-4-5") for _ in range(2)]
    assert [done.returncode for done in runs] == [0, 0], runs[0].stderr
    assert runs[0].stderr.splitlines() == [
        f"Warning: {auth} was readable by others (mode 0640); it is now private (0600)"
    ]
    assert _mode(auth) == 0o600 and "claude-sonnet-4-5" in runs[0].stdout  # the key still counts
    assert runs[1].stderr == ""  # said once: the second run finds it private


def test_a_symlinked_auth_file_with_a_loose_target_gets_a_warning(tmp_path: Path) -> None:
    """The target is not ours to chmod (it may be shared on purpose): pi says so, every run,
    and still reads the key through the link."""
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    target = tmp_path / "dotfiles" / "pi-auth.json"
    target.parent.mkdir()
    target.write_text('{"anthropic": {"type": "api_key", "key": "sk-ant-secret"}}', encoding="utf-8")
    target.chmod(0o644)
    (agent / "auth.json").symlink_to(target)
    done = _pi_at_home(home, tmp_path, "--list-models", "claude-sonnet-4-5")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"Warning: {agent / 'auth.json'} is a symlink to {target}, which is readable by others (mode 0644); "
        f"make it private (chmod 600 {target})"
    ]
    assert _mode(target) == 0o644 and "claude-sonnet-4-5" in done.stdout


def test_session_folders_are_private(tmp_path: Path, tmpdir_: Path) -> None:
    done, _ = _run(tmp_path / "run", tmpdir_, command="true")
    sessions = tmp_path / "run" / "home" / ".pi" / "agent" / "sessions"
    [project] = list(sessions.iterdir())
    [session_file] = list(project.iterdir())
    assert (_mode(sessions), _mode(project), _mode(session_file)) == (0o700, 0o700, 0o600)
    assert json.loads(session_file.read_text().splitlines()[0])["type"] == "session"
    assert done.returncode == 0
