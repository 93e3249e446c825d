"""Cost accounting and thinking-level helpers follow Pi's arithmetic and rules."""

from __future__ import annotations

import pytest

from pi_ai import (
    CostTier,
    Model,
    ModelCost,
    Usage,
    calculate_cost,
    clamp_thinking_level,
    get_supported_thinking_levels,
    models_are_equal,
)


def _model(**overrides: object) -> Model:
    fields: dict[str, object] = {
        "id": "m",
        "name": "M",
        "api": "anthropic-messages",
        "provider": "anthropic",
        "base_url": "https://api.anthropic.com",
    }
    fields.update(overrides)
    return Model(**fields)  # type: ignore[arg-type]


def test_cost_with_one_hour_cache_writes() -> None:
    model = _model(cost=ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75))
    usage = Usage(input=1000, output=1000, cache_read=1000, cache_write=1000, cache_write_1h=400)
    cost = calculate_cost(model, usage)
    assert cost is usage.cost
    assert cost.input == pytest.approx(0.003)
    assert cost.output == pytest.approx(0.015)
    assert cost.cache_read == pytest.approx(0.0003)
    assert cost.cache_write == pytest.approx(0.00465)
    assert cost.total == pytest.approx(0.003 + 0.015 + 0.0003 + 0.00465)


def test_highest_matching_tier_applies_to_the_whole_request() -> None:
    tiers = [
        CostTier(input_tokens_above=200_000, input=6, output=22.5),
        CostTier(input_tokens_above=100_000, input=4, output=20),
    ]
    model = _model(cost=ModelCost(input=3, output=15, tiers=tiers))
    small = calculate_cost(model, Usage(input=50_000, output=10))
    medium = calculate_cost(model, Usage(input=150_000, output=10))
    large = calculate_cost(model, Usage(input=199_000, cache_read=2_000, output=10))
    assert small.input == pytest.approx(0.15)
    assert medium.input == pytest.approx(0.6)
    assert large.input == pytest.approx(199_000 * 6 / 1e6)


def test_zero_costs_are_written_as_integers() -> None:
    usage = Usage(input=10, output=5)
    calculate_cost(_model(), usage)
    assert all(isinstance(value, int) for value in (usage.cost.input, usage.cost.total))


def test_non_reasoning_model_supports_only_off() -> None:
    assert get_supported_thinking_levels(_model(reasoning=False)) == ["off"]
    assert clamp_thinking_level(_model(reasoning=False), "high") == "off"


def test_unmapped_reasoning_model_supports_up_to_high() -> None:
    assert get_supported_thinking_levels(_model(reasoning=True)) == [
        "off",
        "minimal",
        "low",
        "medium",
        "high",
    ]


def test_levels_follow_the_map() -> None:
    gemini = _model(
        reasoning=True,
        thinking_level_map={"off": None, "minimal": None, "low": "LOW", "medium": None, "high": "HIGH"},
    )
    assert get_supported_thinking_levels(gemini) == ["low", "high"]
    assert [clamp_thinking_level(gemini, level) for level in ("minimal", "medium", "xhigh", "off")] == [
        "low",
        "high",
        "high",
        "low",
    ]
    opus = _model(reasoning=True, thinking_level_map={"xhigh": "xhigh", "max": "max"})
    assert get_supported_thinking_levels(opus)[-2:] == ["xhigh", "max"]


def test_models_compare_by_provider_and_id() -> None:
    assert models_are_equal(_model(), _model(name="other name", reasoning=True))
    assert not models_are_equal(_model(), _model(provider="openai"))
    assert not models_are_equal(_model(), None)


def test_thinking_levels_are_pis_and_reasoning_levels_are_the_same_without_off() -> None:
    from typing import get_args

    from pi_ai import THINKING_LEVELS, ReasoningLevel

    assert THINKING_LEVELS == ("off", "minimal", "low", "medium", "high", "xhigh", "max")
    assert get_args(ReasoningLevel) == THINKING_LEVELS[1:]
