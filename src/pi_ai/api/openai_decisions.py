"""The ``openai-decisions`` classifier API: OpenAI's Decisions endpoint, ``POST
{baseUrl}/decisions`` with ``{"model", "input", "questions"}``.

The state goes as JSON text; with images the input is one user message of an ``input_text``
(the state) and ``input_image`` data URLs (at most 128). Questions are a list: ``choice`` with
``choices`` (``{value, description?}``), ``score`` with ``levels`` (``{label}``), and ``bool``
as ``predicate``, whose meanings of true and false are appended to the instructions (a
predicate has no criteria). Answers come as a list by ``name``; a ``refusal`` fails the call.
A 504 (the gateway's time limit, which a retry would hit again) is not retried.
"""

from __future__ import annotations

from typing import Any

from pi_ai._classify import AssistantClassification, ClassifierContext, ClassifierModel
from pi_ai._images import ImagesOptions
from pi_ai.api._classifier_common import (
    Refused,
    choice_answer,
    fail,
    failure_text,
    new_result,
    number,
    post,
    score_answer,
    usage_of,
)
from pi_ai.api._http import HttpStatusError
from pi_ai.js_json import stringify

__all__ = ["classify"]

LABEL = "OpenAI Decisions"
MAX_IMAGES = 128
GATEWAY_TIMEOUT = 504


def _predicate_instructions(question: dict[str, Any]) -> str:
    criteria = question.get("criteria") or {}
    meanings = [
        f"{word} means: {criteria[key]}"
        for key, word in (("true", "True"), ("false", "False"))
        if criteria.get(key)
    ]
    return f"{question['instructions']}\n\n" + "\n".join(meanings) if meanings else question["instructions"]


def _wire_question(name: str, question: dict[str, Any]) -> dict[str, Any]:
    kind, instructions = question["type"], question["instructions"]
    if kind == "choice":
        choices = [
            {"value": value, "description": meaning} if meaning else {"value": value}
            for value, meaning in question["criteria"].items()
        ]
        return {"type": "choice", "name": name, "instructions": instructions, "choices": choices}
    if kind == "score":
        levels = [{"label": label} for label in question["criteria"]]
        return {"type": "score", "name": name, "instructions": instructions, "levels": levels}
    return {"type": "predicate", "name": name, "instructions": _predicate_instructions(question)}


def _wire_input(context: ClassifierContext) -> Any:
    state = stringify(context["state"])  # JSON.stringify's text
    images = context.get("images") or []
    if not images:
        return state
    if len(images) > MAX_IMAGES:
        raise Refused(f"{LABEL} takes at most {MAX_IMAGES} images, not {len(images)}")
    parts = [
        {"type": "input_image", "image_url": f"data:{image['mimeType']};base64,{image['data']}"}
        for image in images
    ]
    return [{"role": "user", "content": [{"type": "input_text", "text": state}, *parts]}]


def _probabilities(value: Any, qid: str) -> dict[str, float]:
    if not isinstance(value, list):
        raise Refused(f"{LABEL} returned invalid probabilities for {qid}")
    found: dict[str, float] = {}
    for entry in value:
        if not isinstance(entry, dict) or not isinstance(entry.get("value"), str):
            raise Refused(f"{LABEL} returned invalid probabilities for {qid}")
        found[entry["value"]] = number(
            LABEL, entry.get("probability"), f"probability for {qid}.{entry['value']}"
        )
    return found


def _answer(qid: str, kind: str, answer: dict[str, Any]) -> dict[str, Any]:
    if answer.get("type") == "refusal":
        raise Refused(f"{LABEL} refused to answer {qid}")
    if kind == "choice":
        return choice_answer(LABEL, qid, answer, lambda value: _probabilities(value, qid))
    if kind == "score":
        return score_answer(LABEL, qid, answer)
    if answer.get("type") != "predicate":
        raise Refused(f"{LABEL} did not return a predicate answer for {qid}")
    return {"type": "bool", "probability": number(LABEL, answer.get("probability"), f"probability for {qid}")}


def _answers(value: Any, context: ClassifierContext) -> dict[str, Any]:
    if not isinstance(value, list):
        raise Refused(f"{LABEL} returned an unexpected response")
    by_name = {
        answer["name"]: answer
        for answer in value
        if isinstance(answer, dict) and isinstance(answer.get("name"), str)
    }
    found: dict[str, Any] = {}
    for qid, question in context["questions"].items():
        if qid not in by_name:
            raise Refused(f"{LABEL} did not return an answer for {qid}")
        found[qid] = _answer(qid, str(question.get("type")), by_name[qid])
    return found


def _failure(error: Exception) -> str:
    if isinstance(error, HttpStatusError) and error.status == GATEWAY_TIMEOUT:
        return (
            f"{LABEL} error (504): the gateway gave up waiting; inputs this large (above roughly 600K "
            "tokens) take longer than it allows."
        )
    return failure_text(LABEL, error)


async def classify(
    model: ClassifierModel, context: ClassifierContext, options: ImagesOptions | None = None
) -> AssistantClassification:
    """Classify through OpenAI's Decisions endpoint; failures are results."""
    opts = options or ImagesOptions()
    output = new_result(model)
    try:
        body = {
            "model": model.id,
            "input": _wire_input(context),
            "questions": [_wire_question(qid, question) for qid, question in context["questions"].items()],
        }
        url = model.base_url.rstrip("/") + "/decisions"
        answer = await post(LABEL, url, model, body, opts, no_retry=(GATEWAY_TIMEOUT,))
        if not isinstance(answer, dict):
            raise Refused(f"{LABEL} returned an unexpected response")
        output.usage = usage_of(answer.get("usage"), model)  # billed even when the answers are refused
        output.answers = _answers(answer.get("answers"), context)
    except Exception as error:
        return fail(output, opts, _failure(error))
    return output
