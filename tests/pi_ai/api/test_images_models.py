"""``pi_ai.ImagesModels`` beyond the cases recorded through Pi: a sign-in about to expire is
refreshed once and written back, one that cannot be refreshed fails the call (no fallback to
the environment), an unknown provider is an error value, and ``auth.json`` (the coding
agent's ``AuthStorage``) serves as the credential store."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

import pi_ai
from pi_ai import ImagesContext, ImagesModels, ImagesOptions, InMemoryCredentialStore, TextContent
from pi_ai.api._http import close_clients, redirect_requests
from pi_ai.oauth import OAuthError, OAuthFlow
from tests.support.loopback import LoopbackServer, Reply

CONTEXT = ImagesContext(input=[TextContent(text="A cat")])
ANSWER = {
    "id": "gen-1",
    "object": "chat.completion",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Here"}, "finish_reason": "stop"}],
}


def _model() -> pi_ai.ImagesModel:
    model = pi_ai.get_image_model("openrouter", "openai/gpt-image-1")
    assert model is not None
    return model


async def _generate(models: ImagesModels, **options: Any) -> tuple[pi_ai.AssistantImages, list[str]]:
    async with LoopbackServer([Reply.json(200, ANSWER)]) as server:
        with redirect_requests(server.url):
            result = await models.generate_images(_model(), CONTEXT, ImagesOptions(**options))
        await close_clients()
    return result, [request.headers.get("authorization", "") for request in server.requests]


class _CountingFlow(OAuthFlow):
    provider = "openrouter"
    name = "test flow"

    def __init__(self, fail: bool = False) -> None:
        self.refreshed = 0
        self.fail = fail

    async def refresh(self, credential: dict[str, Any]) -> dict[str, Any]:
        self.refreshed += 1
        if self.fail:
            raise OAuthError("the key was revoked")
        return {**credential, "access": "sk-or-renewed", "expires": int(time.time() * 1000) + 3_600_000}


@pytest.fixture
def flow(monkeypatch: pytest.MonkeyPatch) -> _CountingFlow:
    made = _CountingFlow()
    import pi_ai.oauth

    monkeypatch.setattr(pi_ai.oauth, "get_oauth_flow", lambda provider, **_: made if provider == "openrouter" else None)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    return made


def _expiring() -> dict[str, Any]:
    return {"type": "oauth", "access": "sk-or-old", "refresh": "r", "expires": int(time.time() * 1000) + 60_000}


async def test_a_sign_in_about_to_expire_is_refreshed_and_kept(flow: _CountingFlow) -> None:
    store = InMemoryCredentialStore({"openrouter": _expiring()})
    models = ImagesModels(store)
    first, sent = await _generate(models)
    again, sent_again = await _generate(models)
    assert first.stop_reason == again.stop_reason == "stop", first.error_message
    assert sent == sent_again == ["Bearer sk-or-renewed"]
    assert flow.refreshed == 1
    assert (await store.read("openrouter") or {})["access"] == "sk-or-renewed"


async def test_a_sign_in_that_cannot_be_refreshed_fails_without_the_environment(
    flow: _CountingFlow, monkeypatch: pytest.MonkeyPatch
) -> None:
    flow.fail = True
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-env")
    result, sent = await _generate(ImagesModels(InMemoryCredentialStore({"openrouter": _expiring()})))
    assert result.stop_reason == "error"
    assert result.error_message == "OAuth refresh failed for openrouter: the key was revoked"
    assert sent == []


async def test_an_unknown_provider_is_an_error_value() -> None:
    model = pi_ai.convert({**pi_ai.to_builtins(_model()), "provider": "elsewhere"}, pi_ai.ImagesModel)
    result = await ImagesModels().generate_images(model, CONTEXT)
    assert (result.stop_reason, result.error_message) == ("error", "Unknown provider: elsewhere")


async def test_auth_json_is_a_credential_store(tmp_path: Path) -> None:
    from pi_coding_agent.core.auth import AuthStorage

    path = tmp_path / "auth.json"
    credential = {"type": "oauth", "access": "sk-or-from-file", "refresh": "", "expires": 9007199254740991}
    path.write_text(json.dumps({"openrouter": credential}))
    path.chmod(0o600)
    models = ImagesModels(AuthStorage.load(path))
    assert [model.id for model in models.models()] == [model.id for model in pi_ai.get_image_models("openrouter")]
    result, sent = await _generate(models)
    assert result.stop_reason == "stop", result.error_message
    assert sent == ["Bearer sk-or-from-file"]
