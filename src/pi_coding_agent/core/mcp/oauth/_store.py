"""``mcp-auth.json``: each OAuth server's sign-in state, in the file and shape Pi 1.6 uses, so a
sign-in by either program serves both.

::

    {"mcp__docs|https://example.com/mcp": {
        "serverUrl": "https://example.com/mcp",
        "discovery": {"authorizationServerUrl": ..., "authorizationServerMetadata": {...},
                      "resourceMetadata": {...}, "resourceMetadataUrl": ...},
        "clientInformation": {...the registration answer...},
        "oauthState": "...", "codeVerifier": "...",
        "tokens": {"access_token": ..., "token_type": ..., "expires_in": ..., "refresh_token": ...},
        "tokensExpireAt": 1796601531715}}

The key is the server's namespace and its URL, so two names for one URL sign in separately and
one name in two files shares a sign-in. A state stored under the URL alone (older Pi releases)
is taken over by the first server that loads it. State whose ``serverUrl`` is another URL is
ignored. The file is ``0600`` and changed under the same lock directory as ``auth.json``
(``mcp-auth.json.lock``), which Pi's processes honour too.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pi_ai.js_json import stringify as js_stringify
from pi_coding_agent.core.auth import locked
from pi_coding_agent.core.mcp.config import mcp_namespace
from pi_coding_agent.core.paths import make_private_dirs
from pi_coding_agent.core.settings import ConfigFileError, read_json_object

AUTH_FILE_NAME = "mcp-auth.json"
FILE_MODE = 0o600
State = dict[str, Any]


class McpAuthFileError(Exception):
    """``mcp-auth.json`` cannot be read or written; the message names the file."""


def url_href(url: str) -> str:
    """The URL as JavaScript's ``String(new URL(url))`` writes it: scheme and host in lower
    case, no default port, ``/`` for an empty path."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port is None or port == default else f"{host}:{port}"
    if parts.username is not None:
        credentials = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{credentials}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))


def state_keys(name: str, server_url: str) -> tuple[str, str]:
    """``(key, legacy key)`` of a server's state."""
    legacy = url_href(server_url)
    return f"{mcp_namespace(name)}|{legacy}", legacy


class McpAuthStore:
    """The sign-in states in ``<agent dir>/mcp-auth.json``."""

    def __init__(self, agent_dir: str | os.PathLike[str]) -> None:
        self.path = Path(agent_dir) / AUTH_FILE_NAME

    def server(self, name: str, server_url: str) -> ServerAuthState:
        return ServerAuthState(self, name, server_url)

    def read_all(self) -> dict[str, Any]:
        try:
            data = read_json_object(self.path)
        except ConfigFileError as error:
            raise McpAuthFileError(f"Cannot use {self.path}: {error.reason}") from None
        return dict(data or {})

    def tokens(self, name: str, server_url: str) -> dict[str, Any] | None:
        """The stored tokens (legacy state included, not taken over)."""
        key, legacy = state_keys(name, server_url)
        states = self.read_all()
        state = states.get(key) or states.get(legacy)
        tokens = state.get("tokens") if isinstance(state, dict) else None
        return tokens if isinstance(tokens, dict) else None

    async def remove(self, name: str, server_url: str) -> bool:
        """Forget a server's state; whether there was one."""
        key, legacy = state_keys(name, server_url)
        if not self.path.exists():
            return False
        async with self._locked():
            states = self.read_all()
            stored = key if key in states else legacy if legacy in states else None
            if stored is None:
                return False
            del states[stored]
            self._write(states)
            return True

    async def update(self, change: Callable[[dict[str, Any]], Any]) -> Any:
        """Under the lock: read the file, let ``change`` edit the states, write them back."""
        async with self._locked():
            states = self.read_all()
            result = change(states)
            self._write(states)
            return result

    @contextlib.asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        make_private_dirs(str(self.path.parent))
        if not self.path.exists():
            with contextlib.suppress(FileExistsError):
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
                os.close(fd)
        async with locked(self.path):
            yield

    def _write(self, states: dict[str, Any]) -> None:
        text = js_stringify(states, indent=2) + "\n"
        target = self.path.resolve() if self.path.is_symlink() else self.path
        try:
            fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            try:
                os.fchmod(fd, FILE_MODE)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                os.replace(temporary, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as error:
            raise McpAuthFileError(f"Cannot write {self.path}: {error.strerror or error}") from None


class ServerAuthState:
    """One server's state: read it, or change it under the file's lock."""

    def __init__(self, store: McpAuthStore, name: str, server_url: str) -> None:
        self.store = store
        self.name = name
        self.server_url = url_href(server_url)
        self.key, self.legacy_key = state_keys(name, server_url)

    def load(self) -> State:
        """The state (``{"serverUrl": ...}`` when none is stored). Legacy state is only read here;
        the next change moves it under the server's own key."""
        states = self.store.read_all()
        found = states.get(self.key)
        if found is None and self.legacy_key in states:
            found = states[self.legacy_key]
        return self._own(found)

    async def change(self, edit: Callable[[State], State]) -> State:
        """Replace the state by ``edit(state)``; the new state."""

        def apply(states: dict[str, Any]) -> State:
            current = states.get(self.key)
            if current is None and self.legacy_key in states:
                current = states.pop(self.legacy_key)
            updated = edit(self._own(current))
            states[self.key] = updated
            return updated

        result: State = await self.store.update(apply)
        return result

    def _own(self, state: Any) -> State:
        if isinstance(state, dict) and state.get("serverUrl") == self.server_url:
            return dict(state)
        return {"serverUrl": self.server_url}
