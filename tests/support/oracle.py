"""Finding and running the real Pi (the oracle) from tests: 0.85, and the current 1.6.

The oracle folder is ``$PI_ORACLE_DIR``, else ``<repo>/../shared/oracle``. Pi 0.85's runtime lives
in ``$PI_ORACLE_HOME`` (default ``~/.cache/pi-oracle-0.85.0``), Pi 1.6's in ``$PI_CURRENT_HOME``
(default ``~/.cache/pi-oracle-1.6.0``; ``install-current.sh``). Pass ``current=True`` to run the
harness on 1.6. When a runtime is missing, tests that need it are skipped with the reason, unless
``PI_REQUIRE_ORACLE=1`` (set by ``.ci/run``, which installs both), where they fail instead.
"""

from __future__ import annotations

import atexit
import json
import os
import platform
import select
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support import deep_json

REPO = Path(__file__).resolve().parents[2]


def oracle_dir() -> Path | None:
    candidates = [os.environ.get("PI_ORACLE_DIR"), REPO.parent / "shared" / "oracle"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "oracle").exists():
            return Path(candidate)
    return None


def oracle_home() -> Path:
    return Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))


def current_home() -> Path:
    """Where ``install-current.sh`` put Pi 1.6 (the release today's Pi users run)."""
    return Path(os.environ.get("PI_CURRENT_HOME", Path.home() / ".cache" / "pi-oracle-1.6.0"))


def runtime_installed(current: bool = False) -> bool:
    return ((current_home() if current else oracle_home()) / "oracle-loader.mjs").exists()


def require_oracle_cases() -> Path:
    """The oracle's ``cases`` folder, or skip/fail as documented above."""
    found = oracle_dir()
    if found is None:
        _unavailable("the oracle folder (../shared/oracle) was not found; set PI_ORACLE_DIR")
    assert found is not None
    return found / "cases"


def require_live_oracle(current: bool = False) -> Path:
    """The oracle folder with Pi 0.85's runtime installed (``current``: Pi 1.6's)."""
    found = oracle_dir()
    if found is None:
        _unavailable("the oracle folder (../shared/oracle) was not found; set PI_ORACLE_DIR")
    assert found is not None
    if not runtime_installed(current):
        home, script = (current_home(), "install-current.sh") if current else (oracle_home(), "install.sh")
        _unavailable(f"the oracle runtime is not installed in {home}; run {found}/{script}")
    return found


def _unavailable(reason: str) -> None:
    if os.environ.get("PI_REQUIRE_ORACLE") == "1":
        pytest.fail(f"PI_REQUIRE_ORACLE=1 but {reason}")
    pytest.skip(reason)


_PROXY_VARIABLES = frozenset(
    {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"}
)


CODEX_API = "openai-codex-responses"
CODEX_DRIVER = REPO / "tools" / "pi_codex_oracle.mjs"


def _node(home: Path) -> Path:
    machine = "arm64" if platform.machine() in ("aarch64", "arm64") else "x64"
    return home / "node_modules" / f"node-linux-{machine}" / "bin" / "node"


def _node_env(home: Path) -> dict[str, str]:
    """The oracle script's environment for Node run directly: no proxies, no NODE_OPTIONS."""
    env = {key: value for key, value in os.environ.items() if key not in _PROXY_VARIABLES | {"NODE_OPTIONS"}}
    env.update(PI_ORACLE_HOME=str(home), TZ="UTC", LANG="C.UTF-8")
    return env


def run_oracle(
    subcommand: str, request: Any, timeout: float = 120, current: bool = False, served: bool = True
) -> tuple[int, Any]:
    """Run ``oracle SUBCOMMAND`` on ``request`` (``current``: on Pi 1.6); returns (exit code,
    parsed stdout). A Codex ``payload`` runs through ``tools/pi_codex_oracle.mjs`` (the same
    harness), whose request ``body`` is the JSON Pi zstd-compressed. A command in ``BATCHED`` is
    answered by the Node process kept for that Pi unless ``served`` is false (the ``oracle``
    wrapper itself, for the tests that check the kept process answers as it does)."""
    if subcommand in BATCHED and served:
        return _SERVERS[current].ask(subcommand, request, timeout)
    folder = require_live_oracle(current)
    home = current_home() if current else oracle_home()
    env = {**os.environ, "PI_ORACLE_HOME": str(home)}
    command = [str(folder / "oracle"), subcommand]
    if subcommand == "payload" and isinstance(request, dict) and request.get("api") == CODEX_API:
        # Codex bodies go zstd-compressed, which the oracle records as text: the driver reports
        # the JSON Pi compressed instead (docs/decisions/codex-transport.md).
        env = {**_node_env(home), "PI_ORACLE_DIR": str(folder)}
        command = [str(_node(home)), "--no-warnings", str(CODEX_DRIVER), subcommand]
    completed = subprocess.run(
        command,
        input=json.dumps(request).encode(),
        capture_output=True,
        timeout=timeout,
        check=False,
        env=env,
    )
    if completed.returncode > 1:
        raise RuntimeError(
            f"oracle {subcommand} failed ({completed.returncode}): {completed.stderr.decode()[:2000]}"
        )
    return completed.returncode, deep_json.loads(completed.stdout)


BATCHED = frozenset({"session-context", "session-migrate", "convert-to-llm"})
"""The oracle commands that keep no state between requests: served by one Node process per Pi
for the whole test session (``oracle_batch.mjs``) rather than one Node start per request."""


class OracleServer:
    """One ``oracle_batch.mjs`` process for one Pi, started on first use and kept until exit."""

    def __init__(self, current: bool) -> None:
        self.current = current
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None

    def _started(self) -> subprocess.Popen[bytes]:
        if self.process is None or self.process.poll() is not None:
            folder = require_live_oracle(self.current)
            home = current_home() if self.current else oracle_home()
            script = str(Path(__file__).with_name("oracle_batch.mjs"))
            self.process = subprocess.Popen(
                [str(_node(home)), "--no-warnings", script, str(folder / "lib")],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_node_env(home),
                cwd=REPO,  # not the caller's: a test's folder, often deleted while this process lives on
            )  # fmt: skip
        return self.process

    def ask(self, subcommand: str, request: Any, timeout: float) -> tuple[int, Any]:
        with self.lock:
            process = self._started()
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(json.dumps({"subcommand": subcommand, "request": request}).encode() + b"\n")
                process.stdin.flush()
            except BrokenPipeError:
                raise RuntimeError(f"oracle batch {subcommand}: the Node process exited ({process.wait()})") from None
            if not select.select([process.stdout], [], [], timeout)[0]:
                process.kill()
                raise RuntimeError(f"oracle batch {subcommand}: no answer within {timeout} s")
            line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"oracle batch {subcommand}: the Node process exited ({process.wait()})")
        answer = deep_json.loads(line)
        if answer["code"] > 1:
            raise RuntimeError(f"oracle batch {subcommand} failed: {answer['output']['error']}")
        return answer["code"], answer["output"]

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


_SERVERS = {current: OracleServer(current) for current in (False, True)}
atexit.register(lambda: [server.close() for server in _SERVERS.values()])


def run_oracle_many(
    subcommand: str, requests: list[Any], timeout: float = 300, current: bool = False
) -> list[tuple[int, Any]]:
    """``run_oracle(subcommand, request, current=current)`` for each request, by the Node process
    kept for this Pi: the same (exit code, parsed stdout) pairs, without a Node start per request
    (about 1.5 s of CPU each). For the commands in ``BATCHED``."""
    assert subcommand in BATCHED, subcommand
    return [_SERVERS[current].ask(subcommand, request, timeout) for request in requests]


def run_conformance(
    subcommand: str, request: Any, timeout: float = 120, current: bool = False
) -> tuple[int, Any]:
    """Run our ``tools/conformance.py SUBCOMMAND`` the same way (``current``: to compare with Pi 1.6)."""
    python = REPO / ".venv" / "bin" / "python"
    flags = ["--current"] if current else []
    completed = subprocess.run(
        [
            str(python if python.exists() else "python3"),
            str(REPO / "tools" / "conformance.py"),
            *flags,
            subcommand,
        ],
        input=json.dumps(request).encode(),
        capture_output=True,
        timeout=timeout,
        check=False,
        cwd=REPO,
    )
    if completed.returncode == 2:
        raise RuntimeError(f"conformance {subcommand} refused the input: {completed.stderr.decode()[:2000]}")
    try:
        output = deep_json.loads(completed.stdout)
    except ValueError:
        raise RuntimeError(
            f"conformance {subcommand} exited {completed.returncode} without JSON: "
            f"{completed.stderr.decode()[-3000:]}"
        ) from None
    return completed.returncode, output


def conformance_in_process(subcommand: str, request: Any, current: bool = False) -> tuple[int, Any]:
    """What ``run_conformance`` answers (``current``: to compare with Pi 1.6), without a process
    per call: ``tools/conformance.py``'s ``answer`` in this process, its output through the same JSON text, in a fresh state (Gemini's
    process-wide tool-call counter restarts, as in a new process)."""
    import itertools
    import sys

    from pi_ai.api import _google_stream

    if str(REPO / "tools") not in sys.path:
        sys.path.insert(0, str(REPO / "tools"))
    from conformance import answer

    counter = _google_stream._tool_call_counter
    _google_stream._tool_call_counter = itertools.count(1)
    try:
        code, output = answer(subcommand, request, current)
    finally:
        _google_stream._tool_call_counter = counter
    return code, deep_json.loads(deep_json.dumps(output))


def run_current_library(script: Path, request: Any, timeout: float = 120) -> Any:
    """Run our node ``script`` (it imports Pi 1.6's library from ``$PI_CURRENT_HOME``, also
    given as ``$PI_ORACLE_HOME``) on ``request`` with the oracle's node and its loopback-only guard,
    offline; returns the JSON it prints. For checks no oracle subcommand covers."""
    import platform

    folder = require_live_oracle(current=True)
    home = current_home()
    node = (
        home
        / "node_modules"
        / f"node-linux-{'arm64' if platform.machine() in ('aarch64', 'arm64') else 'x64'}"
    )
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "NODE_COMPILE_CACHE")}
    completed = subprocess.run(
        [
            str(node / "bin" / "node"),
            "--no-warnings",
            "--import",
            str(folder / "lib" / "guard-preload.mjs"),
            str(script),
        ],
        input=json.dumps(request).encode(),
        capture_output=True,
        timeout=timeout,
        check=False,
        env={
            **keep,
            "PI_CURRENT_HOME": str(home),
            "PI_ORACLE_HOME": str(home),  # for drivers written for the 0.85 runtime (pi_resources_driver.mjs)
            "PI_OFFLINE": "1",
            "PI_TELEMETRY": "0",
            "TZ": "UTC",
        },
    )
    if completed.returncode != 0:
        raise RuntimeError(
            f"{script.name} failed ({completed.returncode}): {completed.stderr.decode()[:2000]}"
        )
    return json.loads(completed.stdout)
