"""Serving a test's ``http.server`` on a background thread."""

from __future__ import annotations

import socketserver
import threading

SHUTDOWN_POLL = 0.05
"""How often ``serve_forever`` checks for ``shutdown()``. The standard library's 0.5 s made
every server's teardown wait up to half a second: about 0.4 s of each in-process
interactive test."""


def server_thread(server: socketserver.BaseServer) -> threading.Thread:
    """A daemon thread (not started yet) that serves ``server`` until ``shutdown()``."""
    return threading.Thread(target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL}, daemon=True)
