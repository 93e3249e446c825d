"""The ``typesafe-system-one`` classifier API: System One, as TypeSafe serves it and OpenRouter
(and the gateways that proxy it) serve it too.

One ``POST {baseUrl}/systemone`` with bearer auth and the body ``{"model", "state",
"questions"}``; ``bool`` questions travel as the wire type ``noul`` and come back as ``{"type":
"noul", "noul": p}``. The answer is ``{"answers": {id: answer}, "usage": {"input_tokens",
"output_tokens"}}``; usage is priced from the model's rates. Images go where the service takes
them (``compat.imageInput``, else by provider: OpenRouter's ``state-image-urls``, others'
``assets`` with the ``TypeSafe-Danger-Zone-Images: true`` opt-in header), or as ``images``
data URLs (Cloudflare's form). Failed requests are retried twice unless ``max_retries`` says
otherwise; an HTTP error reads ``System One API error (<status>): <body>``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from pi_ai._abort import AbortError
from pi_ai._classify import AssistantClassification, ClassifierContext, ClassifierModel
from pi_ai._event_stream import error_text, now_ms
from pi_ai._images import ImagesOptions
from pi_ai._messages import Usage
from pi_ai._model import Model, calculate_cost
from pi_ai.api._http import HttpRequest, HttpStatusError, apply_on_payload, merge_headers, open_stream
from pi_ai.js_json import parse

__all__ = ["classify"]

LABEL = "System One API"
IMAGE_OPT_IN = {"TypeSafe-Danger-Zone-Images": "true"}
MAX_DATA_URL_IMAGES = 4
"""The most images the ``images`` form takes in one request."""
ASSET_FORMATS = {"image/png": "png", "image/jpeg": "jpeg"}
DATA_URL_TYPES = ("image/png", "image/jpeg", "image/webp")
MAX_ERROR_BODY = 4000
DEFAULT_RETRIES = 2


class _Refused(Exception):
    """The service's answer (or the request) is not what System One promises."""


def _detected(model: ClassifierModel) -> tuple[str, bool]:
    """Image form and opt-in header by provider (the id survives a base URL override)."""
    if model.provider == "openrouter" or "openrouter.ai" in model.base_url:
        return "state-image-urls", False
    return "assets", True


def _data_url(image: dict[str, Any]) -> str:
    return f"data:{image['mimeType']};base64,{image['data']}"


def _add_images(
    model: ClassifierModel, form: str, images: list[dict[str, Any]], request: dict[str, Any]
) -> None:
    if form == "images":
        if len(images) > MAX_DATA_URL_IMAGES:
            raise _Refused(f"{model.id} takes at most {MAX_DATA_URL_IMAGES} images, not {len(images)}")
        refused = next(
            (image["mimeType"] for image in images if image["mimeType"] not in DATA_URL_TYPES), None
        )
        if refused is not None:
            raise _Refused(f"{model.id} takes PNG, JPEG and WebP images, not {refused}")
        request["images"] = [_data_url(image) for image in images]
    elif form == "state-image-urls":
        parts = [{"type": "image_url", "image_url": {"url": _data_url(image)}} for image in images]
        request["state"] = [*parts, request["state"]]
    else:
        assets: dict[str, Any] = {}
        for index, image in enumerate(images, 1):
            kind = ASSET_FORMATS.get(image["mimeType"])
            if kind is None:
                raise _Refused(f"{model.id} takes PNG and JPEG images, not {image['mimeType']}")
            assets[f"<image-{index}>"] = {"type": "image", "format": kind, "data_base64": image["data"]}
        request["assets"] = assets
        request["state"] = [*assets, request["state"]]  # every asset is named in the state


def _wire_request(
    model: ClassifierModel, context: ClassifierContext
) -> tuple[dict[str, Any], dict[str, str]]:
    questions = {
        qid: {**question, "type": "noul"} if question.get("type") == "bool" else question
        for qid, question in context["questions"].items()
    }
    request: dict[str, Any] = {"state": context["state"], "questions": questions}
    extra: dict[str, str] = {}
    images = context.get("images") or []
    if images:
        if "image" not in model.input:
            raise _Refused(f"{model.id} takes no images")
        form, opt_in = _detected(model)
        compat = model.compat or {}
        _add_images(model, str(compat.get("imageInput", form)), images, request)
        if compat.get("sendImageOptInHeader", opt_in):
            extra = dict(IMAGE_OPT_IN)
    return {"model": model.id, **request}, extra


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _Refused(f"{LABEL} returned an invalid {what}")
    return value


def _answer(qid: str, kind: str, answer: Any) -> dict[str, Any]:
    if not isinstance(answer, dict):
        raise _Refused(f"{LABEL} did not return an answer for {qid}")
    if kind == "choice":
        probabilities = answer.get("probabilities")
        if answer.get("type") != "choice" or not isinstance(answer.get("choice"), str):
            raise _Refused(f"{LABEL} did not return a choice answer for {qid}")
        if not isinstance(probabilities, dict):
            raise _Refused(f"{LABEL} returned invalid probabilities for {qid}")
        return {
            "type": "choice",
            "choice": answer["choice"],
            "probabilities": {k: _number(v, f"probability for {qid}.{k}") for k, v in probabilities.items()},
            "confidence": _number(answer.get("confidence"), f"confidence for {qid}"),
        }
    if kind == "score":
        if answer.get("type") != "score":
            raise _Refused(f"{LABEL} did not return a score answer for {qid}")
        return {
            "type": "score",
            "score": _number(answer.get("score"), f"score for {qid}"),
            "confidence": _number(answer.get("confidence"), f"confidence for {qid}"),
        }
    if answer.get("type") != "noul":
        raise _Refused(f"{LABEL} did not return a bool answer for {qid}")
    return {"type": "bool", "probability": _number(answer.get("noul"), f"probability for {qid}")}


def _tokens(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage(raw: Any, model: ClassifierModel) -> Usage | None:
    """Priced like chat usage; an answer without a usage object leaves the result without one."""
    if not isinstance(raw, dict) or ("input_tokens" not in raw and "output_tokens" not in raw):
        return None
    inputs, outputs = _tokens(raw.get("input_tokens")), _tokens(raw.get("output_tokens"))
    usage = Usage(input=inputs, output=outputs, cache_read=0, cache_write=0, total_tokens=inputs + outputs)
    calculate_cost(model, usage)
    return usage


def _as_model(model: ClassifierModel) -> Model:
    """The request helpers take a ``Model``; only its identity matters here."""
    return Model(
        id=model.id, name=model.name, api=model.api, provider=model.provider, base_url=model.base_url
    )


def _failure(error: Exception) -> str:
    if isinstance(error, HttpStatusError):
        body = error.text.strip() or error.reason or f"status {error.status}"
        if len(body) > MAX_ERROR_BODY:
            body = f"{body[:MAX_ERROR_BODY]}... [truncated {len(body) - MAX_ERROR_BODY} chars]"
        return f"{LABEL} error ({error.status}): {body}"
    if isinstance(error, AbortError):
        return "Request was aborted."
    return error_text(error)


async def classify(
    model: ClassifierModel, context: ClassifierContext, options: ImagesOptions | None = None
) -> AssistantClassification:
    """Classify; every failure is returned as ``stop_reason`` error / aborted."""
    opts = options or ImagesOptions()
    output = AssistantClassification(
        api=model.api,
        provider=model.provider,
        model=model.id,
        answers={},
        stop_reason="stop",
        timestamp=now_ms(),
    )
    try:
        if not opts.api_key:
            raise _Refused(f"No API key for provider: {model.provider}")
        chat_model = _as_model(model)
        body, extra = _wire_request(model, context)
        payload = await apply_on_payload(opts, body, chat_model)
        headers = merge_headers(
            {"authorization": f"Bearer {opts.api_key}", "content-type": "application/json"},
            model.headers,
            {**extra, **(opts.headers or {})},
        )
        url = model.base_url.rstrip("/") + "/systemone"
        retrying = dataclasses.replace(opts, max_retries=opts.max_retries or DEFAULT_RETRIES)
        async with open_stream(
            HttpRequest(url, headers, payload), retrying, chat_model, describe_error=_describe
        ) as response:
            answer = parse(await response.text())
        if not isinstance(answer, dict):
            raise _Refused(f"{LABEL} returned an unexpected response")
        output.usage = _usage(answer.get("usage"), model)  # billed even when the answers are bad
        answers = answer.get("answers")
        if not isinstance(answers, dict):
            raise _Refused(f"{LABEL} returned an unexpected response")
        output.answers = {
            qid: _answer(qid, str(question.get("type")), answers.get(qid))
            for qid, question in context["questions"].items()
        }
    except Exception as error:
        aborted = opts.signal is not None and opts.signal.aborted
        output.stop_reason = "aborted" if aborted else "error"
        output.error_message = str(error) if isinstance(error, _Refused) else _failure(error)
    return output


def _describe(status: int, reason: str, headers: Mapping[str, str], text: str) -> str:
    return f"{LABEL} returned {status}"
