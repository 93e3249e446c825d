"""The ``typesafe-system-one`` classifier API: System One as TypeSafe serves it, and OpenRouter
(and the gateways that proxy either) too: ``POST {baseUrl}/systemone`` with ``{"model",
"state", "questions"}`` (``_system_one``). OpenRouter (by provider id, or an ``openrouter.ai``
base URL) takes images as ``image_url`` parts of the state; the others as ``assets`` with
TypeSafe's opt-in header; a model's ``compat`` overrides either guess.
"""

from __future__ import annotations

from typing import Any

from pi_ai._classify import AssistantClassification, ClassifierContext, ClassifierModel
from pi_ai._images import ImagesOptions
from pi_ai.api._classifier_common import Refused
from pi_ai.api._system_one import Transport, classify_system_one

__all__ = ["classify"]

LABEL = "System One API"


def _detect(model: ClassifierModel) -> tuple[str, bool]:
    if model.provider == "openrouter" or "openrouter.ai" in model.base_url:
        return "state-image-urls", False
    return "assets", True


def _output(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise Refused(f"{LABEL} returned an unexpected response")
    return body


TRANSPORT = Transport(
    api="typesafe-system-one",
    label=LABEL,
    detect=_detect,
    url=lambda model: model.base_url.rstrip("/") + "/systemone",
    payload=lambda model, request: {"model": model.id, **request},
    output=_output,
)


async def classify(
    model: ClassifierModel, context: ClassifierContext, options: ImagesOptions | None = None
) -> AssistantClassification:
    """Classify over TypeSafe's System One endpoint; failures are results."""
    return await classify_system_one(TRANSPORT, model, context, options)
