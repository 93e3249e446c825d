"""OAuth for HTTP MCP servers against a real one: the SDK-built server with its own
authorization server on 127.0.0.1 (``tests.support.mcp_oauth_server``). The test plays the
browser: it fetches the authorization URL and follows the redirect to our loopback callback.

Covers discovery, dynamic client registration, PKCE, the stored state in ``mcp-auth.json``
(Pi 1.6's key and shape, mode 0600), connections sending the stored token, a 401 answered by a
refresh, an expiring token refreshed before it is sent, a server that needs a sign-in (state
and the message a call fails with), and the store's rules (legacy key, other URL ignored)."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from pi_coding_agent.core.mcp.config import McpConfig, McpServerEntry
from pi_coding_agent.core.mcp.manager import McpManager
from pi_coding_agent.core.mcp.oauth import McpAuthStore, OAuthSettings, sign_in
from tests.support.mcp_launch import serve_oauth

REPO = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve_oauth() as url:
        yield url


def _stats(url: str) -> dict[str, int]:
    base = url.rsplit("/mcp", 1)[0]
    answer: dict[str, int] = httpx2.get(f"{base}/test/stats").json()
    return answer


def _revoke(url: str, refresh: bool = False) -> None:
    httpx2.post(url.rsplit("/mcp", 1)[0] + "/test/revoke-access" + ("?refresh=1" if refresh else ""))


def _manager(url: str, agent_dir: Path, name: str = "guarded") -> McpManager:
    entry = McpServerEntry(name, {"url": url, "exposure": "direct"}, "test", "global")
    return McpManager(McpConfig(servers=[entry]), str(REPO), agent_dir=str(agent_dir))


def _state(manager: McpManager) -> tuple[str, list[str], str | None]:
    manager.start()
    try:
        manager.wait_until_settled(60)
        report = manager.reports()[0]
        return report.state, report.tools, report.error
    finally:
        manager.close()


async def _browser(url: str) -> None:
    """What a browser does: open the authorization page, follow its redirect to the callback."""
    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as client:
        answer = await client.get(url)
        assert answer.status_code == 200, answer.text
        assert "Signed in" in answer.text


def _sign_in(store: McpAuthStore, url: str, name: str = "guarded") -> list[str]:
    shown: list[str] = []

    async def run() -> None:
        tasks: list[asyncio.Task[None]] = []

        def show(authorization_url: str) -> None:
            shown.append(authorization_url)
            tasks.append(asyncio.ensure_future(_browser(authorization_url)))

        await sign_in(store.server(name, url), OAuthSettings(), None, show, 60)
        await asyncio.gather(*tasks)

    asyncio.run(run())
    return shown


def test_sign_in_stores_pi_state_and_connections_use_and_refresh_it(server: str, tmp_path: Path) -> None:
    assert _state(_manager(server, tmp_path)) == ("needs-auth", [], None)
    before = _stats(server)
    store = McpAuthStore(tmp_path)
    shown = _sign_in(store, server)
    assert len(shown) == 1
    authorization = httpx2.URL(shown[0])
    params = dict(authorization.params)
    assert list(params) == [
        "response_type", "client_id", "code_challenge", "code_challenge_method", "redirect_uri", "state",
        "scope", "resource",
    ]  # fmt: skip
    assert params["code_challenge_method"] == "S256" and params["scope"] == "tools"
    assert params["resource"] == server
    assert params["redirect_uri"].startswith("http://127.0.0.1:") and params["redirect_uri"].endswith(
        "/callback"
    )

    path = tmp_path / "mcp-auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert list(stored) == [f"mcp__guarded|{server}"]
    state = stored[f"mcp__guarded|{server}"]
    assert list(state) == [
        "serverUrl", "discovery", "clientInformation", "oauthState", "codeVerifier", "tokens", "tokensExpireAt",
    ]  # fmt: skip
    assert list(state["discovery"]) == [
        "authorizationServerUrl", "authorizationServerMetadata", "resourceMetadata",
    ]  # fmt: skip
    assert state["clientInformation"]["client_name"] == "pi"
    assert state["clientInformation"]["application_type"] == "native"
    assert state["clientInformation"]["token_endpoint_auth_method"] == "none"
    assert state["clientInformation"]["redirect_uris"] == [params["redirect_uri"]]
    assert state["tokens"]["refresh_token"] and state["tokens"]["scope"] == "tools"
    after = _stats(server)
    assert after["registered"] == before["registered"] + 1 and after["codes"] == before["codes"] + 1

    assert _state(_manager(server, tmp_path)) == ("connected", ["whoami", "echo"], None)

    _revoke(server)  # the next request gets a 401, which the stored refresh token answers
    assert _state(_manager(server, tmp_path)) == ("connected", ["whoami", "echo"], None)
    assert _stats(server)["refreshed"] == after["refreshed"] + 1
    refreshed = json.loads(path.read_text(encoding="utf-8"))[f"mcp__guarded|{server}"]
    assert refreshed["tokens"]["access_token"] != state["tokens"]["access_token"]
    assert refreshed["tokens"]["refresh_token"] != state["tokens"]["refresh_token"]  # rotated and saved
    assert refreshed["clientInformation"] == state["clientInformation"]

    # Signing in again with a working refresh token needs no browser step and no new client.
    _revoke(server)
    shown_again = _sign_in(McpAuthStore(tmp_path), server)
    assert shown_again == []  # the refresh token was enough: no browser step
    assert _stats(server)["registered"] == after["registered"]


def test_expiring_token_is_refreshed_before_it_is_sent(server: str, tmp_path: Path) -> None:
    store = McpAuthStore(tmp_path)
    _sign_in(store, server)
    path = tmp_path / "mcp-auth.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    key = f"mcp__guarded|{server}"
    data[key]["tokensExpireAt"] = 1  # long expired; the server still takes the token
    path.write_text(json.dumps(data), encoding="utf-8")
    before = _stats(server)["refreshed"]
    assert _state(_manager(server, tmp_path))[0] == "connected"
    assert _stats(server)["refreshed"] == before + 1
    assert json.loads(path.read_text(encoding="utf-8"))[key]["tokensExpireAt"] > 1


def test_a_server_that_needs_sign_in_fails_calls_with_the_sign_in_message(
    server: str, tmp_path: Path
) -> None:
    manager = _manager(server, tmp_path, "docs-server")
    manager.start()
    try:
        manager.wait_until_settled(60)
        assert [r.state for r in manager.reports()] == ["needs-auth"]
        assert manager.problems() == ["docs-server: needs sign-in"]

        async def call() -> str:
            try:
                await manager.call_tool("docs-server", "whoami", {})
            except Exception as error:
                return str(error)
            return "no error"

        message = asyncio.run(call())
    finally:
        manager.close()
    assert message == 'MCP server "docs-server" requires sign-in. Run pi mcp login docs-server to sign in.'


def test_store_keys_legacy_state_and_foreign_urls(tmp_path: Path) -> None:
    url = "HTTP://Example.COM:80/mcp"
    store = McpAuthStore(tmp_path)
    state = store.server("my-docs", url)
    assert state.key == "mcp__my_docs|http://example.com/mcp"
    legacy = {"serverUrl": "http://example.com/mcp", "tokens": {"access_token": "old"}}
    (tmp_path / "mcp-auth.json").write_text(
        json.dumps(
            {"http://example.com/mcp": legacy, "mcp__other|http://example.com/mcp": {"serverUrl": "x"}}
        ),
        encoding="utf-8",
    )
    assert state.load()["tokens"] == {"access_token": "old"}
    assert store.server("other", url).load() == {"serverUrl": "http://example.com/mcp"}  # another URL's state

    async def change() -> None:
        await state.change(lambda current: {**current, "oauthState": "s"})

    asyncio.run(change())
    data = json.loads((tmp_path / "mcp-auth.json").read_text(encoding="utf-8"))
    assert list(data) == ["mcp__other|http://example.com/mcp", "mcp__my_docs|http://example.com/mcp"]
    assert data["mcp__my_docs|http://example.com/mcp"]["oauthState"] == "s"
    assert asyncio.run(store.remove("my-docs", url)) is True
    assert asyncio.run(store.remove("my-docs", url)) is False
    assert stat.S_IMODE((tmp_path / "mcp-auth.json").stat().st_mode) == 0o600


def test_a_running_manager_picks_up_a_sign_in_done_elsewhere(server: str, tmp_path: Path) -> None:
    manager = _manager(server, tmp_path)
    manager.start()
    try:
        manager.wait_until_settled(60)
        assert [r.state for r in manager.reports()] == ["needs-auth"]
        asyncio.run(manager.reconnect_signed_in())  # nothing stored yet: stays as it is
        assert [r.state for r in manager.reports()] == ["needs-auth"]
        _sign_in(McpAuthStore(tmp_path), server)  # as `pi mcp login` in another process would
        asyncio.run(manager.reconnect_signed_in())
        assert [(r.state, r.tools) for r in manager.reports()] == [("connected", ["whoami", "echo"])]
        assert [tool.name for tool in manager.direct_tools()][:2] == [
            "mcp__guarded__whoami",
            "mcp__guarded__echo",
        ]
    finally:
        manager.close()


def test_client_id_metadata_document_choice_follows_pi(tmp_path: Path) -> None:
    """Which identity a sign-in uses (Pi 1.6's rules): Pi's document when the authorization
    server supports documents for public clients, a server-specific one (and callback path)
    without RFC 9207 ``iss``, registration otherwise or when a client name is configured."""
    from pi_coding_agent.core.mcp.oauth._client import OAuthClient

    state = McpAuthStore(tmp_path).server("docs", "https://mcp.example.com/mcp")
    redirect = "http://127.0.0.1:5555/callback"
    supports = {
        "client_id_metadata_document_supported": True,
        "token_endpoint_auth_methods_supported": ["none"],
    }
    with_iss = {**supports, "authorization_response_iss_parameter_supported": True}

    def document(settings: OAuthSettings, metadata: dict[str, Any] | None) -> tuple[str, str] | None:
        return OAuthClient(state, settings, redirect)._document(metadata)

    assert document(OAuthSettings(), with_iss) == ("https://pi.dev/oauth/client.json", redirect)
    assert document(OAuthSettings(), supports) == (
        "https://pi.dev/oauth/epMNJ6P1xGQ9/client.json",  # sha256 of the URL, as Pi computes it
        "http://127.0.0.1:5555/callback/epMNJ6P1xGQ9",
    )
    assert document(OAuthSettings(), {"token_endpoint_auth_methods_supported": ["none"]}) is None
    assert document(OAuthSettings(client_name="Claude Code"), with_iss) is None
    assert document(OAuthSettings(client_registration="dcr"), with_iss) is None
    with pytest.raises(ValueError, match="does not support Client ID Metadata Documents"):
        document(OAuthSettings(client_registration="cimd"), None)


def test_tokens_revoked_while_connected_make_calls_ask_for_a_sign_in(server: str, tmp_path: Path) -> None:
    _sign_in(McpAuthStore(tmp_path), server)
    manager = _manager(server, tmp_path)
    manager.start()
    try:
        manager.wait_until_settled(60)
        assert [r.state for r in manager.reports()] == ["connected"]
        _revoke(server, refresh=True)  # neither the access token nor the refresh token works now

        async def call() -> str:
            try:
                await manager.call_tool("guarded", "whoami", {})
            except Exception as error:
                return str(error)
            return "no error"

        assert (
            asyncio.run(call())
            == 'MCP server "guarded" requires sign-in. Run pi mcp login guarded to sign in.'
        )
        assert [r.state for r in manager.reports()] == ["needs-auth"]
    finally:
        manager.close()
