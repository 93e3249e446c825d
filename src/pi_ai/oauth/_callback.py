"""The local server a browser sign-in redirects to, and the pasted-code alternative.

The server listens on 127.0.0.1 only, answers each request with a small HTML page and
closes the connection. What a request means is the flow's business (``CallbackHandler``).
A user whose browser runs on another machine cannot reach it, so flows also ask for the
final redirect URL (or the code) to be pasted: ``wait_for_callback_or_input`` races the two.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import parse_qsl, urlsplit

from pi_ai.oauth._endpoints import CALLBACK_HOST
from pi_ai.oauth._types import AuthPrompt, LoginCallbacks

T = TypeVar("T")

CallbackHandler = Callable[[str, str, dict[str, str]], Awaitable[tuple[int, str]]]
"""``(method, path, query parameters) -> (status, HTML page)``."""

_REQUEST_READ_TIMEOUT_S = 10.0


def first_values(query: str) -> dict[str, str]:
    """Query parameters, the first value of each name (``URLSearchParams.get``)."""
    values: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        values.setdefault(name, value)
    return values


class CallbackServer:
    def __init__(self, handler: CallbackHandler) -> None:
        self._handler = handler
        self._server: asyncio.Server | None = None

    async def start(self, port: int) -> None:
        """Listen on ``127.0.0.1:port`` (``0``: a free port); raises ``OSError`` when taken."""
        self._server = await asyncio.start_server(self._serve, CALLBACK_HOST, port)

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def start_or_settle(self, port: int, waiting: asyncio.Future[T | None]) -> int:
        """Listen on ``port``; when it is taken, settle ``waiting`` with ``None`` instead (the
        pasted redirect URL is then the only way back, as in Pi). Returns the port the
        redirect URI names."""
        try:
            await self.start(port)
        except OSError:
            waiting.set_result(None)
            return port
        return self.port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _REQUEST_READ_TIMEOUT_S)
            method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            parts = urlsplit(target)
            try:
                status, page = await self._handler(method, parts.path, first_values(parts.query))
            except Exception:
                status, page = 500, error_page("Internal error while processing the sign-in callback.")
            body = page.encode()
            writer.write(
                f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
                "Content-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode("latin-1")
                + body
            )
            await writer.drain()
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        finally:
            writer.close()


def _page(title: str, message: str, details: str | None) -> str:
    extra = f'\n<pre class="details">{html.escape(details)}</pre>' if details else ""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:system-ui,sans-serif;background:#111;color:#eee;display:flex;"
        "min-height:90vh;align-items:center;justify-content:center;text-align:center}"
        ".details{color:#aaa;white-space:pre-wrap}</style></head>\n"
        f"<body><main><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p>{extra}</main></body></html>\n"
    )


def success_page(message: str) -> str:
    return _page("Signed in", message, None)


def error_page(message: str, details: str | None = None) -> str:
    return _page("Sign-in failed", message, details)


async def wait_for_callback_or_input(
    callback: asyncio.Future[T | None], callbacks: LoginCallbacks, prompt: AuthPrompt
) -> tuple[T | None, str | None]:
    """``(callback result, None)`` when the browser came back first, else ``(None, pasted
    text)``. The prompt runs meanwhile and is cancelled when the callback wins; an error the
    prompt raises (the user cancelled) stops the sign-in. A callback that settles with
    ``None`` (its server could not start) leaves the prompt as the only way in."""
    asked = asyncio.ensure_future(callbacks.prompt(prompt))
    try:
        waiting: set[asyncio.Future[object]] = {callback, asked}  # type: ignore[arg-type]
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if callback.done() and callback.result() is not None and not (asked.done() and asked.exception()):
            return callback.result(), None
        return None, await asked
    finally:
        if not asked.done():
            asked.cancel()
            with contextlib.suppress(BaseException):
                await asked


def parse_authorization_input(text: str) -> tuple[str | None, str | None]:
    """``(code, state)`` from a pasted redirect URL, ``code#state``, a query string or a bare code."""
    value = text.strip()
    if not value:
        return None, None
    parts = urlsplit(value)
    if parts.scheme and (parts.netloc or parts.path):
        params = first_values(parts.query)
        return params.get("code"), params.get("state")
    if "#" in value:
        code, state = value.split("#")[:2]
        return code, state
    if "code=" in value:
        params = first_values(value)
        return params.get("code"), params.get("state")
    return value, None
