"""Fixtures of the end-to-end tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.mcp_fork import fork_server


@pytest.fixture(scope="module")
def forked_mcp_servers() -> Iterator[None]:
    """The module's stdio starts of ``tests.support.mcp_server`` are forked from one process that
    imported the MCP SDK once (``tests/support/mcp_fork.py``): about 0.8 CPU-s less a start. For
    modules that start the server several times (``pytest.mark.usefixtures``)."""
    with fork_server():
        yield
