"""An MCP server for the tests, built with the official SDK's server side (``MCPServer``).

``python -m tests.support.mcp_server stdio`` serves on stdin/stdout;
``python -m tests.support.mcp_server http PORT`` serves streamable HTTP on 127.0.0.1:PORT/mcp.
Its tools cover what a client turns into tool results: text, an image, an error, a long text,
structured content, and a tool whose name needs sanitizing (``dash-name``).

A stdio start hands its pipes to a running fork server (``mcp_fork``) before it imports the SDK,
when there is one.
"""

from __future__ import annotations

import base64
import os
import sys

if __name__ == "__main__" and sys.argv[1:2] != ["http"]:
    from tests.support.mcp_fork import hand_off

    code = hand_off(sys.argv[1:])
    if code is not None:
        sys.exit(code)

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ImageContent, TextContent, ToolAnnotations

# A 1x1 red PNG.
PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)


def build(name: str = "probe") -> MCPServer:
    server = MCPServer(name, instructions="Probe server for the tests.\nSecond line.")

    @server.tool(description="Echo the text back.", annotations=ToolAnnotations(readOnlyHint=True))
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> str:
        return str(a + b)

    @server.tool(description="Return a tiny PNG and a caption.")
    def picture() -> list[TextContent | ImageContent]:
        return [
            TextContent(type="text", text="a red pixel"),
            ImageContent(type="image", data=base64.b64encode(PNG_1X1).decode(), mime_type="image/png"),
        ]

    @server.tool(description="Always fails.")
    def fail(reason: str = "broken") -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=f"failed: {reason}")], is_error=True)

    @server.tool(description="Return a long text.")
    def long_text(size: int = 30000) -> str:
        return "".join(chr(ord("a") + i % 26) for i in range(size))

    @server.tool(name="dash-name", description="A tool whose name has a dash.")
    def dash_name() -> str:
        return "dashed"

    @server.tool(description="Report this server's process id.")
    def pid() -> str:
        return str(os.getpid())

    @server.tool(description="Log a line to the client, then answer.")
    async def chatty(ctx: Context, text: str = "hello") -> str:
        await ctx.warning(f"said {text}\nsecond line", logger_name="probe-log")
        return "logged"

    @server.tool(description="Work for a while, reporting progress every 0.2 s.")
    async def slow(ctx: Context, seconds: float = 1.0) -> str:
        import anyio

        steps = max(1, round(seconds / 0.2))
        for step in range(steps):
            await ctx.report_progress(step + 1, steps, f"step {step + 1}")
            await anyio.sleep(0.2)
        return "finished"

    @server.tool(description="Wait without a word.")
    async def stall(seconds: float = 5.0) -> str:
        import anyio

        await anyio.sleep(seconds)
        return "late"

    @server.tool(description="Add a tool named 'late' and announce the changed tool list.")
    async def grow(ctx: Context) -> str:
        def late() -> str:
            return "late answer"

        server.add_tool(late, name="late", description="Added while running.")
        await ctx.session.send_tool_list_changed()
        return "grown"

    if os.environ.get("PROBE_RESOURCES") == "1":
        _add_resources(server)
    else:  # the server offers no resources (no resources capability, so no resource tools)
        handlers = server._lowlevel_server._request_handlers
        for method in ("resources/list", "resources/read", "resources/templates/list"):
            handlers.pop(method, None)
    return server


def _add_resources(server: MCPServer) -> None:
    """A text resource, a binary one, an MCP App page (which clients leave out) and a template."""

    @server.resource("file:///notes.txt", name="notes", description="Meeting notes", mime_type="text/plain")
    def notes() -> str:
        return "first note\nsecond note"

    @server.resource("file:///pixel.png", name="pixel", mime_type="image/png")
    def pixel() -> bytes:
        return PNG_1X1

    @server.resource("file:///data.bin", name="data", mime_type="application/octet-stream")
    def data() -> bytes:
        return bytes(range(16))

    @server.resource("ui://widget", name="widget", mime_type="text/html;profile=mcp-app")
    def widget() -> str:
        return "<p>app</p>"

    @server.resource("notes://{day}", name="day-notes", description="Notes of one day")
    def day_notes(day: str) -> str:
        return f"notes of {day}"


def main(argv: list[str]) -> None:
    name = os.environ.get("PROBE_NAME", "probe")
    server = build(name)
    if argv and argv[0] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(argv[1]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
