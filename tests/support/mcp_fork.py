"""Stdio MCP test servers forked from one process that has the MCP SDK imported already.

Importing the SDK costs about 1 CPU-s (it builds some 550 pydantic models), and a differential test
starts ``python -m tests.support.mcp_server`` once per run of each side, often a dozen times a file.
While a ``ForkServer`` runs (``python -m tests.support.mcp_fork``, a child of the test process, so
its CPU is counted), such a start hands its stdin, stdout and stderr, arguments, environment and
folder to it over a Unix socket (``hand_off``) and the fork serves on them: the client sees the
same pipes, output and exit code. The starter stays as the client's child, forwards the signals it
gets to the fork and exits with its code. Without a fork server the module serves as before.
The fork runs on the fork server's interpreter, the test process's (as the tests' ``mcp.json``
files ask: ``sys.executable``).

The socket is in Linux's abstract namespace, named after this checkout and the user: the client
programs (ours, Pi's) pass a server only a few variables, so the name cannot come from the
environment. Two pytest workers share one fork server (the second finds the name taken).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

REPO = Path(__file__).resolve().parents[2]
ADDRESS = f"\0pi-test-mcp-fork-{os.getuid()}-{hashlib.sha1(str(REPO).encode()).hexdigest()[:16]}"
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _read_line(connection: socket.socket) -> str | None:
    data = b""
    while not data.endswith(b"\n"):
        chunk = connection.recv(1)
        if not chunk:
            return None
        data += chunk
    return data.decode()


def hand_off(argv: list[str]) -> int | None:
    """Have the fork server serve this process's stdio; its exit code, or ``None`` when there is
    no fork server (or it went away before forking): then the caller serves by itself."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(ADDRESS)
    except OSError:
        connection.close()
        return None
    request = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    with connection:
        try:
            socket.send_fds(connection, [len(request).to_bytes(8, "big") + request], [0, 1, 2])
            line = _read_line(connection)
        except OSError:
            return None
        if line is None:
            return None
        child = int(line)
        forwarded: list[int] = []

        def forward(number: int, frame: FrameType | None) -> None:
            forwarded.append(number)
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, number)

        for number in _FORWARDED:
            signal.signal(number, forward)
        line = _read_line(connection)
    # Gone once the fork server reaped it: whoever waits for this process may check that the
    # server's pid is gone, as with a server it started itself.
    for _ in range(2000):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.005)
    if line is not None:
        return int(line)
    # The fork ended without a word: a signal killed it. End the same way.
    number = forwarded[-1] if forwarded else signal.SIGKILL
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    return 1


def _receive(connection: socket.socket) -> tuple[dict[str, object], list[int]]:
    data, fds, _, _ = socket.recv_fds(connection, 65536, 3)
    size = int.from_bytes(data[:8], "big")
    body = data[8:]
    while len(body) < size:
        chunk = connection.recv(size - len(body))
        if not chunk:
            raise OSError("the starter went away")
        body += chunk
    return json.loads(body), fds


def _serve_in_child(
    listener: socket.socket, connection: socket.socket, request: dict[str, object], fds: list[int]
) -> None:
    """In the fork: become the starter's server, then report the exit code. Never returns."""
    code = 1
    try:
        listener.close()
        for number in (*_FORWARDED, signal.SIGCHLD):
            signal.signal(number, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(str(request["cwd"]))
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in dict(request["env"]).items()})  # type: ignore[call-overload]
        argv = [str(arg) for arg in request["argv"]]  # type: ignore[attr-defined]
        sys.argv = ["mcp_server", *argv]
        connection.sendall(f"{os.getpid()}\n".encode())
        from tests.support import mcp_server

        try:
            mcp_server.main(argv)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except BaseException:
            traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        connection.sendall(f"{code}\n".encode())
    finally:
        os._exit(code)


def serve() -> None:
    """The fork server: bind the name (exit 3 when another process has it), say ``ready``, import
    the server's module, then fork one child per starter and reap them (so that their CPU counts
    as this process's children's). SIGTERM, or the end of the process that started it, stops it
    once its children have ended (10 s at most)."""
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(ADDRESS)
    except OSError:
        print("taken", flush=True)
        sys.exit(3)
    listener.listen(16)
    print("ready", flush=True)
    from tests.support import mcp_server  # noqa: F401 - the import the forks share

    stopping = False

    def stop(number: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    # A child that ends is reaped at once (its starter waits until its pid is gone): SIGCHLD
    # wakes the loop through this pair.
    wake, woken = socket.socketpair()
    wake.setblocking(False)
    woken.setblocking(False)
    signal.set_wakeup_fd(wake.fileno(), warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    signal.signal(signal.SIGTERM, stop)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(woken, selectors.EVENT_READ)
    children: set[int] = set()
    deadline = float("inf")  # once stopping: 10 s more for the children still serving
    while (not stopping or children) and time.monotonic() < deadline:
        stopping = stopping or os.getppid() != parent  # the test process died without stopping it
        for key, _ in selector.select(1.0):
            if key.fileobj is woken:
                with contextlib.suppress(BlockingIOError):
                    woken.recv(4096)
            elif not stopping:
                pid = _fork_for(listener, (wake, woken))
                if pid is not None:
                    children.add(pid)
        _reap(children)
        if stopping and listener.fileno() >= 0:
            selector.unregister(listener)
            listener.close()
            deadline = time.monotonic() + 10


def _fork_for(listener: socket.socket, wakeup: tuple[socket.socket, socket.socket]) -> int | None:
    """Accept a starter and fork its server; the child's pid."""
    connection, _ = listener.accept()
    try:
        request, fds = _receive(connection)
    except (OSError, ValueError):
        connection.close()
        return None
    pid = os.fork()
    if pid == 0:
        signal.set_wakeup_fd(-1)
        for end in wakeup:
            end.close()
        _serve_in_child(listener, connection, request, fds)
    for fd in fds:
        os.close(fd)
    connection.close()
    return pid


def _reap(children: set[int]) -> None:
    for pid in list(children):
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                children.discard(pid)


@contextlib.contextmanager
def fork_server() -> Iterator[bool]:
    """A fork server for this checkout while the block runs (``True``), or ``False`` when another
    process (the other pytest worker) serves the name already."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mcp_fork"],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    ready = process.stdout.readline().strip() == "ready"
    try:
        yield ready
    finally:
        process.terminate()
        process.wait(30)
        process.stdout.close()


if __name__ == "__main__":
    serve()
