"""The model catalog: Pi's built-in models (same ids and data as the oracle's catalog) and
``models.json`` data composed over them (custom providers, overrides, errors). pi_ai is handed
that data: it never looks for the coding agent's files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pi_ai import ModelRegistry
from pi_ai.models import get_model, get_providers


def test_builtin_catalog_resolves_case_models() -> None:
    sonnet = get_model("anthropic", "claude-sonnet-4-5")
    assert sonnet is not None
    assert (sonnet.api, sonnet.base_url, sonnet.reasoning, sonnet.max_tokens) == (
        "anthropic-messages",
        "https://api.anthropic.com",
        True,
        64000,
    )
    assert sonnet.cost.input == 3 and sonnet.cost.cache_write == 3.75
    assert get_model("anthropic", "nope") is None
    providers = get_providers()
    assert {"anthropic", "openai", "google", "deepseek", "openrouter", "groq"} <= set(providers)
    assert providers == sorted(providers)
    # Copies: callers may edit what they get.
    sonnet.max_tokens = 1
    assert get_model("anthropic", "claude-sonnet-4-5").max_tokens == 64000  # type: ignore[union-attr]


OVERLAY = {
    "providers": {
        "ollama": {
            "baseUrl": "http://localhost:11434/v1",
            "api": "openai-completions",
            "apiKey": "ollama",
            "compat": {"supportsDeveloperRole": False},
            "models": [{"id": "qwen3:8b", "reasoning": True, "compat": {"maxTokensField": "max_tokens"}}],
        },
        "anthropic": {
            "baseUrl": "https://proxy.example.com",
            "modelOverrides": {"claude-sonnet-4-5": {"maxTokens": 1000, "cost": {"input": 1}}},
            "models": [{"id": "claude-custom", "name": "Custom"}],
        },
    }
}


def test_overlay_adds_and_overrides() -> None:
    registry = ModelRegistry(OVERLAY)
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


def test_overlay_errors_keep_the_builtin_models() -> None:
    message = ModelRegistry({"providers": {"x": {"models": [{"id": 3}]}}}).error
    assert (
        message is not None
        and message.startswith("Invalid models.json schema:")
        and "providers.x.models[0].id" in message
    )
    no_api = ModelRegistry({"providers": {"x": {"baseUrl": "http://h", "models": [{"id": "m"}]}}})
    assert 'no "api" specified' in (no_api.error or "")
    assert no_api.model("anthropic", "claude-sonnet-4-5") is not None
    assert (
        ModelRegistry([1, 2]).error
        == "Invalid models.json schema:\n  - providers: Expected an object of providers"
    )
    assert ModelRegistry().error is None


def test_pi_ai_opens_no_file_of_the_coding_agent(tmp_path: Path) -> None:
    """With a models.json in both places the coding agent looks, pi_ai's catalog functions and
    registry open no file under them (every ``open`` is recorded by an audit hook) and know
    only the built-in models, as Pi's pi-ai does."""
    home, agent_dir = tmp_path / "home", tmp_path / "agent"
    for folder in (home / ".pi" / "agent", agent_dir):
        folder.mkdir(parents=True)
        (folder / "models.json").write_text(
            json.dumps(
                {
                    "providers": {
                        "lm": {"baseUrl": "http://h/v1", "api": "openai-completions", "models": [{"id": "m"}]}
                    }
                }
            )
        )
    script = (
        "import sys, json\n"
        "opened = []\n"
        "sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == 'open' else None)\n"
        "import pi_ai\n"
        "found = [pi_ai.get_model('lm', 'm'), pi_ai.get_models('lm'), 'lm' in pi_ai.get_providers(),\n"
        "         pi_ai.ModelRegistry().model('lm', 'm'), pi_ai.get_model('anthropic', 'claude-sonnet-4-5').id]\n"
        "print(json.dumps({'opened': opened, 'found': [repr(x) for x in found]}))\n"
    )
    env = {"HOME": str(home), "PI_CODING_AGENT_DIR": str(agent_dir), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    assert result["found"] == ["None", "[]", "False", "None", "'claude-sonnet-4-5'"]
    touched = [path for path in result["opened"] if path.startswith(str(tmp_path))]
    assert touched == []
    assert any(path.endswith("catalog.json") for path in result["opened"])  # the hook does see opens
