"""Starting the MCP test servers (``tests/support/mcp_server.py``, ``mcp_oauth_server.py``) in child
processes on free 127.0.0.1 ports. Apart from the servers so that a test importing these does
not import the MCP SDK (about 1.2 CPU-s per pytest worker, at collection)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def serve_http(env: dict[str, str] | None = None) -> Iterator[str]:
    """``mcp_server.py`` on streamable HTTP at 127.0.0.1 (a free port) in a child process; yields the
    endpoint URL once the port accepts connections, and stops the server after."""
    with _serve("the MCP test server", ["tests.support.mcp_server", "http"], [], env) as url:
        yield url


@contextlib.contextmanager
def serve_oauth(token_ttl: int = 3600) -> Iterator[str]:
    """``mcp_oauth_server.py`` in a child process on a free 127.0.0.1 port; yields its MCP endpoint URL."""
    with _serve("the MCP OAuth test server", ["tests.support.mcp_oauth_server"], [str(token_ttl)]) as url:
        yield url


@contextlib.contextmanager
def _serve(
    what: str, module: list[str], after_port: list[str], env: dict[str, str] | None = None
) -> Iterator[str]:
    """``python -m MODULE... PORT AFTER_PORT...`` on a free 127.0.0.1 port, until the block ends;
    yields its MCP endpoint URL once the port accepts connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process = subprocess.Popen(
        [sys.executable, "-m", *module, str(port), *after_port],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError(f"{what} exited") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)
