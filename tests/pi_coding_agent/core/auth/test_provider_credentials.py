"""Which credentials the coding agent sends per provider: a held key (--api-key, auth.json,
models.json) owns the provider; without one, ANTHROPIC_AUTH_TOKEN is a bearer header, and
Cloudflare needs its account (and gateway) id, from the stored credential or the environment.
The same answers as Pi's CLI are checked end to end in ``e2e/test_transport_cli.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_coding_agent.core.auth import AuthStorage, Credentials
from pi_coding_agent.core.model_registry import MissingCredentials, ModelCatalog
from tests.support.provider_env import clear_auth_variables


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_auth_variables(monkeypatch)


def _catalog(tmp_path: Path, auth: dict[str, object] | None = None) -> ModelCatalog:
    (tmp_path / "auth.json").write_text(json.dumps(auth or {}), encoding="utf-8")
    return ModelCatalog.load(tmp_path, AuthStorage.load(tmp_path / "auth.json"))


def test_anthropic_auth_token_alone_is_a_bearer_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = _catalog(tmp_path)
    assert not catalog.has_auth("anthropic")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api")
    model = catalog.find("anthropic", "claude-sonnet-4-5")
    assert model is not None and catalog.has_auth("anthropic")
    auth = catalog.request_auth(model)
    assert (auth.api_key, auth.headers, auth.env) == (None, {"Authorization": "Bearer tok"}, None)


def test_a_stored_or_given_anthropic_key_wins_over_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok")
    catalog = _catalog(tmp_path, {"anthropic": {"type": "api_key", "key": "sk-stored"}})
    model = catalog.find("anthropic", "claude-sonnet-4-5")
    assert model is not None
    assert (catalog.request_auth(model).api_key, catalog.request_auth(model).headers) == ("sk-stored", None)
    catalog.credentials.set_runtime_key("anthropic", "sk-flag")
    assert catalog.request_auth(model).api_key == "sk-flag"


def test_cloudflare_without_its_account_is_not_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLOUDFLARE_API_KEY", "cfk")
    catalog = _catalog(tmp_path)
    model = catalog.find("cloudflare-workers-ai", "@cf/moonshotai/kimi-k2.6")
    assert model is not None
    assert not catalog.has_auth("cloudflare-workers-ai")
    assert model not in catalog.available()
    with pytest.raises(MissingCredentials, match=r"set CLOUDFLARE_API_KEY \(and CLOUDFLARE_ACCOUNT_ID\)"):
        catalog.request_auth(model)
    catalog.credentials.set_runtime_key("cloudflare-workers-ai", "flag-key")
    assert not catalog.has_auth("cloudflare-workers-ai")  # a key alone is not enough
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "acc")
    assert catalog.has_auth("cloudflare-workers-ai")
    auth = catalog.request_auth(model)
    assert (auth.api_key, auth.env) == ("flag-key", {"CLOUDFLARE_ACCOUNT_ID": "acc"})


def test_cloudflare_gateway_from_a_stored_credential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDFLARE_GATEWAY_ID", "env-gw")
    stored = {"type": "api_key", "key": "stored-key", "env": {"CLOUDFLARE_ACCOUNT_ID": "acc"}}
    catalog = _catalog(tmp_path, {"cloudflare-ai-gateway": stored})
    model = catalog.find("cloudflare-ai-gateway", "claude-haiku-4-5")
    assert model is not None and catalog.has_auth("cloudflare-ai-gateway")
    auth = catalog.request_auth(model)
    assert auth.api_key is None
    assert auth.headers == {
        "cf-aig-authorization": "Bearer stored-key",
        "Authorization": None,
        "x-api-key": None,
    }
    assert auth.env == {"CLOUDFLARE_ACCOUNT_ID": "acc", "CLOUDFLARE_GATEWAY_ID": "env-gw"}


def test_credentials_without_a_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    credentials = Credentials(AuthStorage.load(tmp_path / "auth.json"), {"openai": "$MISSING_VAR"})
    assert not credentials.has_auth("openai")  # configured, but its variable is unset
    monkeypatch.setenv("MISSING_VAR", "sk-openai")
    assert credentials.has_auth("openai") and credentials.api_key("openai") == "sk-openai"
