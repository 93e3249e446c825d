"""Running a shell command as its own process group, for the ``bash`` tool and user bash.

The shell runs detached (``setsid``): it and everything it starts form one process group,
so abort and timeout kill the whole tree with one ``SIGKILL``; processes that left the group
(``setsid``) are found by the run's ``PI_RUN_MARKER`` and killed too (``_watchdog``). A
watchdog process does the same if pi itself dies mid-run. stdout and stderr share one pipe,
which keeps their interleaving as the program wrote it. stdin is ``/dev/null``.

When the shell exits while something it started in the background still holds the pipe
open, reading goes on while output keeps arriving and stops after 100 ms of silence, so a
daemonized server does not hang the call and late output is not lost. Such background
processes are left running on a normal exit (that is how a model starts a server); only
abort and timeout kill the group.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import shutil
import signal as signals
import subprocess
from collections.abc import Callable, Mapping
from typing import Protocol

from pi_ai import AbortSignal
from pi_ai.js_json import js_number
from pi_coding_agent.core.tools._common import ToolError
from pi_coding_agent.core.tools._process_guard import new_run_token, watchdog
from pi_coding_agent.core.tools._watchdog import MARKER_VARIABLE, kill_run

MAX_TIMEOUT_SECONDS = 2_147_483.647
EXIT_IDLE_GRACE = 0.1
_READ_SIZE = 65536
SESSION_ENV_KEYS = ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")


class ShellAbortedError(Exception):
    """The command was stopped because its abort signal fired."""


class ShellTimeoutError(Exception):
    """The command ran past its timeout and was killed."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"timeout:{js_number(timeout)}")
        self.timeout = timeout


DataCallback = Callable[[bytes], None]


class BashOperations(Protocol):
    """Where commands run. The local shell is the default; extensions may run them elsewhere."""

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: DataCallback,
        signal: AbortSignal | None = None,
        time_limit: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> int | None:
        """Run ``command``; return its exit code (``None`` if a signal ended it).

        ``time_limit`` is the timeout in seconds (none by default).

        Raise ``ShellAbortedError`` on abort and ``ShellTimeoutError`` on timeout, after the
        process group is dead.
        """
        ...


def shell_command(shell_path: str | None = None) -> tuple[str, list[str]]:
    """The shell and its arguments before the command: a configured path, bash, or sh."""
    if shell_path:
        if os.path.exists(shell_path):
            return shell_path, ["-c"]
        raise ToolError(f"Custom shell path not found: {shell_path}")
    if os.path.exists("/bin/bash"):
        return "/bin/bash", ["-c"]
    found = shutil.which("bash")
    if found:
        return found, ["-c"]
    return "sh", ["-c"]


def shell_env(bin_dir: str | None = None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment commands see: ``base`` (the process environment) with ``bin_dir`` first on PATH."""
    env = dict(os.environ if base is None else base)
    if bin_dir:
        current = env.get("PATH", "")
        entries = [entry for entry in current.split(os.pathsep) if entry]
        if bin_dir not in entries:
            env["PATH"] = os.pathsep.join([bin_dir, current]) if current else bin_dir
    return env


def check_timeout(timeout: float | None) -> None:
    if timeout is None:
        return
    if not math.isfinite(timeout) or timeout <= 0:
        raise ToolError("Invalid timeout: must be a finite number of seconds")
    if timeout > MAX_TIMEOUT_SECONDS:
        raise ToolError(f"Invalid timeout: maximum is {js_number(MAX_TIMEOUT_SECONDS)} seconds")


def kill_process_group(pid: int) -> None:
    """SIGKILL the group led by ``pid`` (falling back to the process alone)."""
    try:
        os.killpg(pid, signals.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signals.SIGKILL)


class LocalShell:
    """Runs commands with the local shell (``BashOperations``)."""

    def __init__(self, shell_path: str | None = None, *, shell_name: str = "bash") -> None:
        self.shell_path = shell_path
        self.shell_name = shell_name

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: DataCallback,
        signal: AbortSignal | None = None,
        time_limit: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> int | None:
        check_timeout(time_limit)
        if signal is not None and signal.aborted:
            raise ShellAbortedError()
        shell, args = self._prepare(cwd)
        token = new_run_token()
        run_env = {**(env if env is not None else shell_env()), MARKER_VARIABLE: token}
        guard = watchdog()
        guard.start(token)
        try:
            read_fd, write_fd = os.pipe()
            try:
                process = await asyncio.create_subprocess_exec(
                    shell,
                    *args,
                    command,
                    cwd=cwd,
                    env=run_env,
                    stdin=subprocess.DEVNULL,
                    stdout=write_fd,
                    stderr=write_fd,
                    start_new_session=True,
                )
            except BaseException:
                os.close(read_fd)
                raise
            finally:
                os.close(write_fd)
            guard.group(token, process.pid)
            return await _supervise(process, token, read_fd, on_data, signal=signal, time_limit=time_limit)
        finally:
            guard.end(token)

    def _prepare(self, cwd: str) -> tuple[str, list[str]]:
        shell, args = shell_command(self.shell_path)
        if not os.path.exists(cwd):
            raise ToolError(
                f"Working directory does not exist: {cwd}\nCannot execute {self.shell_name} commands."
            )
        return shell, args


async def _supervise(
    process: asyncio.subprocess.Process,
    token: str,
    read_fd: int,
    on_data: DataCallback,
    *,
    signal: AbortSignal | None,
    time_limit: float | None,
) -> int | None:
    loop = asyncio.get_running_loop()
    os.set_blocking(read_fd, False)
    activity = asyncio.Event()
    eof = False
    timed_out = False

    def on_readable() -> None:
        nonlocal eof
        try:
            chunk = os.read(read_fd, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            on_data(chunk)
        else:
            eof = True
            loop.remove_reader(read_fd)
        activity.set()

    def kill() -> None:
        # Once the shell is reaped its group id may be reused: only the marker is safe then.
        kill_run(process.pid if process.returncode is None else None, token)

    def on_timeout() -> None:
        nonlocal timed_out
        timed_out = True
        kill()

    loop.add_reader(read_fd, on_readable)
    remove_listener = signal.add_listener(kill) if signal is not None else None
    timer = loop.call_later(time_limit, on_timeout) if time_limit is not None else None
    try:
        returncode = await process.wait()
        # Output written just before exit may still be in the pipe, and background children
        # may hold it open: read until EOF or until the pipe has been quiet for the grace time.
        while not eof:
            activity.clear()
            try:
                await asyncio.wait_for(activity.wait(), EXIT_IDLE_GRACE)
            except TimeoutError:
                break
    finally:
        if timer is not None:
            timer.cancel()
        if remove_listener is not None:
            remove_listener()
        if process.returncode is None:
            # Cancelled from outside (task cancellation): never leave the group running.
            kill()
            with contextlib.suppress(BaseException):
                await asyncio.shield(process.wait())
        if not eof:
            loop.remove_reader(read_fd)
        os.close(read_fd)
    if signal is not None and signal.aborted:
        raise ShellAbortedError()
    if timed_out:
        assert time_limit is not None
        raise ShellTimeoutError(time_limit)
    return returncode if returncode >= 0 else None
