"""A stand-in agent for the extension UI tests: our ``RpcServer`` over stdin/stdout, with an
"extension" that asks ``confirm`` and ``select`` at startup and reports the answers with
``notify``. (Extensions are a later issue; this drives the sub-protocol through real pipes.)

    python ui_agent.py [ignored arguments]
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from pi_coding_agent.app.rpc import RpcServer


class _Runtime:
    """What ``RpcServer`` needs from a runtime when no command touches a session."""

    def bind_ui(self, ui: Any, mode: str) -> None:
        self.ui = ui

    def subscribe(self, listener: Any) -> Any:
        return lambda: None

    def on_extension_error(self, listener: Any) -> None:
        pass


async def main() -> None:
    server = RpcServer(_Runtime(), os.fdopen(1, "wb", buffering=0))  # type: ignore[arg-type]
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def pump() -> None:
        while chunk := await reader.read(65536):
            server.feed(chunk)
        server.feed(b"")

    pumping = asyncio.create_task(pump())
    confirmed = await server.ui.confirm("Allow?", "rm -rf build", timeout_ms=30_000)
    choice = await server.ui.select("Pick one", ["a", "b"])
    typed = await server.ui.input("Name?")
    server.ui.notify(f"confirmed={confirmed} choice={choice} typed={typed}", "info")
    await server.serve()
    await pumping


if __name__ == "__main__":
    asyncio.run(main())
