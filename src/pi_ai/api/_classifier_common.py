"""What the classifier APIs share: one JSON ``POST`` with bearer auth (``on_payload`` and
``on_response`` hooks, retries: twice unless ``max_retries`` says otherwise, the statuses a
service asks not to retry failing at once), the answer's ``{input_tokens, output_tokens}``
usage priced from the catalog, and the error texts (``<label> error (<status>): <body>``)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection, Mapping
from typing import Any

from pi_ai._abort import AbortError
from pi_ai._classify import AssistantClassification, ClassifierModel
from pi_ai._event_stream import error_text, now_ms
from pi_ai._images import ImagesOptions
from pi_ai._messages import Usage
from pi_ai._model import Model, calculate_cost
from pi_ai.api._http import HttpRequest, HttpStatusError, apply_on_payload, merge_headers, open_stream
from pi_ai.js_json import parse

DEFAULT_RETRIES = 2
MAX_ERROR_BODY = 4000


class Refused(Exception):
    """The request or the service's answer is not what the API promises; the message says how."""


def number(label: str, value: Any, what: str) -> float:
    """A finite number of the answer, else ``Refused`` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Refused(f"{label} returned an invalid {what}")
    return value


def choice_answer(
    label: str, qid: str, answer: Mapping[str, Any], probabilities: Callable[[Any], dict[str, float]]
) -> dict[str, Any]:
    """A ``choice`` answer in the shared result shape; ``probabilities`` reads the wire's form of them."""
    if answer.get("type") != "choice" or not isinstance(answer.get("choice"), str):
        raise Refused(f"{label} did not return a choice answer for {qid}")
    return {
        "type": "choice",
        "choice": answer["choice"],
        "probabilities": probabilities(answer.get("probabilities")),
        "confidence": number(label, answer.get("confidence"), f"confidence for {qid}"),
    }


def score_answer(label: str, qid: str, answer: Mapping[str, Any]) -> dict[str, Any]:
    """A ``score`` answer in the shared result shape."""
    if answer.get("type") != "score":
        raise Refused(f"{label} did not return a score answer for {qid}")
    return {
        "type": "score",
        "score": number(label, answer.get("score"), f"score for {qid}"),
        "confidence": number(label, answer.get("confidence"), f"confidence for {qid}"),
    }


def _tokens(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_of(raw: Any, model: ClassifierModel) -> Usage | None:
    """Priced like chat usage; an answer without a usage object leaves the result without one."""
    if not isinstance(raw, dict) or ("input_tokens" not in raw and "output_tokens" not in raw):
        return None
    inputs, outputs = _tokens(raw.get("input_tokens")), _tokens(raw.get("output_tokens"))
    usage = Usage(input=inputs, output=outputs, cache_read=0, cache_write=0, total_tokens=inputs + outputs)
    calculate_cost(model, usage)
    return usage


def new_result(model: ClassifierModel) -> AssistantClassification:
    return AssistantClassification(
        api=model.api,
        provider=model.provider,
        model=model.id,
        answers={},
        stop_reason="stop",
        timestamp=now_ms(),
    )


def fail(output: AssistantClassification, options: ImagesOptions, message: str) -> AssistantClassification:
    output.answers = {}
    output.stop_reason = "aborted" if options.signal is not None and options.signal.aborted else "error"
    output.error_message = message
    return output


def failure_text(label: str, error: Exception) -> str:
    """The error text of a failed request."""
    if isinstance(error, Refused):
        return str(error)
    if isinstance(error, HttpStatusError):
        body = error.text.strip() or error.reason or f"status {error.status}"
        if len(body) > MAX_ERROR_BODY:
            body = f"{body[:MAX_ERROR_BODY]}... [truncated {len(body) - MAX_ERROR_BODY} chars]"
        return f"{label} error ({error.status}): {body}"
    if isinstance(error, AbortError):
        return "Request was aborted."
    return error_text(error)


async def post(
    label: str,
    url: str,
    model: ClassifierModel,
    body: dict[str, Any],
    options: ImagesOptions,
    *,
    extra_headers: Mapping[str, str] | None = None,
    no_retry: Collection[int] = (),
    key_required: bool = True,
    observed: bool = True,
) -> Any:
    """POST ``body`` (after ``on_payload``) and the parsed JSON answer; raises on failure.

    ``key_required=False``: without a key no ``authorization`` header is sent (a local server);
    ``observed=False``: ``on_payload`` / ``on_response`` do not see this request (a helper
    request beside the one that classifies)."""
    if not options.api_key and key_required:
        raise Refused(f"No API key for provider: {model.provider}")
    if not observed:
        options = dataclasses.replace(options, on_payload=None, on_response=None)
    chat_model = Model(
        id=model.id, name=model.name, api=model.api, provider=model.provider, base_url=model.base_url
    )
    payload = await apply_on_payload(options, body, chat_model)
    headers = merge_headers(
        {
            **({"authorization": f"Bearer {options.api_key}"} if options.api_key else {}),
            "content-type": "application/json",
        },
        model.headers,
        {**(extra_headers or {}), **(options.headers or {})},
    )
    retrying = dataclasses.replace(options, max_retries=options.max_retries or DEFAULT_RETRIES)

    def describe(status: int, _reason: str, _headers: Mapping[str, str], _text: str) -> str:
        return f"{label} returned {status}"

    async with open_stream(
        HttpRequest(url, headers, payload), retrying, chat_model, describe_error=describe, no_retry=no_retry
    ) as response:
        return parse(await response.text())
