"""The ``llama-cpp-classify`` classifier API against the stand-in llama.cpp server on 127.0.0.1
(``tests/support/llama_router.py``): the requests (``/tokenize`` for each label's token, once per
server, model and label; ``/apply-template`` with thinking off; ``/completion`` for one token's
top log-probabilities, deeper while a label is missing), the answers (a softmax over the labels'
log-probabilities, with ``temperature``), what ``on_payload`` sees, the bearer key, and the
failures (images, a question out of range, an unknown model, a label never ranked, labels
without probability)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

import pi_ai
from pi_ai.api._http import close_clients
from tests.support.llama_router import LlamaRouter, llama_router

QUESTIONS = {
    "mood": {
        "type": "choice",
        "instructions": "Mood?",
        "criteria": {"glad": "Pleased", "sad": "", "angry": "Cross"},
    },
    "level": {"type": "score", "instructions": "Urgency?", "criteria": ["low", "mid", "high"]},
    "spam": {"type": "bool", "instructions": "Spam?", "criteria": {"true": "Unsolicited", "false": ""}},
}
LOGPROBS = {"A": -0.2, "B": -1.8, "C": -2.5, "0": -2.0, "1": -0.1, "2": -3.0, "Yes": -0.3, "No": -1.4}


def _softmax(values: list[float], temperature: float = 1.0) -> list[float]:
    weights = [math.exp(value / temperature) for value in values]
    return [weight / sum(weights) for weight in weights]


def _rounded(value: Any) -> Any:
    """``value`` with its floats to 12 places (the same sums in another order)."""
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    return round(value, 12) if isinstance(value, float) else value


def _peak(probabilities: list[float]) -> float:
    return (len(probabilities) * max(probabilities) - 1) / (len(probabilities) - 1)


@pytest.fixture
def router() -> Iterator[LlamaRouter]:
    with llama_router([{"id": "m", "status": {"value": "loaded"}}]) as running:
        running.logprobs = dict(LOGPROBS)
        running.ranks = {"C": 300}  # beyond the first depth (256): asked again at 4096
        yield running


def _model(router: LlamaRouter, model_id: str = "m") -> pi_ai.ClassifierModel:
    return pi_ai.ClassifierModel(
        type="classifier", id=model_id, name=model_id, api="llama-cpp-classify",
        provider="llama.cpp", base_url=f"{router.base_url}/v1/",
    )  # fmt: skip


async def _classify(
    model: pi_ai.ClassifierModel, context: dict[str, Any], **options: Any
) -> pi_ai.AssistantClassification:
    result = await pi_ai.classify(model, context, pi_ai.ImagesOptions(**options))
    await close_clients()
    return result


def _posts(router: LlamaRouter, path: str) -> list[Any]:
    return [body for method, at, body in router.requests if method == "POST" and at == path]


def _expected(temperature: float) -> dict[str, Any]:
    mood = _softmax([LOGPROBS["A"], LOGPROBS["B"], LOGPROBS["C"]], temperature)
    level = _softmax([LOGPROBS["0"], LOGPROBS["1"], LOGPROBS["2"]], temperature)
    spam = _softmax([LOGPROBS["Yes"], LOGPROBS["No"]], temperature)
    return {
        "mood": {
            "type": "choice", "choice": "glad", "confidence": _peak(mood),
            "probabilities": dict(zip(["glad", "sad", "angry"], mood, strict=True)),
        },
        "level": {"type": "score", "score": level[1] + 2 * level[2], "confidence": _peak(level)},
        "spam": {"type": "bool", "probability": spam[0]},
    }  # fmt: skip


async def test_requests_and_answers(router: LlamaRouter) -> None:
    seen: list[Any] = []
    context = {"state": {"n": 1, "t": "héllo"}, "questions": QUESTIONS}
    result = await _classify(
        _model(router), context, api_key="sk-local", on_payload=lambda body, _m: seen.append(body)
    )
    assert result.stop_reason == "stop", result.error_message
    assert (result.api, result.provider, result.model, result.usage) == (
        "llama-cpp-classify",
        "llama.cpp",
        "m",
        None,
    )
    assert _rounded(result.answers) == _rounded(_expected(1.0))
    assert all(not path.startswith("/v1") for _, path, _ in router.requests)  # the server's root
    assert router.authorization == "Bearer sk-local"

    completions = _posts(router, "/completion")
    assert [body["n_probs"] for body in completions] == [256, 4096, 256, 256]
    assert seen == completions  # only /completion is observed
    templates = _posts(router, "/apply-template")
    assert len(templates) == 3
    first = templates[0]
    assert first["chat_template_kwargs"] == {"enable_thinking": False}
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    user = first["messages"][1]["content"]
    state = 'State:\n{\n "n": 1,\n "t": "héllo"\n}'
    assert user.startswith(state + "\n\nTask: ") and user.count(state) == 2
    assert "- glad: Pleased\n- sad\n- angry: Cross" in user  # every question in the overview
    assert user.endswith(
        "Question: Mood?\n\nOptions:\nA. glad: Pleased\nB. sad\nC. angry: Cross\n\n" + _ask(user)
    )
    assert "Levels:\n0. low\n1. mid\n2. high" in templates[1]["messages"][1]["content"]
    prompt = "".join(f"<{m['role']}>{m['content']}" for m in first["messages"]) + "<assistant><think></think>"
    assert completions[0] == {
        "model": "m", "prompt": prompt, "n_predict": 1, "n_probs": 256,
        "post_sampling_probs": False, "cache_prompt": True, "temperature": 0,
    }  # fmt: skip
    tokenized = sorted(body["content"] for body in _posts(router, "/tokenize"))
    labels = ["A", "B", "C", "0", "1", "2", "Yes", "No"]
    assert tokenized == sorted(["\n"] * len(labels) + ["\n" + label for label in labels])
    assert all(
        body["add_special"] is False and body["parse_special"] is False
        for body in _posts(router, "/tokenize")
    )

    # Again, keyless, hotter: label tokens come from the cache, no authorization is sent.
    router.requests.clear()
    again = await _classify(_model(router), context, temperature=2.0)
    assert _rounded(again.answers) == _rounded(_expected(2.0))
    assert _posts(router, "/tokenize") == []
    assert router.authorization is None


def _ask(user: str) -> str:
    return user.rsplit("\n\n", 1)[1]


async def test_failures(router: LlamaRouter) -> None:
    model = _model(router)
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    one_option = {"q": {"type": "choice", "instructions": "?", "criteria": {"only": ""}}}
    bool_only = {"spam": QUESTIONS["spam"]}
    with_images = msgspec.structs.replace(model, input=["text", "image"])
    refused = [
        await _classify(model, {"state": {}, "images": [image], "questions": bool_only}),
        await _classify(with_images, {"state": {}, "images": [image], "questions": bool_only}),
        await _classify(model, {"state": {}, "questions": one_option}),
        await _classify(model, {"state": {}, "questions": bool_only}, temperature=0.0),
    ]
    assert router.requests == []  # all refused before asking the server
    assert [(r.stop_reason, r.error_message) for r in refused] == [
        ("error", "llama.cpp/m takes no images; leave context.images empty."),
        ("error", "llama.cpp classifiers take no images"),
        ("error", "A choice question takes 2 to 62 options, not 1"),
        ("error", "The temperature must be a positive number, not 0.0"),
    ]

    unknown = await _classify(_model(router, "nope"), {"state": {}, "questions": bool_only})
    assert unknown.answers == {}
    assert (
        unknown.error_message
        == "llama.cpp error (400): " + '{"error": {"message": "model \'nope\' not found", "code": 400}}'
    )

    router.ranks = {"No": 40_000}
    unranked = await _classify(model, {"state": {}, "questions": bool_only})
    assert unranked.error_message == "llama.cpp ranked no No for spam among its top 32768 tokens"
    assert [body["n_probs"] for body in _posts(router, "/completion")][-3:] == [256, 4096, 32768]

    router.ranks, router.logprobs = {}, {"Yes": -1e31, "No": -1e31}
    underflow = await _classify(model, {"state": {}, "questions": bool_only})
    assert underflow.error_message == "m gave none of the answer labels any probability for spam"
