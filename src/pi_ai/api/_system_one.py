"""System One classification, over any transport that speaks it (TypeSafe's and OpenRouter's
``/systemone``, Cloudflare Workers AI's ``/run``).

The request carries ``state`` and ``questions``; ``bool`` questions travel as the wire type
``noul`` and come back as ``{"type": "noul", "noul": p}``. Images go where the service takes
them (``compat.imageInput``, else the transport's guess): ``assets`` (PNG/JPEG, each named in
the state before it), ``state-image-urls`` (``image_url`` parts before the state) or ``images``
(at most four PNG/JPEG/WebP data URLs); ``compat.sendImageOptInHeader`` (else the guess) adds
TypeSafe's ``TypeSafe-Danger-Zone-Images: true``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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

IMAGE_OPT_IN = {"TypeSafe-Danger-Zone-Images": "true"}
MAX_DATA_URL_IMAGES = 4
ASSET_FORMATS = {"image/png": "png", "image/jpeg": "jpeg"}
DATA_URL_TYPES = ("image/png", "image/jpeg", "image/webp")


@dataclass(frozen=True)
class Transport:
    """How one service takes a System One request and wraps its answer."""

    api: str
    label: str
    detect: Callable[[ClassifierModel], tuple[str, bool]]
    """The image form and whether to send the opt-in header, for a model whose compat is silent."""
    url: Callable[[ClassifierModel], str]
    payload: Callable[[ClassifierModel, dict[str, Any]], dict[str, Any]]
    output: Callable[[Any], dict[str, Any]]
    """The ``{answers, usage}`` object inside the service's answer (raises ``Refused``)."""


def _data_url(image: dict[str, Any]) -> str:
    return f"data:{image['mimeType']};base64,{image['data']}"


def _add_images(
    model: ClassifierModel, form: str, images: list[dict[str, Any]], request: dict[str, Any]
) -> None:
    if form == "images":
        if len(images) > MAX_DATA_URL_IMAGES:
            raise Refused(f"{model.id} takes at most {MAX_DATA_URL_IMAGES} images, not {len(images)}")
        refused = next(
            (image["mimeType"] for image in images if image["mimeType"] not in DATA_URL_TYPES), None
        )
        if refused is not None:
            raise Refused(f"{model.id} takes PNG, JPEG and WebP images, not {refused}")
        request["images"] = [_data_url(image) for image in images]
    elif form == "state-image-urls":
        parts = [{"type": "image_url", "image_url": {"url": _data_url(image)}} for image in images]
        request["state"] = [*parts, request["state"]]
    else:
        assets: dict[str, Any] = {}
        for index, image in enumerate(images, 1):
            kind = ASSET_FORMATS.get(image["mimeType"])
            if kind is None:
                raise Refused(f"{model.id} takes PNG and JPEG images, not {image['mimeType']}")
            assets[f"<image-{index}>"] = {"type": "image", "format": kind, "data_base64": image["data"]}
        request["assets"] = assets
        request["state"] = [*assets, request["state"]]  # every asset is named in the state


def _wire_request(
    transport: Transport, model: ClassifierModel, context: ClassifierContext
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
            raise Refused(f"{model.id} takes no images")
        form, opt_in = transport.detect(model)
        compat = model.compat or {}
        _add_images(model, str(compat.get("imageInput", form)), images, request)
        if compat.get("sendImageOptInHeader", opt_in):
            extra = dict(IMAGE_OPT_IN)
    return request, extra


def _answer(label: str, qid: str, kind: str, answer: Any) -> dict[str, Any]:
    if not isinstance(answer, dict):
        raise Refused(f"{label} did not return an answer for {qid}")
    if kind == "choice":

        def probabilities(value: Any) -> dict[str, float]:
            if not isinstance(value, dict):
                raise Refused(f"{label} returned invalid probabilities for {qid}")
            return {k: number(label, v, f"probability for {qid}.{k}") for k, v in value.items()}

        return choice_answer(label, qid, answer, probabilities)
    if kind == "score":
        return score_answer(label, qid, answer)
    if answer.get("type") != "noul":
        raise Refused(f"{label} did not return a bool answer for {qid}")
    return {"type": "bool", "probability": number(label, answer.get("noul"), f"probability for {qid}")}


async def classify_system_one(
    transport: Transport, model: ClassifierModel, context: ClassifierContext, options: ImagesOptions | None
) -> AssistantClassification:
    """One classification over ``transport``; every failure is returned as a result."""
    opts = options or ImagesOptions()
    output = new_result(model)
    try:
        request, extra = _wire_request(transport, model, context)
        answer = await post(
            transport.label,
            transport.url(model),
            model,
            transport.payload(model, request),
            opts,
            extra_headers=extra,
        )
        result = transport.output(answer)
        output.usage = usage_of(result.get("usage"), model)  # billed even when the answers are bad
        answers = result.get("answers")
        if not isinstance(answers, dict):
            raise Refused(f"{transport.label} returned an unexpected response")
        output.answers = {
            qid: _answer(transport.label, qid, str(question.get("type")), answers.get(qid))
            for qid, question in context["questions"].items()
        }
    except Exception as error:
        return fail(output, opts, failure_text(transport.label, error))
    return output
