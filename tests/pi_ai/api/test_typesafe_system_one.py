"""The ``typesafe-system-one`` classifier API against a System One service on 127.0.0.1
(``tests/support/model_services.py``): the request (path, bearer key, ``bool`` as ``noul``),
the answers and priced usage, the three image forms (TypeSafe's ``assets`` with the opt-in
header, OpenRouter's ``image_url`` parts in the state, ``images`` data URLs), and the failures
returned as results: HTTP errors, answers of the wrong type (usage kept), images a model does
not take, no key, an API nobody implements. Also Pi 1.6's classifier catalog."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

import pi_ai
from pi_ai.api._http import close_clients
from tests.support.model_services import PNG, ModelServices

QUESTIONS = {
    "mood": {"type": "choice", "instructions": "Mood?", "criteria": {"glad": "Pleased", "sad": "Unhappy"}},
    "level": {"type": "score", "instructions": "Urgency?", "criteria": ["low", "mid", "high", "max"]},
    "spam": {"type": "bool", "instructions": "Spam?", "criteria": {"true": "yes", "false": "no"}},
}
IMAGE = {"type": "image", "data": PNG, "mimeType": "image/png"}


@pytest.fixture
def services() -> Iterator[ModelServices]:
    with ModelServices() as running:
        yield running


def _model(services: ModelServices, provider: str = "typesafe", **changes: Any) -> pi_ai.ClassifierModel:
    model = pi_ai.get_classifier_model("typesafe", "jev-latest")
    assert model is not None
    return msgspec.structs.replace(
        model, provider=provider, base_url=f"{services.base_url}/v1/", compat=None, **changes
    )


async def _classify(
    model: pi_ai.ClassifierModel, context: dict[str, Any], key: str | None = "k"
) -> pi_ai.AssistantClassification:
    result = await pi_ai.classify(model, context, pi_ai.ImagesOptions(api_key=key))
    await close_clients()
    return result


def test_catalog_is_pi_1_6s() -> None:
    providers = pi_ai.get_classifier_providers()
    assert providers == [
        "cloudflare-workers-ai",
        "github-copilot",
        "openai",
        "opencode",
        "openrouter",
        "typesafe",
        "vercel-ai-gateway",
    ]
    assert sum(len(pi_ai.get_classifier_models(provider)) for provider in providers) == 81
    jev = pi_ai.get_classifier_model("typesafe", "jev-latest")
    assert jev is not None and jev.type == "classifier" and jev.api == "typesafe-system-one"
    assert jev.compat == {"imageInput": "assets", "sendImageOptInHeader": True}
    assert pi_ai.to_builtins(jev)["baseUrl"] == "https://api.typesafe.ai/v1/"


async def test_answers_and_usage(services: ModelServices) -> None:
    model = msgspec.structs.replace(_model(services), cost=pi_ai.ModelCost(input=2.0))
    result = await _classify(model, {"state": {"text": "hello"}, "questions": QUESTIONS})
    assert result.stop_reason == "stop", result.error_message
    assert result.answers == {
        "mood": {
            "type": "choice",
            "choice": "glad",
            "probabilities": {"glad": 0.5, "sad": 0.5},
            "confidence": 0.75,
        },
        "level": {"type": "score", "score": 1.5, "confidence": 0.5},
        "spam": {"type": "bool", "probability": 0.25},
    }
    assert result.usage is not None
    assert (result.usage.input, result.usage.output, result.usage.total_tokens) == (120, 3, 123)
    assert result.usage.cost.input == pytest.approx(120 * 2.0 / 1e6)
    (request,) = services.requests
    assert request["path"] == "/v1/systemone"
    assert request["headers"]["authorization"] == "Bearer k"
    assert request["body"] == {
        "model": "jev-latest",
        "state": {"text": "hello"},
        "questions": {**QUESTIONS, "spam": {**QUESTIONS["spam"], "type": "noul"}},
    }


@pytest.mark.parametrize(
    ("provider", "compat", "expected"),
    [
        (
            "typesafe",
            None,
            (
                ["<image-1>", {"n": 1}],
                {"assets": {"<image-1>": {"type": "image", "format": "png", "data_base64": PNG}}},
                "true",
            ),
        ),
        (
            "openrouter",
            None,
            (
                [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}, {"n": 1}],
                {},
                None,
            ),
        ),
        (
            "gateway",
            {"imageInput": "images", "sendImageOptInHeader": False},
            ({"n": 1}, {"images": [f"data:image/png;base64,{PNG}"]}, None),
        ),
    ],
)
async def test_image_forms(
    services: ModelServices, provider: str, compat: Any, expected: tuple[Any, dict[str, Any], str | None]
) -> None:
    """``expected``: the state sent, the image fields besides it, the opt-in header."""
    state, extra, opt_in = expected
    model = msgspec.structs.replace(_model(services, provider), compat=compat)
    result = await _classify(
        model, {"state": {"n": 1}, "images": [IMAGE], "questions": {"spam": QUESTIONS["spam"]}}
    )
    assert result.stop_reason == "stop", result.error_message
    (request,) = services.requests
    body = request["body"]
    assert body["state"] == state
    assert {key: body[key] for key in ("assets", "images") if key in body} == extra
    assert request["headers"].get("typesafe-danger-zone-images") == opt_in


@pytest.mark.parametrize(
    ("change", "context", "message"),
    [
        (
            {},
            {"state": {"fail": 1}},
            'System One API error (400): {"error": {"message": "the state was refused"',
        ),
        ({}, {"state": {"garble": 1}}, "System One API did not return a choice answer for mood"),
        ({"input": ["text"]}, {"state": {}, "images": [IMAGE]}, "typesafe/jev-latest takes no images"),
        (
            {},
            {"state": {}, "images": [{**IMAGE, "mimeType": "image/webp"}]},
            "jev-latest takes PNG and JPEG images, not image/webp",
        ),
        (
            {"compat": {"imageInput": "images"}},
            {"state": {}, "images": [IMAGE] * 5},
            "jev-latest takes at most 4 images, not 5",
        ),
        (
            {"api": "no-such-classifier"},
            {"state": {}},
            'No classifier implementation for api "no-such-classifier"',
        ),
    ],
)
async def test_failures_are_results(
    services: ModelServices, change: dict[str, Any], context: dict[str, Any], message: str
) -> None:
    model = msgspec.structs.replace(_model(services), **change)
    result = await _classify(model, {"questions": QUESTIONS, **context})
    assert (result.stop_reason, result.answers) == ("error", {})
    assert result.error_message is not None and result.error_message.startswith(message), result.error_message
    if "garble" in context["state"]:
        assert result.usage is not None and result.usage.input == 120  # billed all the same


async def test_no_key_is_a_result(services: ModelServices) -> None:
    result = await _classify(_model(services), {"state": {}, "questions": QUESTIONS}, key=None)
    assert (result.stop_reason, result.error_message) == ("error", "No API key for provider: typesafe")
    assert services.requests == []
