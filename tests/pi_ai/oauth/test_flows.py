"""Every sign-in flow end to end against a fake authorization server on 127.0.0.1: the
authorization step (browser callback, pasted redirect URL, or device code), the token
exchange, a refresh, and a revoked refresh token; plus what a request made with the
credential carries."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from collections.abc import Iterator

import pytest

from pi_ai.oauth import AuthPrompt, LoginCallbacks, OAuthError, get_oauth_flow
from tests.support.fake_auth_server import FakeAuthServer, ScriptedUser, s256


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    servers: list[FakeAuthServer] = []

    def start(provider: str, **options: object) -> FakeAuthServer:
        server = FakeAuthServer(provider, **options).__enter__()  # type: ignore[arg-type]
        servers.append(server)
        monkeypatch.setenv(server.override_variable, server.url)
        monkeypatch.setenv("PI_OAUTH_CALLBACK_PORT", "0")
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def _now_ms() -> int:
    return int(time.time() * 1000)


async def _revoked_refresh_fails(provider: str, credential: dict[str, object], message: str) -> None:
    flow = get_oauth_flow(provider)
    assert flow is not None
    with pytest.raises(OAuthError, match=message):
        await flow.refresh(credential)


# ----------------------------------------------------------------------------- Anthropic


async def test_anthropic_browser_sign_in_refresh_and_revoked_token(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("anthropic")
    user = ScriptedUser(server)
    flow = get_oauth_flow("anthropic")
    assert flow is not None and flow.is_subscription
    credential = await flow.login(user.callbacks())
    assert (await user.browser_done())[0][0] == 200  # the callback page said it worked

    authorize = next(r for r in server.requests if r.path == "/oauth/authorize").query
    assert authorize["code"] == "true" and authorize["response_type"] == "code"
    assert authorize["scope"].split() == [
        "org:create_api_key",
        "user:profile",
        "user:inference",
        "user:sessions:claude_code",
        "user:mcp_servers",
        "user:file_upload",
    ]
    redirect = authorize["redirect_uri"]
    assert redirect.startswith("http://localhost:") and redirect.endswith("/callback")
    exchange = server.token_requests("authorization_code")[0].body
    # The PKCE verifier doubles as the state.
    assert exchange["state"] == exchange["code_verifier"] == authorize["state"]
    assert s256(exchange["code_verifier"]) == authorize["code_challenge"]
    assert exchange["redirect_uri"] == redirect

    assert credential["type"] == "oauth" and str(credential["access"]).startswith("sk-ant-oat01-")
    # Stored five minutes before the real expiry (8 h here).
    assert abs(credential["expires"] - (_now_ms() + 8 * 3600_000 - 300_000)) < 60_000
    assert flow.to_auth(credential).api_key == credential["access"]
    assert [e.type for e in user.events] == ["auth_url", "progress"]
    assert user.prompts[0].type == "manual_code" and user.prompts[0].placeholder == redirect

    refreshed = await flow.refresh(credential)
    assert refreshed["access"] != credential["access"] and refreshed["refresh"] != credential["refresh"]
    assert server.token_requests("refresh_token")[0].body == {
        "grant_type": "refresh_token",
        "client_id": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
        "refresh_token": credential["refresh"],
    }
    # The old refresh token was rotated out: using it again is what a revoked token looks like.
    await _revoked_refresh_fails(
        "anthropic", credential, "Anthropic token refresh request failed.*invalid_grant"
    )


async def test_anthropic_pasted_redirect_url_and_state_check(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("anthropic")
    flow = get_oauth_flow("anthropic")
    assert flow is not None
    credential = await flow.login(ScriptedUser(server, paste=True).callbacks())
    assert str(credential["access"]).startswith("sk-ant-oat01-")

    # "code#state" as Anthropic's page shows it works too; a state from another sign-in does not.
    def code_hash_state(redirect: str) -> str:
        query = dict(p.split("=", 1) for p in redirect.split("?", 1)[1].split("&"))
        return f"{query['code']}#{query['state']}"

    credential = await flow.login(ScriptedUser(server, paste=True, paste_text=code_hash_state).callbacks())
    assert credential["access"]
    with pytest.raises(OAuthError, match="OAuth state mismatch"):
        await flow.login(
            ScriptedUser(server, paste=True, paste_text=lambda r: r.replace("state=", "state=x")).callbacks()
        )


async def test_callback_server_refuses_wrong_requests_and_listens_on_loopback_only(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("anthropic")
    seen: list[str] = []
    url_shown = asyncio.Event()
    prompt_cancelled = asyncio.Event()

    async def prompt(_prompt: AuthPrompt) -> str:
        try:
            await asyncio.Event().wait()
        finally:
            prompt_cancelled.set()
        return ""

    def notify(event: object) -> None:
        if getattr(event, "type", "") == "auth_url":
            seen.append(event.url)  # type: ignore[attr-defined]
            url_shown.set()

    flow = get_oauth_flow("anthropic")
    assert flow is not None
    login = asyncio.ensure_future(flow.login(LoginCallbacks(prompt, notify)))
    await url_shown.wait()
    redirect = await asyncio.to_thread(server.authorize, seen[0])
    port = int(redirect.split("localhost:", 1)[1].split("/", 1)[0])

    def get(url: str) -> int:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)

    base = f"http://127.0.0.1:{port}"
    assert await asyncio.to_thread(get, f"{base}/elsewhere") == 404
    assert await asyncio.to_thread(get, f"{base}/callback?code=abc&state=wrong") == 400
    assert await asyncio.to_thread(get, f"{base}/callback?error=access_denied") == 400
    assert not login.done()
    # Only the loopback address: the same port on another local address is closed.
    import socket

    other = socket.gethostbyname(socket.gethostname())
    if not other.startswith("127."):
        with pytest.raises(OSError):
            socket.create_connection((other, port), timeout=2).close()
    assert await asyncio.to_thread(get, redirect.replace("localhost", "127.0.0.1")) == 200
    credential = await login
    assert credential["access"]
    assert prompt_cancelled.is_set()  # the callback won: the paste prompt was withdrawn


async def test_cancelling_the_prompt_stops_the_sign_in_and_frees_the_port(serve) -> None:  # type: ignore[no-untyped-def]
    serve("anthropic")

    async def prompt(_prompt: AuthPrompt) -> str:
        raise OAuthError("Login cancelled")

    flow = get_oauth_flow("anthropic")
    assert flow is not None
    with pytest.raises(OAuthError, match="Login cancelled"):
        await flow.login(LoginCallbacks(prompt, lambda _event: None))


# ----------------------------------------------------------------------------- OpenAI Codex


async def test_openai_codex_browser_and_device_code(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("openai-codex")
    flow = get_oauth_flow("openai-codex")
    assert flow is not None
    user = ScriptedUser(server, choice="browser")
    credential = await flow.login(user.callbacks())
    await user.browser_done()
    assert user.prompts[0].type == "select" and [o.id for o in user.prompts[0].options] == [
        "browser",
        "device_code",
    ]
    authorize = next(r for r in server.requests if r.path == "/oauth/authorize").query
    assert authorize["originator"] == "pi" and authorize["codex_cli_simplified_flow"] == "true"
    assert authorize["redirect_uri"].endswith("/auth/callback") and len(authorize["state"]) == 32
    assert (
        server.token_requests("authorization_code")[0].headers["content-type"]
        == "application/x-www-form-urlencoded"
    )
    assert credential["accountId"] == "acct-test"  # read from the access token's claims
    # No margin on this provider's expiry.
    assert abs(credential["expires"] - (_now_ms() + 8 * 3600_000)) < 60_000

    device_user = ScriptedUser(server, choice="device_code")
    credential = await flow.login(device_user.callbacks())
    event = next(e for e in device_user.events if e.type == "device_code")
    assert event.verification_uri == f"{server.url}/codex/device" and event.expires_in_seconds == 900
    assert credential["accountId"] == "acct-test"
    # The device grant's code is exchanged with the device redirect URI.
    assert (
        server.token_requests("authorization_code")[-1].body["redirect_uri"]
        == f"{server.url}/deviceauth/callback"
    )

    refreshed = await flow.refresh(credential)
    assert refreshed["accountId"] == "acct-test" and refreshed["refresh"] != credential["refresh"]
    await _revoked_refresh_fails("openai-codex", credential, r"OpenAI Codex token refresh failed \(401\)")
    with pytest.raises(OAuthError, match="Unknown OpenAI Codex login method: carrier-pigeon"):
        await flow.login(ScriptedUser(server, choice="carrier-pigeon").callbacks())


async def test_openai_codex_taken_callback_port_falls_back_to_pasting(serve, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    server = serve("openai-codex")
    import socket

    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    monkeypatch.setenv("PI_OAUTH_CALLBACK_PORT", str(blocker.getsockname()[1]))
    try:
        flow = get_oauth_flow("openai-codex")
        assert flow is not None
        credential = await flow.login(ScriptedUser(server, choice="browser", paste=True).callbacks())
    finally:
        blocker.close()
    assert credential["accountId"] == "acct-test"


# ----------------------------------------------------------------------------- GitHub Copilot


async def test_github_copilot_device_flow_models_refresh_and_revoked_token(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("github-copilot", pending_polls=1, slow_downs=1)
    flow = get_oauth_flow("github-copilot")
    assert flow is not None
    user = ScriptedUser(server, text="")
    credential = await flow.login(user.callbacks())
    assert user.prompts[0].type == "text" and "Enterprise" in user.prompts[0].message
    polls = [r for r in server.requests if r.path == "/login/oauth/access_token"]
    assert len(polls) == 3  # slow_down, pending, then the token
    assert polls[0].body["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code"
    assert all(r.headers["user-agent"] == "GitHubCopilotChat/0.35.0" for r in polls)
    token_request = next(r for r in server.requests if r.path == "/copilot_internal/v2/token")
    assert token_request.headers["editor-version"] == "vscode/1.107.0"
    assert token_request.headers["copilot-integration-id"] == "vscode-chat"

    # The GitHub token is kept as "refresh"; the Copilot token is the access token.
    assert str(credential["refresh"]).startswith("gho_") and "proxy-ep=" in str(credential["access"])
    # Picker-enabled models with tool calls are available; an "unconfigured" catalog model was
    # switched on (one the catalog does not know is left alone).
    available = ["gpt-5.6-sol", "claude-sonnet-4.6", "not-in-the-catalog"]
    assert credential["availableModelIds"] == available
    assert server.enabled_policies == ["claude-sonnet-4.6"]
    assert [e.message for e in user.events if e.type == "progress"] == ["Enabling models..."]
    assert flow.available_model_ids(credential) == set(available)
    auth = flow.to_auth(credential)
    # proxy-ep=proxy.individual... names api.individual...; the override sends it here.
    assert auth.api_key == credential["access"] and auth.base_url == server.url

    refreshed = await flow.refresh(credential)
    assert refreshed["refresh"] == credential["refresh"] and refreshed["access"] != credential["access"]
    assert refreshed["availableModelIds"] == available
    server.revoke_all()
    await _revoked_refresh_fails("github-copilot", credential, "401 Unauthorized: .*Bad credentials")


async def test_github_copilot_denied_and_enterprise_domain(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("github-copilot")
    flow = get_oauth_flow("github-copilot")
    assert flow is not None
    with pytest.raises(OAuthError, match="Invalid GitHub Enterprise URL/domain"):
        await flow.login(ScriptedUser(server, text="https://").callbacks())

    class Denying(ScriptedUser):
        def _notify(self, event: object) -> None:
            self.events.append(event)
            self.server.deny()

    with pytest.raises(OAuthError, match="Device flow failed: access_denied: The user denied the request"):
        await flow.login(Denying(server).callbacks())

    credential = await flow.login(ScriptedUser(server, text="https://company.ghe.com/login").callbacks())
    assert credential["enterpriseUrl"] == "company.ghe.com"


# ----------------------------------------------------------------------------- OpenRouter


async def test_openrouter_sign_in_gets_a_permanent_key(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("openrouter")
    flow = get_oauth_flow("openrouter")
    assert flow is not None and flow.login_label == "Sign in with OpenRouter"
    user = ScriptedUser(server)
    credential = await flow.login(user.callbacks())
    results = await user.browser_done()
    assert results[0][0] == 200 and "OpenRouter" in results[0][1]
    authorize = next(r for r in server.requests if r.path == "/auth").query
    assert authorize["callback_url"].startswith("http://127.0.0.1:")
    assert "/oauth/callback/" in authorize["callback_url"]
    keys = next(r for r in server.requests if r.path == "/api/v1/auth/keys").body
    assert (
        keys["code_challenge_method"] == "S256" and s256(keys["code_verifier"]) == authorize["code_challenge"]
    )
    assert credential == {
        "type": "oauth",
        "access": credential["access"],
        "refresh": "",
        "expires": 2**53 - 1,
    }
    assert await flow.refresh(credential) == credential

    pasted = await flow.login(ScriptedUser(server, paste=True).callbacks())
    assert str(pasted["access"]).startswith("sk-or-v1-")
    # A used code is refused by the server; the flow reports it.
    with pytest.raises(
        OAuthError, match=r"OpenRouter OAuth key exchange failed \(HTTP 403\): unknown or used code"
    ):
        await flow.login(ScriptedUser(server, paste=True, paste_text=lambda _r: "code-1").callbacks())


# ----------------------------------------------------------------------------- Kimi, xAI, Radius


async def test_kimi_device_code_refresh_headers_and_revoked_token(serve, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    server = serve("kimi-coding")
    # Pi's own override for the host works as well as ours.
    monkeypatch.delenv(server.override_variable)
    monkeypatch.setenv("KIMI_CODE_OAUTH_HOST", server.url + "/")
    flow = get_oauth_flow("kimi-coding")
    assert flow is not None
    user = ScriptedUser(server)
    credential = await flow.login(user.callbacks())
    event = next(e for e in user.events if e.type == "device_code")
    assert event.verification_uri.endswith(f"?user_code={event.user_code}")
    assert flow.to_auth(credential).api_key is None
    assert dict(flow.to_auth(credential).headers) == {"Authorization": f"Bearer {credential['access']}"}
    refreshed = await flow.refresh(credential)
    assert refreshed["access"] != credential["access"]
    await _revoked_refresh_fails(
        "kimi-coding",
        credential,
        r"Kimi Code token refresh unauthorized \(status 401\): refresh token revoked",
    )


async def test_xai_device_code_refresh_denied_and_revoked(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("xai", pending_polls=1)
    flow = get_oauth_flow("xai")
    assert flow is not None
    credential = await flow.login(ScriptedUser(server).callbacks())
    code_request = next(r for r in server.requests if r.path == "/oauth2/device/code").body
    assert code_request["referrer"] == "pi" and "grok-cli:access" in code_request["scope"]
    assert abs(credential["expires"] - (_now_ms() + 8 * 3600_000 - 300_000)) < 60_000
    refreshed = await flow.refresh(credential)
    assert refreshed["refresh"] != credential["refresh"]
    await _revoked_refresh_fails(
        "xai",
        credential,
        r"xAI OAuth token refresh failed \(HTTP 400\): invalid_grant: refresh token revoked",
    )

    class Denying(ScriptedUser):
        def _notify(self, event: object) -> None:
            self.server.deny()

    with pytest.raises(OAuthError, match="xAI device authorization was denied"):
        await flow.login(Denying(server).callbacks())


async def test_radius_browser_and_device_code(serve) -> None:  # type: ignore[no-untyped-def]
    server = serve("radius")
    flow = get_oauth_flow("radius")
    assert flow is not None
    user = ScriptedUser(server, choice="browser")
    credential = await flow.login(user.callbacks())
    await user.browser_done()
    authorize = next(r for r in server.requests if r.path == "/authorize").query
    assert authorize["client_id"] == "pi-gateway" and authorize["handoff"] == "url"
    assert authorize["redirect_uri"].startswith("http://127.0.0.1:")
    assert credential["scope"] == "gateway offline_access"
    assert abs(credential["expires"] - (_now_ms() + 8 * 3600_000 - 60_000)) < 60_000

    device = await flow.login(ScriptedUser(server, choice="device-code").callbacks())
    refreshed = await flow.refresh(device)
    assert refreshed["access"] != device["access"]
    await _revoked_refresh_fails("radius", device, "Radius OAuth token request failed: invalid_grant")

    # A models.json gateway: the flow talks to that gateway under the provider's own id.
    custom = get_oauth_flow("my-gateway", radius_gateway=server.url, name="My Gateway")
    assert custom is not None and (custom.provider, custom.name) == ("my-gateway", "My Gateway")
