"""Running ``pi`` (ours, and Pi 0.85 / 1.6 through the oracle's ``pi-cli`` / ``pi-cli-current``) in
a throwaway home.

Each run gets its own ``HOME`` and ``PI_CODING_AGENT_DIR`` with a ``models.json`` pointing
at a scripted provider on 127.0.0.1, and a working directory with the files the script
expects. Nothing outside the temporary folder is read or written.
"""

from __future__ import annotations

import gc
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from tests.support import oracle
from tests.support.scripted_provider import models_json

REPO = Path(__file__).resolve().parents[3]
OUR_PI = REPO / ".venv" / "bin" / "pi"
OPENAI_MODEL = "scripted-openai/scripted-model"
ANTHROPIC_MODEL = "scripted-anthropic/scripted-claude"


@dataclass
class Sandbox:
    root: Path
    home: Path
    agent_dir: Path
    work: Path

    @classmethod
    def create(cls, root: Path, base_url: str, settings: dict[str, Any] | None = None) -> Sandbox:
        home = root / "home"
        agent_dir = home / ".pi" / "agent"
        work = root / "work"
        agent_dir.mkdir(parents=True)
        work.mkdir()
        (agent_dir / "models.json").write_text(json.dumps(models_json(base_url)), encoding="utf-8")
        (agent_dir / "settings.json").write_text(
            json.dumps(settings if settings is not None else {"retry": {"enabled": False}}), encoding="utf-8"
        )
        return cls(root, home, agent_dir, work)

    def env(self, **extra: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "NODE_COMPILE_CACHE")}
        return {
            **keep,
            "HOME": str(self.home),
            "PI_CODING_AGENT_DIR": str(self.agent_dir),
            "PI_ORACLE_HOME": str(oracle.oracle_home()),
            "PI_CURRENT_HOME": str(oracle.current_home()),  # pi-cli-current looks under $HOME otherwise
            **extra,
        }

    def session_files(self) -> list[Path]:
        return sorted((self.agent_dir / "sessions").rglob("*.jsonl"))


@dataclass
class Completed:
    returncode: int
    stdout: str
    stderr: str

    def json_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


def run_ours(sandbox: Sandbox, *args: str, stdin: str | None = None, timeout: float = 60, **env: str) -> Completed:
    done = subprocess.run(
        [str(OUR_PI), *args],
        cwd=sandbox.work,
        env=sandbox.env(**env),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Completed(done.returncode, done.stdout, done.stderr)


def run_ours_in_process(sandbox: Sandbox, *args: str, stdin: str = "", **env: str) -> Completed:
    """``run_ours`` without a new Python: our command line's ``main(args)`` in this process, with
    the run's environment, working directory and stdin, its stdout and stderr captured, and what
    it returns (or exits with) as the exit code. For tests of what a run prints against a local
    server, where a start of Python (about 0.5 CPU-s) would be most of the test; what needs the
    process itself (signals, the console script) keeps ``run_ours``. Call from a thread without
    a running event loop (``main`` runs its own, and installs signal handlers: the main thread)."""
    from pi_coding_agent.app.cli import main

    streams = [_bytes_stream(stdin.encode()), _bytes_stream(b""), _bytes_stream(b"")]
    with as_if_run_in(sandbox, env, *streams):
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        finally:
            gc.unfreeze()  # ``main`` freezes what is alive when a run ends; a test process goes on
    out, err = (_captured(stream) for stream in streams[1:])
    return Completed(code, out, err)


def _bytes_stream(data: bytes) -> io.TextIOWrapper:
    """A text stream with a ``buffer`` (the print mode writes bytes to ``sys.stdout.buffer``)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", write_through=True)


def _captured(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


@contextmanager
def as_if_run_in(sandbox: Sandbox, env: dict[str, str], stdin: IO[str], stdout: IO[str], stderr: IO[str]) -> Iterator[None]:
    """This process set up as ``pi``'s own run in ``sandbox`` would be: ``sandbox.env(**env)`` as
    the whole environment, the sandbox's work folder as the working directory, and these
    standard streams; all of it restored afterwards."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    run_env = sandbox.env(**env)  # before the clear: it keeps our PATH, LANG...
    os.environ.clear()
    os.environ.update(run_env)
    os.chdir(sandbox.work)
    tempfile.tempdir = None  # found again from the run's TMPDIR, and after it from ours
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        tempfile.tempdir = None


def run_pi(
    sandbox: Sandbox, *args: str, stdin: str | None = None, timeout: float = 90, current: bool = False, **env: str
) -> Completed:
    """Pi 0.85 itself (``current``: Pi 1.6), only through the oracle's loopback-guarded ``pi-cli``
    / ``pi-cli-current`` (which unset the proxy variables)."""
    folder = oracle.require_live_oracle(current)
    done = subprocess.run(
        [str(folder / ("pi-cli-current" if current else "pi-cli")), *args],
        cwd=sandbox.work,
        env=sandbox.env(**env),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Completed(done.returncode, done.stdout, done.stderr)


def oracle_context(session_file: Path) -> dict[str, Any]:
    """What the real Pi builds from a session file (``SessionManager.open`` + context)."""
    code, answer = oracle.run_oracle("session-context", {"jsonl": session_file.read_text(encoding="utf-8")})
    assert code == 0, answer
    return dict(answer)


_VOLATILE_KEYS = {"timestamp", "id", "parentId"}


def scrub(value: Any, replacements: dict[str, str]) -> Any:
    """Timestamps and generated ids zeroed, machine paths replaced by placeholders."""
    if isinstance(value, dict):
        return {k: (0 if k in _VOLATILE_KEYS and not isinstance(v, (dict, list)) else scrub(v, replacements))
                for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(item, replacements) for item in value]
    if isinstance(value, str):
        for old, new in replacements.items():
            value = value.replace(old, new)
        return re.sub(r"pi-bash-[0-9a-f]{16}\.log", "pi-bash-<hex>.log", value)
    return value
