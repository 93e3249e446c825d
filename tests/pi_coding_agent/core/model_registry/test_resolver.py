"""Model selection from --provider/--model, Pi 0.85's rules (exact, fuzzy, :thinking, custom ids)."""

from __future__ import annotations

from pi_ai import Model
from pi_coding_agent.core.model_registry._collate import collation_key, fuzzy_matches
from pi_coding_agent.core.model_registry._list import format_token_count, model_table
from pi_coding_agent.core.model_registry._resolver import (
    default_available_model,
    find_exact_reference,
    parse_model_pattern,
    resolve_cli_model,
)


def _model(provider: str, model_id: str, name: str | None = None, **extra: object) -> Model:
    return Model(
        id=model_id,
        name=name or model_id,
        api="openai-completions",
        provider=provider,
        base_url="http://127.0.0.1:1/v1",
        **extra,  # type: ignore[arg-type]
    )


MODELS = [
    _model("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5", reasoning=True),
    _model("anthropic", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5 (dated)"),
    _model("anthropic", "claude-haiku-4-5-20251001"),
    _model("anthropic", "claude-haiku-4-5-20250101"),
    _model("openai", "gpt-4o"),
    _model("openrouter", "openai/gpt-4o:extended"),
    _model("openrouter", "gpt-4o"),
    _model("local", "qwen:7b"),
]


def _resolve(model: str, provider: str | None = None, thinking: str | None = None, auth: tuple[str, ...] = ()):
    return resolve_cli_model(
        provider=provider, model=model, thinking=thinking, models=MODELS, has_auth=lambda p: p in auth
    )


def _ref(model: Model | None) -> str | None:
    return f"{model.provider}/{model.id}" if model else None


def test_exact_references() -> None:
    assert _ref(find_exact_reference("ANTHROPIC/claude-sonnet-4-5", MODELS)) == "anthropic/claude-sonnet-4-5"
    assert find_exact_reference("gpt-4o", MODELS) is None  # two providers have it
    assert _ref(find_exact_reference("qwen:7b", MODELS)) == "local/qwen:7b"


def test_provider_slash_model_and_fuzzy_preferring_aliases() -> None:
    assert _ref(_resolve("anthropic/sonnet").model) == "anthropic/claude-sonnet-4-5"
    assert _ref(_resolve("sonnet").model) == "anthropic/claude-sonnet-4-5"
    # Only dated versions: the highest id wins.
    assert _ref(_resolve("haiku").model) == "anthropic/claude-haiku-4-5-20251001"
    assert _ref(_resolve("Sonnet 4.5 (dated)").model) == "anthropic/claude-sonnet-4-5-20250929"


def test_thinking_suffix_is_split_only_when_needed() -> None:
    found = _resolve("sonnet:high")
    assert _ref(found.model) == "anthropic/claude-sonnet-4-5" and found.thinking_level == "high"
    found = _resolve("qwen:7b")
    assert _ref(found.model) == "local/qwen:7b" and found.thinking_level is None
    # An invalid suffix is part of the id on the CLI: not found.
    assert _resolve("sonnet:turbo").error == 'Model "sonnet:turbo" not found. Use --list-models to see available models.'


def test_ambiguous_bare_id_uses_the_single_authenticated_provider() -> None:
    result = _resolve("gpt-4o")
    assert result.model is None
    assert result.error == (
        'Model "gpt-4o" is ambiguous across providers: openai/gpt-4o, openrouter/gpt-4o. '
        "No matching provider is authenticated. Use --provider or provider/model."
    )
    assert _ref(_resolve("gpt-4o", auth=("openrouter",)).model) == "openrouter/gpt-4o"


def test_slash_ids_fall_back_to_a_raw_id_match() -> None:
    assert _ref(_resolve("openai/gpt-4o:extended").model) == "openrouter/openai/gpt-4o:extended"


def test_unknown_provider_and_custom_ids() -> None:
    assert _resolve("x", provider="nope").error == (
        'Unknown provider "nope". Use --list-models to see available providers/models.'
    )
    custom = _resolve("local/brand-new:high")
    assert custom.model is not None
    assert (custom.model.provider, custom.model.id, custom.model.name) == ("local", "brand-new", "brand-new")
    assert custom.model.reasoning is True and custom.thinking_level == "high"
    assert custom.warning == 'Model "brand-new" not found for provider "local". Using custom model id.'
    both = _resolve("openai/gpt-4o", provider="OpenAI")
    assert _ref(both.model) == "openai/gpt-4o"


def test_not_found_and_empty_catalog() -> None:
    assert _resolve("nothing-like-this").error == (
        'Model "nothing-like-this" not found. Use --list-models to see available models.'
    )
    empty = resolve_cli_model(provider=None, model="x", thinking=None, models=[], has_auth=lambda p: True)
    assert empty.error == "No models available. Check your installation or add models to models.json."


def test_scope_pattern_with_invalid_level_warns() -> None:
    found = parse_model_pattern("sonnet:turbo", MODELS)
    assert _ref(found.model) == "anthropic/claude-sonnet-4-5"
    assert found.warning == 'Invalid thinking level "turbo" in pattern "sonnet:turbo". Using default instead.'


def test_default_available_model_follows_pis_table() -> None:
    anthropic_default = _model("anthropic", "claude-opus-5-5")
    assert default_available_model([MODELS[4], anthropic_default]) is anthropic_default
    assert default_available_model([MODELS[7]]) is MODELS[7]
    assert default_available_model([]) is None


def test_collation_and_fuzzy() -> None:
    ids = ["b", "B", "a-2", "a_2", "a2", "A1", "a.1"]
    assert sorted(ids, key=collation_key) == ["a_2", "a-2", "a.1", "A1", "a2", "b", "B"]
    assert fuzzy_matches("gpt4o", "openai gpt-4o")
    assert fuzzy_matches("4ogpt", "openai gpt-4o")
    assert not fuzzy_matches("zz", "openai gpt-4o")


def test_token_counts_and_table() -> None:
    assert [format_token_count(n) for n in (999, 1000, 16384, 32768, 4096, 128000, 1_000_000, 1_048_576)] == [
        "999",
        "1K",
        "16.4K",
        "32.8K",
        "4.1K",
        "128K",
        "1M",
        "1.0M",
    ]
    lines = model_table(
        [_model("local", "m1", input=["text"]), _model("local", "coder-7b", reasoning=True, context_window=32768,
                                                         max_tokens=4096, input=["text"])],
        None,
    )
    assert lines == [
        "provider  model     context  max-out  thinking  images",
        "local     coder-7b  32.8K    4.1K     yes       no    ",
        "local     m1        128K     16.4K    no        no    ",
    ]
    assert model_table([_model("local", "m1")], "zzz") == ['No models matching "zzz"']


def test_model_scope_globs_patterns_and_levels() -> None:
    from pi_coding_agent.core.model_registry import resolve_model_scope

    scoped, warnings = resolve_model_scope(["anthropic/*sonnet*:high", "gpt-4o", "nothing*", "qwen:7b:low"], MODELS)
    assert [(_ref(s.model), s.thinking_level) for s in scoped] == [
        ("anthropic/claude-sonnet-4-5", "high"),
        ("anthropic/claude-sonnet-4-5-20250929", "high"),
        # Ambiguous as an exact id, so substring matching picks the highest alias id.
        ("openrouter/openai/gpt-4o:extended", None),
        ("local/qwen:7b", "low"),
    ]
    assert warnings == ['No models match pattern "nothing*"']
    # "*" does not cross "/" (minimatch): the slash in openrouter's id must be spelled out.
    assert resolve_model_scope(["*gpt-4o:ext*"], MODELS)[0] == []
    scoped, _ = resolve_model_scope(["*/gpt-4o:ext*"], MODELS)
    assert [_ref(s.model) for s in scoped] == ["openrouter/openai/gpt-4o:extended"]
