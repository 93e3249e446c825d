"""One configured server, connected with the official MCP SDK (``mcp`` on PyPI).

The SDK's transports and ``ClientSession`` are anyio context managers that must be entered and
left by one task, so each connection lives in its own task (``_serve``) on the manager's event
loop: it opens the transport, initializes, lists the tools, reports ready, and then waits until
it is told to stop or the transport ends. Calls go through the session from any task of that loop.

A transport that ends (the server exited, the HTTP stream broke) marks the server
``disconnected``; the next call connects again, as Pi 1.6 does. Stopping a stdio server is the
SDK's: close stdin, then SIGTERM and SIGKILL to its process group (servers run in a session of
their own, so ``npx``/``uvx`` wrappers go with them).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio

from pi_coding_agent.core.mcp.client._log import McpServerLog
from pi_coding_agent.core.mcp.config import McpServerEntry, is_http, resolve_env, resolve_headers
from pi_coding_agent.core.paths import resolve_path

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.types import CallToolResult, Tool

    from pi_coding_agent.core.mcp.oauth import McpAuthStore, StoredTokenAuth

State = Literal["connecting", "connected", "failed", "needs-auth", "disconnected", "closed", "disabled"]
DEFAULT_TIMEOUT_S = 60.0
_STDERR_TAIL_CHARS = 2_000
_CONNECT_RETRY_DELAYS_S = (0.25, 1.0)
"""Waits before connecting to an HTTP server again after a transient failure (Pi's)."""
CLIENT_NAME = "pi"
AUTHENTICATION_REQUIRED = "MCP server requires authentication"
"""Why a connection failed when the server answered 401 (Pi 1.6's words, shown by ``pi mcp list``)."""
_NO_LIMIT_S = 365 * 24 * 3600.0


def _error_text(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_error_text(inner) for inner in error.exceptions)
    return str(error) or type(error).__name__


def _transient(error: BaseException) -> bool:
    """Network failures and 408, 429 and 5xx answers (except 501): worth another attempt."""
    if isinstance(error, BaseExceptionGroup):
        return any(_transient(inner) for inner in error.exceptions)
    import httpx2

    if isinstance(error, httpx2.HTTPStatusError):
        status = error.response.status_code
        return status in (408, 429) or (status >= 500 and status != 501)
    return isinstance(error, httpx2.TransportError | ConnectionError)


class McpConnection:
    """A server's connection, its state and tools. Use from the manager's event loop only."""

    def __init__(
        self,
        entry: McpServerEntry,
        cwd: str,
        on_change: Callable[[McpConnection], None] | None = None,
        client_version: str = "0",
        log: McpServerLog | None = None,
        *,
        auth_store: McpAuthStore | None = None,
    ) -> None:
        self.entry = entry
        self._auth_store = auth_store
        self._auth: StoredTokenAuth | None = None
        """Set while an OAuth server's transport is open; its ``needs_sign_in`` tells a refused
        connection (sign in again) from a failed one."""
        self._refused = False
        """The HTTP server answered 401 (for a server without OAuth: its credentials are wrong)."""
        self._log = log
        self.client_version = client_version
        """Sent in ``initialize`` with the name ``pi`` (the app passes the Pi release it follows)."""
        self.cwd = cwd
        self.state: State = "connecting" if entry.enabled else "disabled"
        self.error: str | None = None
        self.tools: list[Tool] = []
        self.instructions: str | None = None
        self.has_resources = False
        self._on_change = on_change
        self._session: ClientSession | None = None
        self._stop: anyio.Event | None = None
        self._opening: anyio.Event | None = None
        self._ended: anyio.Event | None = None
        self._closed = False
        self._task_group: Any = None

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def challenge(self) -> Any:
        """The OAuth server's last ``WWW-Authenticate`` challenge (an ``oauth.Challenge``), for
        a sign-in to use its resource metadata URL and scope."""
        return self._auth.challenge if self._auth is not None else None

    @property
    def timeout_s(self) -> float:
        return float(self.entry.config.get("timeout") or DEFAULT_TIMEOUT_S)

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change(self)

    # ----------------------------------------------------------------- connecting

    async def session(self, task_group: Any) -> ClientSession:
        """The connected session, connecting first (once, however many callers wait)."""
        if self._closed:
            raise RuntimeError(f'MCP server "{self.name}" is shut down')
        if self._session is not None:
            return self._session
        if self._opening is None:
            self._opening = anyio.Event()
            self._task_group = task_group
            task_group.start_soon(self._open)
        await self._opening.wait()
        return self._connected()

    def _connected(self) -> ClientSession:
        if self._session is None:
            if self.state == "needs-auth":
                raise RuntimeError(sign_in_required(self.name))
            raise RuntimeError(f'MCP server "{self.name}" failed to connect: {self.error}')
        return self._session

    async def _open(self) -> None:
        self.state = "connecting"
        self._changed()
        retries = _CONNECT_RETRY_DELAYS_S if is_http(self.entry.config) else ()
        attempt = 0
        while True:
            failure = await self._serve()
            if failure is None or self._closed:
                break
            if self._auth is not None and self._auth.needs_sign_in:
                self.state, self.error = "needs-auth", None
                break
            delay = retries[attempt] if attempt < len(retries) else None
            if delay is None or not _transient(failure[0]):
                self.state, self.error = "failed", failure[1]
                break
            attempt += 1
            await anyio.sleep(delay)
        opening, self._opening = self._opening, None
        if self._closed:
            self.state = "closed"
        self._changed()
        if opening is not None:
            opening.set()

    async def _serve(self) -> tuple[BaseException, str] | None:
        """Connect, announce readiness and hold the connection until stopped or dropped. ``None``
        when it connected (and has since ended); else the failure and its message."""
        stop = self._stop = anyio.Event()
        ended = self._ended = anyio.Event()
        stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        connected = False
        try:
            async with self._transport(stderr) as (read, write):
                from mcp import ClientSession
                from mcp.types import Implementation

                info = Implementation(name=CLIENT_NAME, version=self.client_version)
                async with ClientSession(
                    self._watch(read, stop),
                    write,
                    client_info=info,
                    read_timeout_seconds=self.timeout_s,
                    logging_callback=self._server_log,
                    message_handler=self._notified,
                ) as session:
                    result = await session.initialize()
                    capabilities = result.capabilities
                    tools = (await session.list_tools()).tools if capabilities.tools is not None else []
                    self.tools = list(tools)
                    self.has_resources = capabilities.resources is not None
                    self.instructions = (result.instructions or "").strip() or None
                    self._session, self.state, self.error = session, "connected", None
                    connected = True
                    opening, self._opening = self._opening, None
                    self._changed()
                    if opening is not None:
                        opening.set()
                    await stop.wait()
        except Exception as error:
            if not connected:
                message = AUTHENTICATION_REQUIRED if self._refused else _error_text(error)
                return error, self._with_stderr(message, stderr)
        finally:
            self._session = None
            if connected and not self._closed and self.state != "needs-auth":
                self.state = "disconnected"
                self.error = self._with_stderr("Connection closed", stderr)
                self._changed()
            stderr.close()
            ended.set()
        return None

    async def _server_log(self, params: Any) -> None:
        if self._log is not None:
            self._log.write(self.name, str(params.level), params.logger, params.data)

    async def _notified(self, message: Any) -> None:
        """A changed tool list: list the tools again (new ones join, withdrawn ones go)."""
        from mcp.types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification) and self._session is not None:
            self._task_group.start_soon(self._refresh_tools, self._session)

    async def _refresh_tools(self, session: ClientSession) -> None:
        try:
            tools = (await session.list_tools()).tools
        except Exception as error:
            self.error = f"Failed to refresh tools: {_error_text(error)}"
            return
        if session is self._session:
            self.tools = list(tools)
            self._changed()

    @staticmethod
    def _with_stderr(message: str, stderr: Any) -> str:
        try:
            stderr.seek(0)
            tail = stderr.read().strip()[-_STDERR_TAIL_CHARS:]
        except (OSError, ValueError):
            tail = ""
        return f"{message}\n{tail}" if tail else message

    def _watch(self, read: Any, stop: anyio.Event) -> Any:
        """The read stream, relayed so that its end (the server went away) stops the connection."""
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            async with send:
                try:
                    async for message in read:
                        await send.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                    pass
            stop.set()

        self._task_group.start_soon(relay)
        return receive

    @contextlib.asynccontextmanager
    async def _transport(self, stderr: Any) -> AsyncIterator[tuple[Any, Any]]:
        config, name = self.entry.config, self.name
        if is_http(config):
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            headers = resolve_headers(name, config.get("headers") or {})
            self._auth, self._refused = self._oauth(), False

            async def noticed(response: httpx2.Response) -> None:
                self._refused = self._refused or response.status_code == 401

            client = httpx2.AsyncClient(
                headers=headers,
                timeout=httpx2.Timeout(30.0, read=300.0),
                auth=self._auth,
                event_hooks={"response": [noticed] if self._auth is None else []},
            )
            async with client, streamable_http_client(config["url"], http_client=client) as streams:
                yield streams[0], streams[1]
            return
        from mcp.client.stdio import StdioServerParameters, stdio_client

        env = resolve_env(name, config.get("env") or {})
        parameters = StdioServerParameters(
            command=_expand_home(config["command"]),
            args=[_expand_home(arg) for arg in config.get("args") or []],
            env={**os.environ, **env},
            cwd=resolve_path(config.get("cwd") or ".", self.cwd),
        )
        async with stdio_client(parameters, errlog=stderr) as streams:
            yield streams[0], streams[1]

    def _oauth(self) -> StoredTokenAuth | None:
        """Stored-token authentication for a server that signs in with OAuth (Pi's rule: an
        HTTP server without an ``Authorization`` header or ``auth`` provider)."""
        from pi_coding_agent.core.mcp.oauth import StoredTokenAuth, oauth_settings, uses_oauth

        if self._auth_store is None or not uses_oauth(self.entry):
            return None
        state = self._auth_store.server(self.name, self.entry.config["url"])
        return StoredTokenAuth(state, lambda: oauth_settings(self.entry))

    # ----------------------------------------------------------------- calls

    async def call_tool(
        self,
        task_group: Any,
        tool: str,
        arguments: dict[str, Any],
        on_progress: ProgressFnT | None = None,
    ) -> CallToolResult:
        """Call a tool (never retried: the server may have run it). A call that finds the server
        gone connects again first. The server has ``timeout`` seconds to answer, counted again
        from each progress notification it sends."""
        session = await self.session(task_group)
        timeout = self.timeout_s
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + timeout

            async def progress(progress: float, total: float | None, message: str | None) -> None:
                scope.deadline = anyio.current_time() + timeout
                if on_progress is not None:
                    await on_progress(progress, total, message)

            # The SDK's own limit stays out of the way: the scope above is the one that resets.
            try:
                return await session.call_tool(
                    tool, arguments, read_timeout_seconds=_NO_LIMIT_S, progress_callback=progress
                )
            except Exception:
                await self._check_sign_in()
                raise
        raise TimeoutError(
            f'MCP server "{self.name}" did not answer {tool} within {_seconds(timeout)} seconds'
        )

    async def request(self, task_group: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A read-only request (``resources/list``, ``resources/templates/list``,
        ``resources/read``) as its wire JSON; retried once after a transient HTTP error."""
        for attempt in (1, 2):
            session = await self.session(task_group)
            try:
                result = await session.send_request(_resource_request(method, params), _raw_adapter())
            except Exception as error:
                await self._check_sign_in()
                if attempt == 1 and _transient(error):
                    await anyio.sleep(_CONNECT_RETRY_DELAYS_S[0])
                    continue
                raise
            return dict(result)
        raise AssertionError("unreachable")

    async def _check_sign_in(self) -> None:
        """After a failed request: when the server refused the tokens and no refresh helped,
        the server needs a sign-in (the connection is dropped, the call fails saying so)."""
        if self._auth is None or not self._auth.needs_sign_in or self._closed:
            return
        if self._stop is not None:
            self._stop.set()
        self.state, self.error = "needs-auth", None
        self._changed()
        raise RuntimeError(sign_in_required(self.name))

    async def reconnect(self, task_group: Any) -> ClientSession:
        """Drop the current connection, if any, once it has ended connect again (``/mcp``'s
        Reconnect); raises as ``session`` does when the new connection fails."""
        if self._opening is not None:
            await self._opening.wait()
        ended = self._ended
        if self._session is not None and self._stop is not None and ended is not None:
            self._stop.set()
            await ended.wait()
        return await self.session(task_group)

    async def disconnect(self) -> None:
        """Drop the current connection (the next call connects again)."""
        if self._stop is not None:
            self._stop.set()

    async def close(self) -> None:
        """Stop the server for good."""
        self._closed = True
        if self._stop is not None:
            self._stop.set()
        if self.state != "disabled":
            self.state = "closed"


def sign_in_required(server: str) -> str:
    """What a call to a server that needs a sign-in fails with."""
    return f'MCP server "{server}" requires sign-in. Run pi mcp login {server} to sign in.'


def _seconds(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)


def _resource_request(method: str, params: dict[str, Any]) -> Any:
    from mcp import types

    if method == "resources/read":
        return types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=params["uri"]))
    cursor = params.get("cursor")
    paging = types.PaginatedRequestParams(cursor=cursor) if cursor else None
    if method == "resources/list":
        return types.ListResourcesRequest(params=paging)
    return types.ListResourceTemplatesRequest(params=paging)


def _raw_adapter() -> Any:
    """The answer as the server wrote it (its keys in its order, as Pi 1.6 passes listings on);
    the SDK still checks it against the method's schema first."""
    from pydantic import TypeAdapter

    return TypeAdapter(dict[str, Any])


def _expand_home(value: str) -> str:
    if value == "~" or value.startswith("~/"):
        return str(Path.home()) + value[1:]
    return value
