"""The ``openai-decisions`` and ``cloudflare-workers-ai-system-one`` classifier APIs against
services on 127.0.0.1 (``tests/support/model_services.py``): the Decisions request (state as
JSON text, or a user message with ``input_image`` parts; ``choice``/``score``/``predicate``
questions), answers by name, a refusal failing the call with its usage kept, a 504 failing at
once; Workers AI's ``/run`` with the envelope unwrapped (a model's own output and a run
record), its ``success: false`` error, and the image form guessed from the model id."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

import pi_ai
from pi_ai.api._http import close_clients
from tests.support.model_services import PNG, ModelServices

QUESTIONS = {
    "mood": {"type": "choice", "instructions": "Mood?", "criteria": {"glad": "Pleased", "sad": ""}},
    "level": {"type": "score", "instructions": "Urgency?", "criteria": ["low", "high"]},
    "spam": {"type": "bool", "instructions": "Spam?", "criteria": {"true": "Unsolicited", "false": ""}},
}
IMAGE = {"type": "image", "data": PNG, "mimeType": "image/png"}


@pytest.fixture
def services() -> Iterator[ModelServices]:
    with ModelServices() as running:
        yield running


def _model(services: ModelServices, provider: str, model_id: str, **changes: Any) -> pi_ai.ClassifierModel:
    model = pi_ai.get_classifier_model(provider, model_id)
    assert model is not None
    return msgspec.structs.replace(model, base_url=f"{services.base_url}/x/", **changes)


async def _classify(model: pi_ai.ClassifierModel, context: dict[str, Any]) -> pi_ai.AssistantClassification:
    result = await pi_ai.classify(model, context, pi_ai.ImagesOptions(api_key="k", max_retries=2))
    await close_clients()
    return result


async def test_decisions_request_and_answers(services: ModelServices) -> None:
    result = await _classify(
        _model(services, "openai", "gpt-6-luna"), {"state": {"a": 1, "b": "é"}, "questions": QUESTIONS}
    )
    assert result.stop_reason == "stop", result.error_message
    assert result.answers == {
        "mood": {
            "type": "choice",
            "choice": "glad",
            "probabilities": {"glad": 0.5, "sad": 0.5},
            "confidence": 0.75,
        },
        "level": {"type": "score", "score": 0.5, "confidence": 0.5},
        "spam": {"type": "bool", "probability": 0.25},
    }
    assert result.usage is not None and result.usage.cost.input == pytest.approx(200 * 0.1 / 1e6)
    (request,) = services.requests
    assert request["path"] == "/x/decisions"
    assert request["body"] == {
        "model": "gpt-6-luna",
        "input": '{"a":1,"b":"é"}',
        "questions": [
            {"type": "choice", "name": "mood", "instructions": "Mood?", "choices": [{"value": "glad", "description": "Pleased"}, {"value": "sad"}]},
            {"type": "score", "name": "level", "instructions": "Urgency?", "levels": [{"label": "low"}, {"label": "high"}]},
            {"type": "predicate", "name": "spam", "instructions": "Spam?\n\nTrue means: Unsolicited"},
        ],
    }  # fmt: skip


async def test_decisions_with_images_is_one_user_message(services: ModelServices) -> None:
    context = {"state": {"page": 1}, "images": [IMAGE], "questions": {"spam": QUESTIONS["spam"]}}
    result = await _classify(_model(services, "openai", "gpt-6-luna"), context)
    assert result.stop_reason == "stop", result.error_message
    assert services.requests[0]["body"]["input"] == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": '{"page":1}'},
                {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
            ],
        }
    ]


@pytest.mark.parametrize(
    ("note", "message", "requests"),
    [
        ("refuse", "OpenAI Decisions refused to answer mood", 1),
        ("fail", 'OpenAI Decisions error (400): {"error": {"message": "the input was refused"', 1),
        ("slow", "OpenAI Decisions error (504): the gateway gave up waiting", 1),  # never retried
    ],
)
async def test_decisions_failures(services: ModelServices, note: str, message: str, requests: int) -> None:
    result = await _classify(
        _model(services, "openai", "gpt-6-luna"), {"state": {"note": note}, "questions": QUESTIONS}
    )
    assert (result.stop_reason, result.answers) == ("error", {})
    assert result.error_message is not None and result.error_message.startswith(message), result.error_message
    assert len(services.requests) == requests
    assert (result.usage is not None) == (note == "refuse")  # a refused answer was billed


@pytest.mark.parametrize(
    ("model_id", "images_field"),
    [("@cf/cloudflare/clef", "images"), ("typesafe/jev", "assets")],
)
async def test_workers_ai_unwraps_the_envelope(
    services: ModelServices, model_id: str, images_field: str
) -> None:
    model = _model(services, "cloudflare-workers-ai", model_id, compat=None)  # the form guessed from the id
    result = await _classify(model, {"state": {"m": 1}, "images": [IMAGE], "questions": QUESTIONS})
    assert result.stop_reason == "stop", result.error_message
    assert result.answers["spam"] == {"type": "bool", "probability": 0.25}
    assert result.usage is not None and result.usage.input == 120
    (request,) = services.requests
    assert request["path"] == "/x/run" and request["body"]["model"] == model_id
    assert images_field in request["body"]["input"]
    assert "typesafe-danger-zone-images" not in request["headers"]


async def test_workers_ai_envelope_error(services: ModelServices) -> None:
    result = await _classify(
        _model(services, "cloudflare-workers-ai", "typesafe/jev"),
        {"state": {"fail": 1}, "questions": QUESTIONS},
    )
    assert (result.stop_reason, result.error_message) == (
        "error",
        "Cloudflare Workers AI error: the input was refused",
    )
