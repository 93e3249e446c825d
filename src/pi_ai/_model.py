"""Model descriptions, thinking levels and cost accounting."""

from __future__ import annotations

from typing import Any, Literal, Protocol, TypeAlias, get_args

import msgspec

from pi_ai._messages import Usage, UsageCost

ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = get_args(ThinkingLevel)
"""All levels, weakest first: the one list every layer uses (``ReasoningLevel`` is the same
without ``"off"``, checked by ``tests/pi_ai/core/test_model_and_cost.py``)."""

InputModality: TypeAlias = Literal["text", "image"]


class _ModelStruct(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    """Model data is user-editable (models.json): unknown keys are ignored, not refused."""


class CostTier(_ModelStruct, kw_only=True):
    """Prices that apply to a whole request once its prompt exceeds ``input_tokens_above``."""

    input_tokens_above: int
    input: float
    output: float
    cache_read: float = 0
    cache_write: float = 0


class ModelCost(_ModelStruct, kw_only=True):
    """Dollars per million tokens."""

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    tiers: list[CostTier] | None = None


class _FrozenModelStruct(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, rename="camel"):
    """Model data that is never changed in place (merging builds a new value)."""


class ImageResize(_FrozenModelStruct, frozen=True):
    """How a new image is shrunk before it enters the conversation (Pi 1.6 ``inputLimits.images.resize``)."""

    max_width: int | None = None
    max_height: int | None = None
    max_bytes: int | None = None
    """Largest base64 payload, in bytes."""
    jpeg_quality: int | None = None


class ImageInputLimits(_FrozenModelStruct, frozen=True):
    resize: ImageResize | None = None
    max_per_message: int | None = None
    max_per_request: int | None = None


class InputLimits(_FrozenModelStruct, frozen=True):
    """What the provider accepts in one request (Pi 1.6 ``inputLimits``)."""

    max_request_bytes: int | None = None
    images: ImageInputLimits | None = None


class PromptCache(_FrozenModelStruct, frozen=True):
    """Best-effort lifetimes, in seconds, of the short and long prompt-cache retention tiers."""

    short: float | None = None
    long: float | None = None


def _free() -> ModelCost:
    return ModelCost()


def _text_and_image() -> list[InputModality]:
    return ["text", "image"]


class Model(_ModelStruct, kw_only=True):
    """One model of one provider, and how to reach it."""

    id: str
    """Model id sent on the wire."""
    name: str
    api: str
    """Which wire API implementation handles requests (``anthropic-messages``, ...)."""
    provider: str
    base_url: str
    reasoning: bool = False
    thinking_level_map: dict[str, str | None] | None = None
    """Level -> provider-native value; ``None`` marks a level the model does not support."""
    input: list[InputModality] = msgspec.field(default_factory=_text_and_image)
    cost: ModelCost = msgspec.field(default_factory=_free)
    context_window: int = 128000
    max_tokens: int = 16384
    input_limits: InputLimits | None = None
    prompt_cache: PromptCache | None = None
    sampling_params: dict[str, Any] | None = None
    sampling_params_by_thinking_level: dict[str, dict[str, Any]] | None = None
    """Extra body fields per thinking level, merged over ``sampling_params`` (Pi 1.6)."""
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    type: str = "chat"
    """Pi 1.6's model kind; the catalog holds chat models only."""
    lab: str | None = None
    """Radius gateway metadata (the model's maker, whether the gateway enables it, the
    upstream providers, free of charge), kept as the gateway gives it."""
    enabled: bool | None = None
    providers: list[dict[str, Any]] | None = None
    free: bool | None = None


def models_are_equal(a: Model | None, b: Model | None) -> bool:
    """Pi compares models by provider and id only."""
    return a is not None and b is not None and a.id == b.id and a.provider == b.provider


def get_supported_thinking_levels(model: Model) -> list[ThinkingLevel]:
    """Levels the model accepts. ``xhigh`` and ``max`` exist only when explicitly mapped."""
    if not model.reasoning:
        return ["off"]
    mapping = model.thinking_level_map or {}
    levels: list[ThinkingLevel] = []
    for level in THINKING_LEVELS:
        if level in ("xhigh", "max"):
            if isinstance(mapping.get(level), str):
                levels.append(level)
        elif level not in mapping or mapping[level] is not None:
            levels.append(level)
    return levels


def clamp_thinking_level(model: Model, level: ThinkingLevel) -> ThinkingLevel:
    """Nearest supported level: first searching stronger levels, then weaker ones."""
    supported = get_supported_thinking_levels(model)
    if level in supported:
        return level
    index = THINKING_LEVELS.index(level)
    for candidate in THINKING_LEVELS[index + 1 :]:
        if candidate in supported:
            return candidate
    for candidate in reversed(THINKING_LEVELS[:index]):
        if candidate in supported:
            return candidate
    return supported[0] if supported else "off"


def whole_as_int(value: float) -> int | float:
    """Whole floats become ints so JSON reads ``0`` like JavaScript writes it, not ``0.0``."""
    return int(value) if float(value).is_integer() else value


class Priced(Protocol):
    """Anything with catalog prices (chat, image and classifier models)."""

    @property
    def cost(self) -> ModelCost: ...


def calculate_cost(model: Priced, usage: Usage) -> UsageCost:
    """Fill ``usage.cost`` from the model's prices and return it.

    A price tier applies to the whole request when prompt tokens (input plus cache reads and
    writes) exceed its threshold; the highest such tier wins. One-hour cache writes are
    billed at twice the base input price.
    """
    rates: ModelCost | CostTier = model.cost
    prompt_tokens = usage.input + usage.cache_read + usage.cache_write
    best_threshold = -1
    for tier in model.cost.tiers or ():
        if prompt_tokens > tier.input_tokens_above and tier.input_tokens_above > best_threshold:
            rates = tier
            best_threshold = tier.input_tokens_above
    one_hour = usage.cache_write_1h if isinstance(usage.cache_write_1h, int) else 0
    cost = usage.cost
    cost.input = whole_as_int(rates.input / 1e6 * usage.input)
    cost.output = whole_as_int(rates.output / 1e6 * usage.output)
    cost.cache_read = whole_as_int(rates.cache_read / 1e6 * usage.cache_read)
    cost.cache_write = whole_as_int(
        (rates.cache_write * (usage.cache_write - one_hour) + rates.input * 2 * one_hour) / 1e6
    )
    cost.total = whole_as_int(cost.input + cost.output + cost.cache_read + cost.cache_write)
    cost.total_from_provider = False  # Pi 1.6 marks a catalog-priced total
    return cost
