"""Choosing a model from what the user typed (``--provider``, ``--model``) or from defaults.

Rules are Pi's ``model-resolver`` (0.85, unchanged in 1.6): exact ``provider/id`` or id first (case-insensitive,
ambiguity across providers resolved by which provider has credentials), then substring
matches on id or name preferring aliases (ids without a ``-YYYYMMDD`` suffix) and the
highest id; a ``:<thinking level>`` suffix is split off only when the whole pattern does
not name a model (ids may contain colons); an unknown id for a known provider becomes a
custom model cloned from that provider's default model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from pi_ai import THINKING_LEVELS, Model, canonical_reference
from pi_ai import canonical_provider as current_provider_id
from pi_coding_agent.core.model_registry._collate import collation_key

DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "amazon-bedrock": "us.anthropic.claude-opus-5-5",
    "ant-ling": "Ring-2.6-1T",
    "anthropic": "claude-opus-5-5",
    "openai": "gpt-6.2-sol",
    "azure": "gpt-6.2-sol",
    "openai-codex": "gpt-6.2-sol",
    "radius": "balanced",
    "nvidia": "nvidia/nemotron-3.5-super-vl-120b-a12b",
    "deepseek": "deepseek-v4-pro",
    "google": "gemini-4-argon",
    "google-vertex": "gemini-4-argon",
    "github-copilot": "gpt-6.1-sol",
    "openrouter": "moonshotai/kimi-k2.7-code",
    "vercel-ai-gateway": "zai/glm-5.3",
    "xai": "grok-4.7",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "gpt-oss-120b",
    "zai": "glm-5.3",
    "zai-coding-cn": "glm-5.3",
    "mistral": "devstral-medium-latest",
    "minimax": "MiniMax-M3",
    "minimax-cn": "MiniMax-M3",
    "moonshotai": "kimi-k2.7-code",
    "moonshotai-cn": "kimi-k2.7-code",
    "huggingface": "moonshotai/Kimi-K2.7-Code",
    "fireworks": "accounts/fireworks/models/kimi-k3",
    "together": "moonshotai/Kimi-K3",
    "baseten": "zai-org/GLM-5.3",
    "opencode": "kimi-k2.7-code",
    "opencode-go": "kimi-k3.1-pro",
    "kimi-coding": "kimi-for-coding",
    "meta": "muse-spark-1.3",
    "cloudflare-workers-ai": "@cf/moonshotai/kimi-k2.7-code",
    "cloudflare-ai-gateway": "workers-ai/@cf/moonshotai/kimi-k2.7-code",
    "qwen-token-plan": "qwen3.8-max",
    "qwen-token-plan-cn": "qwen3.8-max",
    "qwen-token-plan-individual": "qwen3.8-max",
    "qwen-token-plan-individual-cn": "qwen3.8-max",
    "xiaomi": "mimo-v2.6-pro",
    "xiaomi-token-plan-cn": "mimo-v2.6-pro",
    "xiaomi-token-plan-ams": "mimo-v2.6-pro",
    "xiaomi-token-plan-sgp": "mimo-v2.6-pro",
}
"""Which model Pi picks for a provider when nothing else says (Pi 1.6's table)."""

_DATED = re.compile(r"-\d{8}$")


@dataclass(frozen=True)
class ResolveCliModelResult:
    model: Model | None = None
    thinking_level: str | None = None
    warning: str | None = None
    error: str | None = None


def _same(a: Model, b: Model) -> bool:
    return a.provider == b.provider and a.id == b.id


def _is_alias(model_id: str) -> bool:
    return model_id.endswith("-latest") or not _DATED.search(model_id)


def find_exact_reference(reference: str, models: Sequence[Model]) -> Model | None:
    """``provider/id`` or a bare id, case-insensitive; ``None`` when absent or ambiguous."""
    trimmed = canonical_reference(reference.strip())
    if not trimmed:
        return None
    lowered = trimmed.lower()
    canonical = [m for m in models if f"{m.provider}/{m.id}".lower() == lowered]
    if len(canonical) == 1:
        return canonical[0]
    if len(canonical) > 1:
        return None
    if "/" in trimmed:
        provider, _, model_id = trimmed.partition("/")
        provider, model_id = provider.strip(), model_id.strip()
        if provider and model_id:
            matches = [
                m for m in models if m.provider.lower() == provider.lower() and m.id.lower() == model_id.lower()
            ]
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                return None
    by_id = [m for m in models if m.id.lower() == lowered]
    return by_id[0] if len(by_id) == 1 else None


def _try_match(pattern: str, models: Sequence[Model]) -> Model | None:
    exact = find_exact_reference(pattern, models)
    if exact:
        return exact
    needle = pattern.lower()
    matches = [m for m in models if needle in m.id.lower() or (m.name and needle in m.name.lower())]
    if not matches:
        return None
    aliases = [m for m in matches if _is_alias(m.id)]
    pool = aliases or [m for m in matches if not _is_alias(m.id)]
    return max(pool, key=lambda m: collation_key(m.id))


def parse_model_pattern(
    pattern: str, models: Sequence[Model], *, allow_invalid_thinking_fallback: bool = True
) -> ResolveCliModelResult:
    """Match ``pattern``; if it fails, split a ``:<thinking>`` suffix off and try again."""
    exact = _try_match(pattern, models)
    if exact:
        return ResolveCliModelResult(exact)
    if ":" not in pattern:
        return ResolveCliModelResult()
    prefix, _, suffix = pattern.rpartition(":")
    if suffix in THINKING_LEVELS:
        inner = parse_model_pattern(prefix, models, allow_invalid_thinking_fallback=allow_invalid_thinking_fallback)
        if inner.model:
            return ResolveCliModelResult(inner.model, None if inner.warning else suffix, inner.warning)
        return inner
    if not allow_invalid_thinking_fallback:
        return ResolveCliModelResult()
    inner = parse_model_pattern(prefix, models, allow_invalid_thinking_fallback=True)
    if inner.model:
        return ResolveCliModelResult(
            inner.model,
            None,
            f'Invalid thinking level "{suffix}" in pattern "{pattern}". Using default instead.',
        )
    return inner


def _fallback_model(provider: str, model_id: str, models: Sequence[Model]) -> Model | None:
    provider_models = [m for m in models if m.provider == provider]
    if not provider_models:
        return None
    default_id = DEFAULT_MODEL_PER_PROVIDER.get(provider)
    base = next((m for m in provider_models if m.id == default_id), provider_models[0])
    return msgspec.structs.replace(base, id=model_id, name=model_id)


def resolve_cli_model(
    *,
    provider: str | None,
    model: str | None,
    thinking: str | None,
    models: Sequence[Model],
    has_auth: Callable[[str], bool],
) -> ResolveCliModelResult:
    """Pi's ``resolveCliModel``: every known model is a candidate, with or without auth."""
    if not model:
        return ResolveCliModelResult()
    if not models:
        return ResolveCliModelResult(
            error="No models available. Check your installation or add models to models.json."
        )
    providers = {m.provider.lower(): m.provider for m in models}
    model = canonical_reference(model)  # a renamed provider's old id names it still
    canonical_provider = providers.get(current_provider_id(provider).lower()) if provider else None
    if provider and not canonical_provider:
        return ResolveCliModelResult(
            error=f'Unknown provider "{provider}". Use --list-models to see available providers/models.'
        )
    pattern = model
    inferred = False
    if not canonical_provider and "/" in model:
        maybe = providers.get(model.split("/", 1)[0].lower())
        if maybe:
            canonical_provider = maybe
            pattern = model.split("/", 1)[1]
            inferred = True
    if not canonical_provider:
        lowered = model.lower()
        exact = [m for m in models if m.id.lower() == lowered or f"{m.provider}/{m.id}".lower() == lowered]
        if len(exact) == 1:
            return ResolveCliModelResult(exact[0])
        if len(exact) > 1:
            authenticated = [m for m in exact if has_auth(m.provider)]
            if len(authenticated) == 1:
                return ResolveCliModelResult(authenticated[0])
            names = ", ".join(sorted((f"{m.provider}/{m.id}" for m in exact), key=collation_key))
            hint = (
                "No matching provider is authenticated."
                if not authenticated
                else "More than one matching provider is authenticated."
            )
            return ResolveCliModelResult(
                error=f'Model "{model}" is ambiguous across providers: {names}. {hint} Use --provider or provider/model.'
            )
    if provider and canonical_provider and model.lower().startswith(f"{canonical_provider}/".lower()):
        pattern = model[len(canonical_provider) + 1 :]
    candidates = [m for m in models if m.provider == canonical_provider] if canonical_provider else list(models)
    found = parse_model_pattern(pattern, candidates, allow_invalid_thinking_fallback=False)
    if found.model:
        if inferred and not has_auth(found.model.provider):
            raw = [m for m in models if m.id.lower() == model.lower() and not _same(m, found.model)]
            authenticated = [m for m in raw if has_auth(m.provider)]
            if len(authenticated) == 1:
                return ResolveCliModelResult(authenticated[0])
        return found
    if inferred:
        lowered = model.lower()
        exact_any = next(
            (m for m in models if m.id.lower() == lowered or f"{m.provider}/{m.id}".lower() == lowered), None
        )
        if exact_any:
            return ResolveCliModelResult(exact_any)
        fallback = parse_model_pattern(model, models, allow_invalid_thinking_fallback=False)
        if fallback.model:
            return fallback
    if canonical_provider:
        fallback_pattern = pattern
        fallback_thinking: str | None = None
        if not thinking and ":" in pattern:
            prefix, _, suffix = pattern.rpartition(":")
            if suffix in THINKING_LEVELS:
                fallback_pattern, fallback_thinking = prefix, suffix
        custom = _fallback_model(canonical_provider, fallback_pattern, models)
        if custom:
            requested = thinking or fallback_thinking
            if requested and requested != "off":
                custom = msgspec.structs.replace(custom, reasoning=True)
            note = f'Model "{fallback_pattern}" not found for provider "{canonical_provider}". Using custom model id.'
            return ResolveCliModelResult(
                custom, fallback_thinking, f"{found.warning} {note}" if found.warning else note
            )
    shown = f"{canonical_provider}/{pattern}" if canonical_provider else model
    return ResolveCliModelResult(
        warning=found.warning, error=f'Model "{shown}" not found. Use --list-models to see available models.'
    )


def default_available_model(available: Sequence[Model]) -> Model | None:
    """The first provider default (in Pi's table order) that is available, else the first model."""
    for provider, model_id in DEFAULT_MODEL_PER_PROVIDER.items():
        for candidate in available:
            if candidate.provider == provider and candidate.id == model_id:
                return candidate
    return available[0] if available else None
