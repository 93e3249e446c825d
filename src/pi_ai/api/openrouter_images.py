"""The ``openrouter-images`` image API: OpenRouter's chat completions with image output.

Pi 0.85 sends, through the OpenAI SDK, one non-streaming ``POST {baseUrl}/chat/completions``:
the input as a single user message (text parts, images as data URLs), ``stream: false`` and
``modalities`` (``["image", "text"]`` for models that also write text, else ``["image"]``).
The answer's text and its ``data:`` images become the output; usage is priced from the
model's rates. Retries and error texts are the OpenAI-compatible ones (``_http``).
"""

from __future__ import annotations

import re
from typing import Any

from pi_ai._abort import AbortError
from pi_ai._event_stream import error_text, now_ms
from pi_ai._images import AssistantImages, ImagesContext, ImagesModel, ImagesOptions
from pi_ai._messages import ImageContent, TextContent, Usage, UsageCost
from pi_ai._model import Model, whole_as_int
from pi_ai.api._common import openai_sdk_headers, sanitize_surrogates
from pi_ai.api._http import (
    HttpRequest,
    HttpStatusError,
    apply_on_payload,
    join_url,
    open_stream,
    openai_error_text,
    openai_sdk_message,
)
from pi_ai.js_json import parse

__all__ = ["generate_images"]

_DATA_URL = re.compile(r"^data:([^;]+);base64,(.+)$", re.DOTALL)


def _params(model: ImagesModel, context: ImagesContext) -> dict[str, Any]:
    content = [
        {"type": "text", "text": sanitize_surrogates(item.text)}
        if isinstance(item, TextContent)
        else {"type": "image_url", "image_url": {"url": f"data:{item.mime_type};base64,{item.data}"}}
        for item in context.input
    ]
    return {
        "model": model.id,
        "messages": [{"role": "user", "content": content}],
        "stream": False,
        "modalities": ["image", "text"] if "text" in model.output else ["image"],
    }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _usage(raw: dict[str, Any], model: ImagesModel) -> Usage:
    found = raw.get("prompt_tokens_details")
    details: dict[str, Any] = found if isinstance(found, dict) else {}
    prompt = _int(raw.get("prompt_tokens"))
    cached = _int(details.get("cached_tokens"))
    writes = _int(details.get("cache_write_tokens"))
    reads = max(0, cached - writes) if writes > 0 else cached
    inputs = max(0, prompt - reads - writes)
    outputs = _int(raw.get("completion_tokens"))
    rates = model.cost
    cost = UsageCost(
        input=whole_as_int(rates.input / 1e6 * inputs),
        output=whole_as_int(rates.output / 1e6 * outputs),
        cache_read=whole_as_int(rates.cache_read / 1e6 * reads),
        cache_write=whole_as_int(rates.cache_write / 1e6 * writes),
    )
    cost.total = whole_as_int(cost.input + cost.output + cost.cache_read + cost.cache_write)
    cost.total_from_provider = False  # Pi 1.6 marks a catalog-priced total
    return Usage(
        input=inputs,
        output=outputs,
        cache_read=reads,
        cache_write=writes,
        total_tokens=inputs + outputs + reads + writes,
        cost=cost,
    )


def _read(answer: Any, model: ImagesModel, output: AssistantImages) -> None:
    if not isinstance(answer, dict):
        return
    if isinstance(answer.get("id"), str):
        output.response_id = answer["id"]
    if isinstance(answer.get("usage"), dict):
        output.usage = _usage(answer["usage"], model)
    choices = answer.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if isinstance(content, str) and content:
        output.output.append(TextContent(text=content))
    for image in message.get("images") or []:
        url = image.get("image_url") if isinstance(image, dict) else None
        url = url.get("url") if isinstance(url, dict) else url
        match = _DATA_URL.match(url) if isinstance(url, str) else None
        if match is not None:
            output.output.append(ImageContent(mime_type=match.group(1), data=match.group(2)))


def _as_model(model: ImagesModel) -> Model:
    """The request helpers take a ``Model``; only its identity and headers matter here."""
    return Model(
        id=model.id, name=model.name, api=model.api, provider=model.provider, base_url=model.base_url
    )


async def generate_images(
    model: ImagesModel, context: ImagesContext, options: ImagesOptions | None = None
) -> AssistantImages:
    """Generate images; every failure is returned as ``stop_reason`` error / aborted."""
    opts = options or ImagesOptions()
    output = AssistantImages(
        api=model.api,
        provider=model.provider,
        model=model.id,
        output=[],
        stop_reason="stop",
        timestamp=now_ms(),
    )
    try:
        if not opts.api_key:
            raise ValueError(f"No API key for provider: {model.provider}")
        chat_model = _as_model(model)
        params = await apply_on_payload(opts, _params(model, context), chat_model)
        headers = openai_sdk_headers(opts.api_key, {**(model.headers or {}), **(opts.headers or {})})
        request = HttpRequest(join_url(model.base_url, "/chat/completions"), headers, params)
        async with open_stream(request, opts, chat_model, describe_error=openai_sdk_message) as response:
            text = await response.text()
        _read(parse(text), model, output)
    except Exception as error:
        aborted = opts.signal is not None and opts.signal.aborted
        output.stop_reason = "aborted" if aborted else "error"
        output.error_message = (
            openai_error_text(error)
            if isinstance(error, HttpStatusError)
            else ("Request was aborted." if isinstance(error, AbortError) else error_text(error))
        )
    return output
