"""What ``/login`` offers beyond the built-in providers, as Pi 0.85 does: each provider of
``models.json`` (a plain "API key", named by its ``name`` or its id) next to the built-in
ones (a ``name`` there renames one too); and where a configured provider's key comes from, in
Pi's words (``stored``, ``models_json_key``, ``models_json_command``, variable names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_ai.oauth import AuthPrompt, LoginCallbacks
from pi_coding_agent.core.auth import AuthStorage, login, login_options
from pi_coding_agent.core.model_registry import ModelCatalog

MODEL = [{"id": "m", "contextWindow": 1000, "maxTokens": 100}]


def _catalog(tmp_path: Path) -> ModelCatalog:
    providers = {
        "literal-key": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k", "models": MODEL},
        "env-key": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "$TEAM_KEY", "models": MODEL},
        "command-key": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "!echo k",
                        "models": MODEL},
        "named": {"name": "Team Proxy", "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                  "apiKey": "$UNSET_TEAM_KEY", "models": MODEL},
        "groq": {"name": "My Groq", "baseUrl": "https://api.groq.com/openai/v1"},
    }  # fmt: skip
    (tmp_path / "models.json").write_text(json.dumps({"providers": providers}), encoding="utf-8")
    return ModelCatalog.load(tmp_path, AuthStorage.load(tmp_path / "auth.json"))


def test_models_json_providers_are_offered_with_an_api_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAM_KEY", "from-env")
    monkeypatch.delenv("UNSET_TEAM_KEY", raising=False)
    credentials = _catalog(tmp_path).credentials
    options = {option.provider: option for option in login_options(credentials, "api_key")}
    for provider in ("literal-key", "env-key", "command-key"):
        assert (options[provider].name, options[provider].method) == (provider, "API key")
    assert options["named"].name == "Team Proxy"
    assert not options["named"].configured  # its variable is not set
    assert options["groq"].name == "My Groq"  # a built-in provider renamed there, as in Pi
    assert not any(o.provider == "literal-key" for o in login_options(credentials, "oauth"))
    assert [credentials.auth_source(p) for p in ("literal-key", "env-key", "command-key")] == [
        "models_json_key", "TEAM_KEY", "models_json_command",
    ]  # fmt: skip


async def test_signing_in_to_a_models_json_provider_asks_for_its_key(tmp_path: Path) -> None:
    credentials = _catalog(tmp_path).credentials
    asked: list[str] = []

    async def prompt(question: AuthPrompt) -> str:
        asked.append(f"{question.type}: {question.message}")
        return "typed-key"

    await login(credentials, "named", LoginCallbacks(prompt, lambda _event: None), "api_key")
    assert asked == ["secret: Enter API key"]
    assert credentials.storage.credential("named") == {"type": "api_key", "key": "typed-key"}
    assert credentials.auth_source("named") == "stored"
    assert credentials.request_auth("named").api_key == "typed-key"  # type: ignore[union-attr]


def test_an_extensions_provider_is_offered_once_registered(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path)
    assert "ext-provider" not in {o.provider for o in login_options(catalog.credentials)}
    catalog.register_provider(
        "ext-provider", {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "models": MODEL}
    )
    [option] = [o for o in login_options(catalog.credentials) if o.provider == "ext-provider"]
    assert (option.name, option.auth_type, option.method, option.configured) == (
        "ext-provider", "api_key", "API key", False,
    )  # fmt: skip
