"""Signed-in credentials in ``auth.json``: stored in Pi's format, refreshed before expiry
under the lock Pi uses, a revoked token reported, permissions kept private."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_coding_agent.core.auth import (
    AuthFileError,
    AuthStorage,
    Credentials,
    OAuthRefreshError,
    login,
    login_options,
    logout,
    stored_credentials,
)
from tests.support.fake_auth_server import FakeAuthServer, ScriptedUser


@pytest.fixture
def anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAuthServer]:
    with FakeAuthServer("anthropic") as server:
        monkeypatch.setenv(server.override_variable, server.url)
        monkeypatch.setenv("PI_OAUTH_CALLBACK_PORT", "0")
        yield server


def _credentials(path: Path) -> Credentials:
    return Credentials(AuthStorage.load(path))


def _expiring(access: str, refresh: str, in_ms: int) -> dict[str, object]:
    return {"type": "oauth", "refresh": refresh, "access": access, "expires": int(time.time() * 1000) + in_ms}


async def test_login_stores_pis_format_privately_and_logout_removes(tmp_path: Path, anthropic: FakeAuthServer) -> None:
    path = tmp_path / "a" / "b" / "auth.json"
    credentials = _credentials(path)
    await credentials.storage.set("openai", {"type": "api_key", "key": "sk-kept"})
    credential = await login(credentials, "anthropic", ScriptedUser(anthropic).callbacks())

    text = path.read_text(encoding="utf-8")
    stored = json.loads(text)
    # JSON.stringify(data, null, 2): two-space indent, no trailing newline; earlier entries kept.
    assert text == json.dumps(stored, indent=2)
    assert stored == {"openai": {"type": "api_key", "key": "sk-kept"}, "anthropic": credential}
    assert list(stored["anthropic"]) == ["type", "refresh", "access", "expires"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [stat.S_IMODE(p.stat().st_mode) for p in (path.parent, path.parent.parent)] == [0o700, 0o700]
    assert not (path.parent / "auth.json.lock").exists()
    assert stored_credentials(credentials.storage) == [("openai", "api_key"), ("anthropic", "oauth")]

    auth = credentials.request_auth("anthropic")
    assert auth is not None and auth.api_key == credential["access"]
    assert credentials.has_auth("anthropic") and credentials.is_oauth("anthropic")

    assert await logout(credentials.storage, "anthropic")
    assert not await logout(credentials.storage, "anthropic")
    assert json.loads(path.read_text(encoding="utf-8")) == {"openai": {"type": "api_key", "key": "sk-kept"}}


async def test_token_is_refreshed_before_expiry_once(tmp_path: Path, anthropic: FakeAuthServer) -> None:
    path = tmp_path / "auth.json"
    first = await login(_credentials(path), "anthropic", ScriptedUser(anthropic).callbacks())
    credentials = _credentials(path)
    assert not credentials.needs_refresh("anthropic")  # 8 hours left

    # Four minutes left: inside Pi's five-minute window.
    await credentials.storage.set("anthropic", {**first, "expires": int(time.time() * 1000) + 240_000})
    assert credentials.needs_refresh("anthropic")
    await credentials.refresh("anthropic")
    stored = json.loads(path.read_text(encoding="utf-8"))["anthropic"]
    assert stored["access"] != first["access"] and stored["refresh"] != first["refresh"]
    assert credentials.request_auth("anthropic").api_key == stored["access"]  # type: ignore[union-attr]
    assert not credentials.needs_refresh("anthropic")
    await credentials.refresh("anthropic")  # nothing to do
    assert len(anthropic.token_requests("refresh_token")) == 1


async def test_a_second_process_sees_the_refreshed_file_and_does_not_refresh(
    tmp_path: Path, anthropic: FakeAuthServer
) -> None:
    path = tmp_path / "auth.json"
    await login(_credentials(path), "anthropic", ScriptedUser(anthropic).callbacks())
    stored = json.loads(path.read_text(encoding="utf-8"))["anthropic"]
    path.write_text(json.dumps({"anthropic": {**stored, "expires": 0}}, indent=2), encoding="utf-8")
    one, two = _credentials(path), _credentials(path)  # both read the expired token
    anthropic.token_delay = 0.5
    await asyncio.gather(one.refresh("anthropic"), two.refresh("anthropic"))
    assert len(anthropic.token_requests("refresh_token")) == 1
    assert one.request_auth("anthropic") == two.request_auth("anthropic")


async def test_revoked_refresh_token_fails_and_keeps_the_credential(tmp_path: Path, anthropic: FakeAuthServer) -> None:
    path = tmp_path / "auth.json"
    await login(_credentials(path), "anthropic", ScriptedUser(anthropic).callbacks())
    credentials = _credentials(path)
    await credentials.storage.modify("anthropic", _expire)
    before = path.read_text(encoding="utf-8")
    anthropic.revoke_all()
    with pytest.raises(OAuthRefreshError, match=r"^OAuth refresh failed for anthropic: Anthropic token refresh request failed"):
        await credentials.refresh("anthropic")
    assert path.read_text(encoding="utf-8") == before


async def _expire(current: dict[str, object] | None) -> dict[str, object]:
    assert current is not None
    return {**current, "expires": 0}


async def test_a_held_lock_is_waited_for_and_a_dead_one_taken(tmp_path: Path, anthropic: FakeAuthServer) -> None:
    path = tmp_path / "auth.json"
    await login(_credentials(path), "anthropic", ScriptedUser(anthropic).callbacks())
    credentials = _credentials(path)
    await credentials.storage.modify("anthropic", _expire)
    lock = tmp_path / "auth.json.lock"
    lock.mkdir()  # another process (Pi, or us) is writing the file
    refreshing = asyncio.ensure_future(credentials.refresh("anthropic"))
    await asyncio.sleep(0.5)
    assert not refreshing.done() and not anthropic.token_requests("refresh_token")
    lock.rmdir()
    await asyncio.wait_for(refreshing, 10)
    assert len(anthropic.token_requests("refresh_token")) == 1

    # A lock left by a process that died (not touched for over 30 s) is taken at once.
    await credentials.storage.modify("anthropic", _expire)
    lock.mkdir()
    os.utime(lock, (time.time() - 60, time.time() - 60))
    await asyncio.wait_for(credentials.refresh("anthropic"), 5)
    assert len(anthropic.token_requests("refresh_token")) == 2 and not lock.exists()


def test_readable_auth_file_is_made_private_with_a_notice(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text('{"openai": {"type": "api_key", "key": "sk"}}', encoding="utf-8")
    path.chmod(0o644)
    storage = AuthStorage.load(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert storage.notice is not None and str(path) in storage.notice and "0644" in storage.notice
    assert "\n" not in storage.notice
    assert AuthStorage.load(path).notice is None  # once
    assert storage.api_key("openai") == "sk"


async def test_a_broken_file_is_never_rewritten(tmp_path: Path, anthropic: FakeAuthServer) -> None:
    path = tmp_path / "auth.json"
    path.write_text('{"openai": {"type": "api_key", "key": "sk"},}', encoding="utf-8")
    credentials = _credentials(path)
    assert credentials.storage.issue is not None
    with pytest.raises(AuthFileError, match=r"Cannot update .*auth\.json: invalid JSON at line 1"):
        await login(credentials, "anthropic", ScriptedUser(anthropic).callbacks())
    assert path.read_text(encoding="utf-8") == '{"openai": {"type": "api_key", "key": "sk"},}'


async def test_a_symlinked_auth_file_keeps_its_link(tmp_path: Path) -> None:
    target = tmp_path / "secrets" / "auth.json"
    target.parent.mkdir()
    target.write_text("{}", encoding="utf-8")
    link = tmp_path / "agent" / "auth.json"
    link.parent.mkdir()
    link.symlink_to(target)
    storage = AuthStorage.load(link)
    await storage.set("openai", {"type": "api_key", "key": "sk"})
    assert link.is_symlink() and json.loads(target.read_text(encoding="utf-8")) == {"openai": {"type": "api_key", "key": "sk"}}


def test_oauth_credential_owns_its_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "auth.json"
    path.write_text(
        json.dumps(
            {
                "kimi-coding": _expiring("kimi-access", "r", 3_600_000),
                "openai": _expiring("not-a-flow", "r", 3_600_000),
                "github-copilot": {
                    **_expiring("tid=1;proxy-ep=proxy.enterprise.githubcopilot.com;", "gho_x", 3_600_000),
                    "availableModelIds": ["gpt-5.4"],
                },
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("KIMI_API_KEY", "kimi-env")
    credentials = _credentials(path)
    kimi = credentials.request_auth("kimi-coding")
    # Kimi's token is a bearer header, not a key; the environment key is not used.
    assert kimi is not None and kimi.api_key is None and dict(kimi.headers or {}) == {"Authorization": "Bearer kimi-access"}
    # An OAuth credential for a provider without a sign-in flow configures nothing (as in Pi).
    assert credentials.request_auth("openai") is None and not credentials.has_auth("openai")
    copilot = credentials.request_auth("github-copilot")
    assert copilot is not None and copilot.base_url == "https://api.enterprise.githubcopilot.com"
    assert credentials.available_model_ids("github-copilot") == {"gpt-5.4"}
    credentials.set_runtime_key("kimi-coding", "from-flag")
    assert credentials.request_auth("kimi-coding").api_key == "from-flag"  # type: ignore[union-attr]


def test_login_options_list_every_method_by_name(tmp_path: Path) -> None:
    credentials = Credentials(
        AuthStorage.load(tmp_path / "auth.json"), radius_gateways={"team-gw": ("Team Gateway", "https://gw.example")}
    )
    options = login_options(credentials)
    names = [option.name for option in options]
    assert names == sorted(names, key=str.casefold)
    by_key = {(option.provider, option.auth_type): option for option in options}
    assert by_key[("anthropic", "oauth")].method == "Anthropic (Claude Pro/Max)"
    assert by_key[("anthropic", "oauth")].is_subscription
    assert by_key[("anthropic", "api_key")].method == "Anthropic API key"
    assert by_key[("openrouter", "oauth")].login_label == "Sign in with OpenRouter"
    assert ("openai-codex", "api_key") not in by_key  # a subscription-only provider
    assert by_key[("team-gw", "oauth")].name == "Team Gateway"
    assert {o.provider for o in login_options(credentials, "oauth")} == {
        "anthropic", "github-copilot", "kimi-coding", "openai-codex", "openrouter", "radius", "team-gw", "xai",
    }


async def test_api_key_sign_in_asks_what_pi_asks(tmp_path: Path) -> None:
    from pi_ai.oauth import LoginCallbacks

    credentials = _credentials(tmp_path / "auth.json")
    asked: list[str] = []
    answers = iter(["cf-key", "account-1", "gateway-1"])

    async def prompt(question: object) -> str:
        asked.append(f"{question.type}: {question.message}")  # type: ignore[attr-defined]
        return next(answers)

    await login(credentials, "cloudflare-ai-gateway", LoginCallbacks(prompt, lambda _e: None), "api_key")
    assert asked == [
        "secret: Enter Cloudflare API key",
        "text: Enter Cloudflare account ID",
        "text: Enter Cloudflare AI Gateway ID",
    ]
    assert credentials.storage.credential("cloudflare-ai-gateway") == {
        "type": "api_key",
        "key": "cf-key",
        "env": {"CLOUDFLARE_ACCOUNT_ID": "account-1", "CLOUDFLARE_GATEWAY_ID": "gateway-1"},
    }
    answers = iter(["sk-ant-typed"])
    asked.clear()
    await login(credentials, "anthropic", LoginCallbacks(prompt, lambda _e: None), "api_key")
    assert asked == ["secret: Enter Anthropic API key"]
    assert credentials.api_key("anthropic") == "sk-ant-typed"
    from pi_ai.oauth import OAuthError

    with pytest.raises(OAuthError, match="OpenAI Codex does not support api_key login"):
        await login(credentials, "openai-codex", LoginCallbacks(prompt, lambda _e: None), "api_key")
    with pytest.raises(OAuthError, match="Unknown provider: nope"):
        await login(credentials, "nope", LoginCallbacks(prompt, lambda _e: None))
