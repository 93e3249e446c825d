"""The model catalog: Pi 0.85's built-in models, optionally overlaid with user model data.

``get_model(provider, id)``, ``get_models(provider)`` and ``get_providers()`` read the
built-in catalog (``catalog.json``, generated from Pi's data by ``tools/gen_catalog.py``), as
pi-ai's functions of the same names do; ``get_provider_info`` gives a built-in provider's
display name and the names of its sign-in methods (``providers.json``, from the same run).
``ModelRegistry(overlay)`` composes the catalog with already-parsed data in Pi's ``models.json`` format; finding and reading that file is the
coding agent's business (``pi_coding_agent.core.model_registry``), never this package's:

- a provider entry with ``models`` adds models (or replaces built-in ones with the same id);
  ``api`` and ``baseUrl`` come from the model, else the provider, else a built-in sibling;
  missing fields default to Pi's (name = id, text input, 128 000 context, 16 384 output
  tokens, zero cost, no reasoning);
- ``baseUrl`` and ``compat`` on a provider apply to all its models (``compat`` merges, with
  the nested routing/template objects merged one level deeper);
- ``modelOverrides`` patch single models (partial cost, merged ``thinkingLevelMap``,
  ``samplingParams`` and ``compat``).

``apiKey``, ``headers`` and ``authHeader`` are credentials, resolved at request time by the
caller (``ModelRegistry.provider_config`` returns them raw). The catalog is loaded on first
use, never at ``import pi_ai``. Bad overlay data does not hide the built-in models:
``ModelRegistry.error`` says what is wrong.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from pi_ai._model import (
    CostTier,
    ImageInputLimits,
    InputLimits,
    Model,
    ModelCost,
    PromptCache,
)
from pi_ai._provider_ids import LEGACY_PROVIDER_IDS, canonical_provider

__all__ = [
    "ModelRegistry",
    "ProviderInfo",
    "builtin_provider_infos",
    "get_model",
    "get_models",
    "get_provider_info",
    "get_providers",
]

_CATALOG = Path(__file__).with_name("catalog.json")


class _Catalog(msgspec.Struct):
    generatedAt: str
    providers: dict[str, list[msgspec.Raw]]


class _ModelId(msgspec.Struct):
    id: str


_MODEL = msgspec.json.Decoder(Model)
_MODEL_ID = msgspec.json.Decoder(_ModelId)


@functools.cache
def _builtin() -> dict[str, list[msgspec.Raw]]:
    """Each provider's models as their undecoded JSON text.

    Decoding happens per model, when asked for: each answer is a fresh ``Model`` (callers may
    change it), and looking up one model costs one provider's index, not the whole catalog.
    """
    return msgspec.json.decode(_CATALOG.read_bytes(), type=_Catalog).providers


@functools.cache
def _index(provider: str) -> dict[str, msgspec.Raw]:
    return {_MODEL_ID.decode(raw).id: raw for raw in _builtin().get(provider, ())}


def get_providers() -> list[str]:
    """Providers of Pi's built-in catalog, in Pi's order."""
    return list(_builtin())


def get_models(provider: str) -> list[Model]:
    """The provider's built-in models (a renamed provider's old id names it too)."""
    return [_MODEL.decode(raw) for raw in _builtin().get(canonical_provider(provider), ())]


def get_model(provider: str, model_id: str) -> Model | None:
    """A copy of the built-in model, as Pi's ``getModel`` (compat) resolves ``provider/id``."""
    raw = _index(canonical_provider(provider)).get(model_id)
    return _MODEL.decode(raw) if raw is not None else None


class ProviderInfo(msgspec.Struct, frozen=True, rename="camel"):
    """A built-in provider as Pi lists it: ``name`` ("Anthropic"), and the display names of its
    API-key sign-in (``api_key``: "Anthropic API key") and subscription sign-in (``oauth``:
    "Anthropic (Claude Pro/Max)"), ``None`` when it has none."""

    name: str
    api_key: str | None = None
    oauth: str | None = None


@functools.cache
def _provider_infos() -> dict[str, ProviderInfo]:
    path = _CATALOG.with_name("providers.json")
    return msgspec.json.decode(path.read_bytes(), type=dict[str, ProviderInfo])


def get_provider_info(provider: str) -> ProviderInfo | None:
    """Pi's description of a built-in provider (all of Pi's, also those without models here)."""
    return _provider_infos().get(provider)


def builtin_provider_infos() -> dict[str, ProviderInfo]:
    """Every built-in provider Pi registers, in Pi's order."""
    return dict(_provider_infos())


# --------------------------------------------------------------------------- models.json


class _ModelDefinition(msgspec.Struct, rename="camel", kw_only=True):
    id: str
    name: str | None = None
    api: str | None = None
    base_url: str | None = None
    reasoning: bool | None = None
    thinking_level_map: dict[str, str | None] | None = None
    input: list[str] | None = None
    input_limits: InputLimits | None = None
    cost: ModelCost | None = None
    prompt_cache: PromptCache | None = None
    context_window: float | None = None
    max_tokens: float | None = None
    sampling_params: dict[str, Any] | None = None
    sampling_params_by_thinking_level: dict[str, dict[str, Any]] | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None


class _CostOverride(msgspec.Struct, rename="camel", kw_only=True):
    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None
    tiers: list[CostTier] | None = None


class _ModelOverride(msgspec.Struct, rename="camel", kw_only=True):
    name: str | None = None
    reasoning: bool | None = None
    thinking_level_map: dict[str, str | None] | None = None
    input: list[str] | None = None
    input_limits: InputLimits | None = None
    cost: _CostOverride | None = None
    prompt_cache: PromptCache | None = None
    context_window: float | None = None
    max_tokens: float | None = None
    sampling_params: dict[str, Any] | None = None
    sampling_params_by_thinking_level: dict[str, dict[str, Any]] | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None


class ProviderConfig(msgspec.Struct, rename="camel", kw_only=True):
    """One ``providers`` entry of ``models.json`` (credentials left unresolved)."""

    name: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    api: str | None = None
    oauth: str | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    auth_header: bool | None = None
    models: list[_ModelDefinition] | None = None
    model_overrides: dict[str, _ModelOverride] | None = None


def _merge_compat(base: dict[str, Any] | None, override: dict[str, Any] | None) -> dict[str, Any] | None:
    if not override:
        return base
    merged = {**(base or {}), **override}
    for key in ("openRouterRouting", "vercelGatewayRouting", "chatTemplateKwargs", "chatTemplateArgs"):
        base_value = (base or {}).get(key)
        override_value = override.get(key)
        if isinstance(base_value, dict) or isinstance(override_value, dict):
            merged[key] = {
                **(base_value if isinstance(base_value, dict) else {}),
                **(override_value if isinstance(override_value, dict) else {}),
            }
    return merged


def _merge_input_limits(base: InputLimits | None, override: InputLimits | None) -> InputLimits | None:
    """Field by field, ``images`` and its ``resize`` one level deeper each (Pi 1.6)."""
    if override is None:
        return base
    base = base or InputLimits()
    images = base.images
    if override.images is not None:
        base_images = base.images or ImageInputLimits()
        resize = override.images.resize
        if resize is not None and base_images.resize is not None:
            resize = msgspec.structs.replace(base_images.resize, **_given(resize))
        images = msgspec.structs.replace(
            base_images, **{**_given(override.images), "resize": resize or base_images.resize}
        )
    return msgspec.structs.replace(base, **{**_given(override), "images": images})


def _given(struct: msgspec.Struct) -> dict[str, Any]:
    """The fields ``struct`` sets (those not left ``None``)."""
    return {
        field: value for field in struct.__struct_fields__ if (value := getattr(struct, field)) is not None
    }


def _merge_prompt_cache(base: PromptCache | None, override: PromptCache | None) -> PromptCache | None:
    if override is None:
        return base
    return msgspec.structs.replace(base or PromptCache(), **_given(override))


def _merge_params_by_level(
    base: dict[str, dict[str, Any]] | None, override: dict[str, dict[str, Any]] | None
) -> dict[str, dict[str, Any]] | None:
    """Each level's parameters merged over the model's for that level (Pi 1.6)."""
    if override is None:
        return base
    merged = dict(base or {})
    for level, params in override.items():
        if params:
            merged[level] = {**merged.get(level, {}), **params}
    return merged


def _js_int(value: float) -> int:
    return int(value) if float(value).is_integer() else value  # type: ignore[return-value]


def _from_definition(
    provider: str, definition: _ModelDefinition, config: ProviderConfig, defaults: Model | None
) -> Model:
    api = definition.api or config.api or (defaults.api if defaults else None)
    if not api:
        raise ValueError(
            f'Provider {provider}, model {definition.id}: no "api" specified. Set at provider or model level.'
        )
    base_url = definition.base_url or config.base_url or (defaults.base_url if defaults else None)
    if not base_url:
        raise ValueError(f'Provider {provider}: "baseUrl" is required when defining custom models.')
    if definition.context_window is not None and definition.context_window <= 0:
        raise ValueError(f"Provider {provider}, model {definition.id}: invalid contextWindow")
    if definition.max_tokens is not None and definition.max_tokens <= 0:
        raise ValueError(f"Provider {provider}, model {definition.id}: invalid maxTokens")
    return Model(
        id=definition.id,
        name=definition.name or definition.id,
        api=api,
        provider=provider,
        base_url=base_url,
        reasoning=bool(definition.reasoning),
        thinking_level_map=definition.thinking_level_map,
        input=list(definition.input or ["text"]),  # type: ignore[arg-type]
        input_limits=definition.input_limits,
        cost=definition.cost or ModelCost(),
        prompt_cache=definition.prompt_cache,
        context_window=_js_int(definition.context_window)
        if definition.context_window is not None
        else 128000,
        max_tokens=_js_int(definition.max_tokens) if definition.max_tokens is not None else 16384,
        sampling_params=definition.sampling_params,
        sampling_params_by_thinking_level=dict(definition.sampling_params_by_thinking_level)
        if definition.sampling_params_by_thinking_level is not None
        else None,
        compat=_merge_compat(config.compat, definition.compat),
    )


def _defaults_for(models: list[Model], model_id: str, api: str | None) -> Model | None:
    for candidate in models:
        if candidate.id == model_id:
            return candidate
    for wanted in (api, "openai-completions"):
        if wanted:
            for candidate in models:
                if candidate.api == wanted:
                    return candidate
    return models[0] if models else None


def _apply_override(model: Model, override: _ModelOverride) -> Model:
    cost = model.cost
    if override.cost is not None:
        patch = override.cost
        cost = ModelCost(
            input=patch.input if patch.input is not None else cost.input,
            output=patch.output if patch.output is not None else cost.output,
            cache_read=patch.cache_read if patch.cache_read is not None else cost.cache_read,
            cache_write=patch.cache_write if patch.cache_write is not None else cost.cache_write,
            tiers=patch.tiers if patch.tiers is not None else cost.tiers,
        )
    return msgspec.structs.replace(
        model,
        name=override.name or model.name,
        reasoning=model.reasoning if override.reasoning is None else override.reasoning,
        thinking_level_map=(
            {**(model.thinking_level_map or {}), **override.thinking_level_map}
            if override.thinking_level_map
            else model.thinking_level_map
        ),
        input=list(override.input) if override.input is not None else model.input,
        input_limits=_merge_input_limits(model.input_limits, override.input_limits),
        cost=cost,
        prompt_cache=_merge_prompt_cache(model.prompt_cache, override.prompt_cache),
        context_window=_js_int(override.context_window)
        if override.context_window is not None
        else model.context_window,
        max_tokens=_js_int(override.max_tokens) if override.max_tokens is not None else model.max_tokens,
        sampling_params=(
            {**(model.sampling_params or {}), **override.sampling_params}
            if override.sampling_params
            else model.sampling_params
        ),
        sampling_params_by_thinking_level=_merge_params_by_level(
            model.sampling_params_by_thinking_level, override.sampling_params_by_thinking_level
        ),
        compat=_merge_compat(model.compat, override.compat),
    )


def _compose(provider: str, base: list[Model], config: ProviderConfig) -> list[Model]:
    has_overrides = bool(config.model_overrides)
    if not (
        config.models
        or config.base_url
        or config.headers
        or config.compat
        or has_overrides
        or config.api_key
        or config.oauth
        or config.auth_header is not None
    ):
        raise ValueError(
            f'Provider {provider}: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".'
        )
    if config.oauth and not config.base_url:
        raise ValueError(f'Provider {provider}: "baseUrl" is required when "oauth" is set.')
    models = [
        msgspec.structs.replace(
            model,
            base_url=model.base_url if config.oauth == "radius" else (config.base_url or model.base_url),
            compat=_merge_compat(model.compat, config.compat),
        )
        for model in base
    ]
    for definition in config.models or ():
        defaults = _defaults_for(models, definition.id, definition.api or config.api)
        model = _from_definition(provider, definition, config, defaults)
        for index, existing in enumerate(models):
            if existing.id == definition.id:
                models[index] = model
                break
        else:
            models.append(model)
    overrides = config.model_overrides or {}
    return [
        _apply_override(model, overrides[model.id]) if model.id in overrides else model for model in models
    ]


def _renamed_providers(providers: dict[str, Any]) -> dict[str, Any]:
    """Entries under a renamed provider's old id apply to the provider (an entry under the
    current id wins when a file has both)."""
    renamed = dict(providers)
    for old, new in LEGACY_PROVIDER_IDS.items():
        if old in renamed:
            entry = renamed.pop(old)
            renamed.setdefault(new, entry)
    return renamed


def _validate(parsed: Any) -> tuple[dict[str, ProviderConfig], str | None]:
    """Typed provider entries, or the first problem as ``path: reason``."""
    if not isinstance(parsed, dict) or not isinstance(parsed.get("providers"), dict):
        return {}, "providers: Expected an object of providers"
    configs: dict[str, ProviderConfig] = {}
    for name, raw in _renamed_providers(parsed["providers"]).items():
        try:
            configs[name] = msgspec.convert(raw, ProviderConfig)
        except msgspec.ValidationError as error:
            reason, found, where = str(error).partition(" - at `$")
            return {}, f"providers.{name}{where.rstrip('`') if found else ''}: {reason}"
    return configs, None


class ModelRegistry:
    """The built-in models composed with one snapshot of ``models.json`` data.

    ``overlay`` is the parsed JSON (``{"providers": {...}}``); ``None`` means the built-in
    models alone. ``dynamic`` gives the models of providers whose catalog comes from their
    gateway (Radius's, kept in the coding agent's ``models-store.json``): they stand in for
    the built-in models of that provider, and ``models.json`` applies above them as usual.
    """

    def __init__(self, overlay: Any = None, dynamic: Mapping[str, list[Model]] | None = None) -> None:
        self.error: str | None = None
        """Why the overlay (or part of it) was not applied; None when all is well."""
        self._configs: dict[str, ProviderConfig] = {}
        self._dynamic = {provider: list(models) for provider, models in (dynamic or {}).items()}
        self._models: dict[str, list[Model]] = dict(self._dynamic)
        if overlay is not None:
            self._apply(overlay)

    def _apply(self, overlay: Any) -> None:
        configs, problem = _validate(overlay)
        if problem is not None:
            self.error = f"Invalid models.json schema:\n  - {problem}"
            return
        self._configs = configs
        problems: list[str] = []
        for provider, config in configs.items():
            try:
                base = self._dynamic.get(provider) or get_models(provider)
                self._models[provider] = _compose(provider, base, config)
            except ValueError as error:
                problems.append(str(error))
        if problems:
            self.error = "\n".join(problems)

    def providers(self) -> list[str]:
        names = get_providers()
        names += [name for name in self._models if name not in names]
        return names

    def models(self, provider: str) -> list[Model]:
        provider = canonical_provider(provider)
        if provider in self._models:
            return list(self._models[provider])
        return get_models(provider)

    def model(self, provider: str, model_id: str) -> Model | None:
        provider = canonical_provider(provider)
        if provider not in self._models:
            return get_model(provider, model_id)
        for model in self._models[provider]:
            if model.id == model_id:
                return model
        return None

    def provider_config(self, provider: str) -> ProviderConfig | None:
        """The raw ``models.json`` entry (``apiKey``/``headers`` unresolved), if any."""
        return self._configs.get(canonical_provider(provider))
