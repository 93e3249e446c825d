"""The ``cloudflare-workers-ai-system-one`` classifier API: System One models on Cloudflare
Workers AI's REST endpoint, ``POST {baseUrl}/run`` with ``{"model", "input": {"state",
"questions"}}`` (``_system_one``).

The answer comes in Cloudflare's envelope: ``{"success", "result": {...}}``, where the result
is the model's output itself (Cloudflare's own models, ``@cf/cloudflare/clef*``) or a run record
``{"state": "Completed", "result": {...}}`` (third-party models such as ``typesafe/jev``);
``success: false`` fails with the envelope's error messages. Clef models take images as
``images`` data URLs, the others as ``assets``, never with TypeSafe's opt-in header (the
catalog's ``compat.imageInput`` says which).
"""

from __future__ import annotations

from typing import Any

from pi_ai._classify import AssistantClassification, ClassifierContext, ClassifierModel
from pi_ai._images import ImagesOptions
from pi_ai.api._classifier_common import Refused
from pi_ai.api._system_one import Transport, classify_system_one

__all__ = ["classify"]

LABEL = "Cloudflare Workers AI"


def _envelope_error(errors: Any) -> str:
    messages = [
        error["message"] for error in errors or [] if isinstance(error, dict) and isinstance(error.get("message"), str)
    ] if isinstance(errors, list) else []  # fmt: skip
    return f"{LABEL} error: {'; '.join(messages)}" if messages else f"{LABEL} request failed"


def _output(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise Refused(f"{LABEL} returned an unexpected response")
    if body.get("success") is False:
        raise Refused(_envelope_error(body.get("errors")))
    result = body.get("result")
    if not isinstance(result, dict):
        raise Refused(f"{LABEL} returned an unexpected response")
    if "answers" in result:
        return result
    if result.get("state") != "Completed":
        state = result.get("state")
        shown = (
            "undefined" if state is None else str(state).lower() if isinstance(state, bool) else str(state)
        )
        raise Refused(f"{LABEL} run did not complete (state: {shown})")
    inner = result.get("result")
    if not isinstance(inner, dict):
        raise Refused(f"{LABEL} returned an unexpected response")
    return inner


TRANSPORT = Transport(
    api="cloudflare-workers-ai-system-one",
    label=LABEL,
    detect=lambda model: ("images" if model.id.startswith("@cf/cloudflare/clef") else "assets", False),
    url=lambda model: model.base_url.rstrip("/") + "/run",
    payload=lambda model, request: {"model": model.id, "input": request},
    output=_output,
)


async def classify(
    model: ClassifierModel, context: ClassifierContext, options: ImagesOptions | None = None
) -> AssistantClassification:
    """Classify over Workers AI's ``/run``; failures are results."""
    return await classify_system_one(TRANSPORT, model, context, options)
