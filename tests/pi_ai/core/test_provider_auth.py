"""Provider credentials from a held key or the environment, as Pi's per-provider auth resolves
them (ANTHROPIC_AUTH_TOKEN as a bearer header, Cloudflare's account and gateway ids), and
the library's ``stream`` filling Cloudflare's base-URL placeholders (checked end to end
against Pi's answers in ``tests/conformance/cases/payload/{anthropic_bearer,cloudflare}_*``)."""

from __future__ import annotations

import pytest

from pi_ai import Context, Model, ProviderAuth, StreamOptions, UserMessage, resolve_provider_auth, stream
from pi_ai._provider_auth import fill_base_url_placeholders
from pi_ai.api._http import close_clients, redirect_requests
from tests.support.loopback import LoopbackServer, Reply
from tests.support.provider_env import clear_auth_variables

GATEWAY_HEADERS = {"cf-aig-authorization": "Bearer cfk", "Authorization": None, "x-api-key": None}


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_auth_variables(monkeypatch)


def test_anthropic_auth_token_is_a_bearer_header_and_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api")
    assert resolve_provider_auth("anthropic") == ProviderAuth(api_key="sk-ant-api")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok")
    assert resolve_provider_auth("anthropic") == ProviderAuth(headers={"Authorization": "Bearer tok"})
    # a held key owns the provider: the environment is not read
    assert resolve_provider_auth("anthropic", key="sk-stored") == ProviderAuth(api_key="sk-stored")
    assert resolve_provider_auth("anthropic", env={"ANTHROPIC_AUTH_TOKEN": ""}) == ProviderAuth(
        headers={"Authorization": "Bearer tok"}  # an empty override falls back to the process
    )


def test_cloudflare_needs_its_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDFLARE_API_KEY", "cfk")
    assert resolve_provider_auth("cloudflare-workers-ai") is None
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "acc")
    assert resolve_provider_auth("cloudflare-workers-ai") == ProviderAuth(
        api_key="cfk", env={"CLOUDFLARE_ACCOUNT_ID": "acc"}
    )
    assert resolve_provider_auth("cloudflare-ai-gateway") is None
    monkeypatch.setenv("CLOUDFLARE_GATEWAY_ID", "gw")
    assert resolve_provider_auth("cloudflare-ai-gateway") == ProviderAuth(
        headers=GATEWAY_HEADERS, env={"CLOUDFLARE_ACCOUNT_ID": "acc", "CLOUDFLARE_GATEWAY_ID": "gw"}
    )


def test_cloudflare_values_stored_with_the_key_win_and_the_rest_come_from_the_env(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "env-acc")
    monkeypatch.setenv("CLOUDFLARE_GATEWAY_ID", "env-gw")
    stored = {"CLOUDFLARE_ACCOUNT_ID": "stored-acc"}
    assert resolve_provider_auth("cloudflare-workers-ai", key="k", key_env=stored) == ProviderAuth(
        api_key="k", env={"CLOUDFLARE_ACCOUNT_ID": "stored-acc"}
    )
    auth = resolve_provider_auth("cloudflare-ai-gateway", key="k", key_env=stored)
    assert auth is not None and auth.env == {
        "CLOUDFLARE_ACCOUNT_ID": "stored-acc",
        "CLOUDFLARE_GATEWAY_ID": "env-gw",
    }
    assert resolve_provider_auth("cloudflare-workers-ai", key="") is None


def test_placeholders_are_filled_only_for_cloudflare_providers() -> None:
    base = "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"
    model = Model(id="m", name="m", api="openai-completions", provider="cloudflare-workers-ai", base_url=base)
    filled = fill_base_url_placeholders(model, {"CLOUDFLARE_ACCOUNT_ID": "acc"})
    assert filled.base_url == "https://api.cloudflare.com/client/v4/accounts/acc/ai/v1"
    assert fill_base_url_placeholders(model, None) is model
    assert fill_base_url_placeholders(model, {"OTHER": "x"}) is model
    custom = Model(id="m", name="m", api="openai-completions", provider="my-cloudflare", base_url=base)
    assert fill_base_url_placeholders(custom, {"CLOUDFLARE_ACCOUNT_ID": "acc"}) is custom


CONTEXT = Context(system_prompt="s", messages=[UserMessage(content="hi", timestamp=0)])


async def _request_url(model: Model, options: StreamOptions) -> tuple[list[str], str | None]:
    async with LoopbackServer(
        respond=lambda _r: Reply.json(400, {"error": {"message": "captured"}})
    ) as server:
        with redirect_requests(server.url) as originals:
            final = await stream(model, CONTEXT, options).result()
    await close_clients()
    return originals, final.error_message


async def test_library_stream_resolves_cloudflare_from_the_env(monkeypatch: pytest.MonkeyPatch) -> None:
    base = "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"
    model = Model(
        id="@cf/m", name="m", api="openai-completions", provider="cloudflare-workers-ai", base_url=base
    )
    urls, error = await _request_url(model, StreamOptions())
    assert (urls, error) == ([], "Provider is not configured: cloudflare-workers-ai")
    monkeypatch.setenv("CLOUDFLARE_API_KEY", "cfk")
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "acc")
    urls, _ = await _request_url(model, StreamOptions())
    assert urls == ["https://api.cloudflare.com/client/v4/accounts/acc/ai/v1/chat/completions"]
    # with a key given, as in Pi only the call's own env fills the placeholder
    urls, _ = await _request_url(model, StreamOptions(api_key="k"))
    assert urls == [
        "https://api.cloudflare.com/client/v4/accounts/%7BCLOUDFLARE_ACCOUNT_ID%7D/ai/v1/chat/completions"
    ]
    urls, _ = await _request_url(model, StreamOptions(api_key="k", env={"CLOUDFLARE_ACCOUNT_ID": "own"}))
    assert urls == ["https://api.cloudflare.com/client/v4/accounts/own/ai/v1/chat/completions"]
