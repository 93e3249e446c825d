"""Where the browser brings the authorization answer back: a small HTTP server on a loopback
address (``http://127.0.0.1:<port>/callback`` unless ``oauth.callbackUrl``/``callbackPort`` say
otherwise), as Pi 1.6 runs it.

The port is the configured one, else the port of the stored client's redirect URI (so that
client stays usable), else a free one. The page the browser shows says whether the sign-in went
through; the answer for a sign-in is matched by its ``state`` (and path).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit, urlunsplit

from pi_coding_agent.core.mcp.oauth._client import (
    OAuthSettings,
    offers_document,
    registered_redirects,
    server_specific_path,
)
from pi_coding_agent.core.mcp.oauth._store import ServerAuthState

CALLBACK_HOST = "127.0.0.1"


@dataclass(frozen=True)
class LoopbackSettings:
    url: str
    host: str
    redirect_host: str
    port: int | None
    path: str
    fixed_redirect_url: str | None


def loopback_settings(settings: OAuthSettings) -> LoopbackSettings:
    configured = settings.callback_url or f"http://{CALLBACK_HOST}/callback"
    parts = urlsplit(configured)
    address = (parts.hostname or CALLBACK_HOST).strip("[]")
    port = parts.port if parts.port is not None else settings.callback_port
    fixed = None
    if parts.port is not None:
        fixed = settings.callback_url
    elif port is not None:
        netloc = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
        fixed = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    return LoopbackSettings(
        url=configured,
        host=CALLBACK_HOST if address == "localhost" else address,
        redirect_host=address,
        port=port,
        path=parts.path or "/",
        fixed_redirect_url=fixed,
    )


@dataclass(frozen=True)
class CallbackAnswer:
    code: str
    state: str
    iss: str | None


class CallbackServer:
    """The loopback server of one sign-in."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.redirect_url = ""
        self._server: asyncio.Server | None = None
        self._waiting: dict[str, tuple[asyncio.Future[CallbackAnswer], str | None]] = {}

    async def listen(self, host: str, redirect_host: str, port: int, path: str) -> None:
        self._server = await asyncio.start_server(self._handle, host, port)
        bound = self._server.sockets[0].getsockname()[1]
        shown = f"[{redirect_host}]" if ":" in redirect_host else redirect_host
        self.redirect_url = f"http://{shown}:{bound}{path}"

    def wait(self, state: str, path: str | None) -> asyncio.Future[CallbackAnswer]:
        future: asyncio.Future[CallbackAnswer] = asyncio.get_running_loop().create_future()
        self._waiting[state] = (future, path)
        return future

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)).strip():
                pass
            status, message = self._answer(line)
            body = _page(status == 200, message).encode()
            head = (
                f"HTTP/1.1 {status} {'OK' if status == 200 else 'Bad Request'}\r\n"
                "content-type: text/html; charset=utf-8\r\ncache-control: no-store\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
            )
            writer.write(head.encode() + body)
            await writer.drain()
        except (TimeoutError, OSError, UnicodeDecodeError):
            pass
        finally:
            writer.close()

    def _answer(self, request_line: str) -> tuple[int, str]:
        parts = request_line.split()
        if len(parts) < 2 or parts[0] != "GET":
            return 400, "This address only receives sign-in answers."
        url = urlsplit(parts[1])
        if url.path not in self.paths:
            return 404, "This address only receives sign-in answers."
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        state = query.get("state", "")
        waiting = self._waiting.get(state)
        if waiting is None or waiting[0].done():
            return 400, "This answer belongs to no sign-in in progress."
        future, path = waiting
        if path is not None and url.path != path:
            future.set_exception(ValueError("The authorization response arrived on another redirect URI"))
            return 400, "The answer arrived on the wrong address."
        if "error" in query:
            future.set_exception(ValueError(query.get("error_description") or query["error"]))
            return 400, f"The sign-in was refused: {query.get('error_description') or query['error']}"
        if not query.get("code"):
            future.set_exception(ValueError("The authorization response has no code"))
            return 400, "The answer has no authorization code."
        future.set_result(CallbackAnswer(query["code"], state, query.get("iss")))
        return 200, "You are signed in to the MCP server and can close this page."


def _page(ok: bool, message: str) -> str:
    title = "Signed in" if ok else "Sign-in failed"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{html.escape(message)}</p></body></html>"
    )


async def listen_for_sign_in(state: ServerAuthState, settings: OAuthSettings) -> tuple[CallbackServer, str]:
    """The callback server and the redirect URI to use."""
    loopback = loopback_settings(settings)
    registered = registered_redirects(state.load().get("clientInformation"))
    port = loopback.port
    if port is None and registered:
        port = urlsplit(registered[0]).port
    extra = (
        [server_specific_path(loopback.path, state.server_url)]
        if offers_document(settings, loopback.url)
        else []
    )
    server = CallbackServer([loopback.path, *extra])
    try:
        await server.listen(loopback.host, loopback.redirect_host, port or 0, loopback.path)
    except OSError:
        # A configured port is required; the stored client's port is only preferred.
        if loopback.port is not None or port is None:
            raise
        await server.listen(loopback.host, loopback.redirect_host, 0, loopback.path)
    return server, loopback.fixed_redirect_url or server.redirect_url
