"""An MCP server that requires OAuth, with its own authorization server, both from the official
SDK's server side (``MCPServer`` with ``AuthSettings`` and an in-memory
``OAuthAuthorizationServerProvider``), on one 127.0.0.1 port.

``python -m tests.support.mcp_oauth_server PORT [TOKEN_TTL_SECONDS]`` serves the MCP endpoint at
``/mcp``, protected-resource metadata, authorization-server metadata, dynamic client
registration, ``/authorize`` and ``/token``. ``/authorize`` approves at once: it answers with a
redirect to the client's ``redirect_uri`` carrying the code, so a test plays the browser by
fetching the authorization URL and following that redirect to the loopback callback.

``POST /test/revoke-access`` forgets every access token (refresh tokens stay, unless
``?refresh=1``), so the next request gets a 401 that a refresh answers (or cannot); ``GET /test/stats`` tells how many clients registered
and how many codes and refreshes were exchanged.
"""

from __future__ import annotations

import secrets
import sys
import time
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

SCOPE = "tools"


class MemoryAuthorizationServer:
    """Clients, codes and tokens in memory; every authorization request is approved."""

    def __init__(self, token_ttl: int) -> None:
        self.token_ttl = token_ttl
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.stats = {"registered": 0, "codes": 0, "refreshed": 0}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.stats["registered"] += 1

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.stats["codes"] += 1
        return self._issue(client, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)  # rotated, as many servers do
        self.stats["refreshed"] += 1
        return self._issue(client, scopes or refresh_token.scopes, None)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(
        self, client: OAuthClientInformationFull, scopes: list[str], resource: str | None
    ) -> OAuthToken:
        assert client.client_id is not None
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client.client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.token_ttl,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client.client_id, scopes=scopes)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.token_ttl,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )


def build(port: int, token_ttl: int) -> MCPServer:
    provider = MemoryAuthorizationServer(token_ttl)
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "guarded",
        instructions="An OAuth-protected server for the tests.",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            required_scopes=[SCOPE],
            validate_token_resource=False,
        ),
    )

    @server.tool(description="Say who is signed in.")
    def whoami() -> str:
        return "signed in"

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.custom_route("/test/revoke-access", methods=["POST"])
    async def revoke_access(request: Request) -> Response:
        provider.access.clear()
        if request.query_params.get("refresh") == "1":
            provider.refresh.clear()
        return JSONResponse({"ok": True})

    @server.custom_route("/test/stats", methods=["GET"])
    async def stats(request: Request) -> Response:
        return JSONResponse(provider.stats)

    return server


def main(argv: list[str]) -> None:
    port = int(argv[0])
    ttl = int(argv[1]) if len(argv) > 1 else 3600
    build(port, ttl).run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main(sys.argv[1:])
