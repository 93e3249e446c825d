"""The ``google-vertex`` wire API: Gemini on Vertex AI, through ``streamGenerateContent``.

Pi 0.85 uses the same ``@google/genai`` SDK as for the Gemini API, in its Vertex mode; the
stream is read exactly as there (``_google_stream``). What differs is where the request goes
and who signs it:

- an API key (Vertex express mode: ``api_key``, ``GOOGLE_CLOUD_API_KEY``) is sent as
  ``x-goog-api-key`` to ``https://aiplatform.googleapis.com/v1/publishers/google/models/...``;
- otherwise Application Default Credentials give a bearer token (``_google_auth``) for
  ``https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/
  publishers/google/models/...`` (``global``: no location prefix; ``us`` / ``eu``: the
  multi-region hosts); project from ``project`` / ``GOOGLE_CLOUD_PROJECT`` /
  ``GCLOUD_PROJECT``, location from ``location`` / ``GOOGLE_CLOUD_LOCATION``;
- a ``baseUrl`` without ``{location}`` is used as the collection root as is (``/v1`` added
  unless it names a version).

The SDK's Vertex form of a part lists its members in another order than the Gemini API's and
copies nested objects as given.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from pi_ai._abort import AbortError
from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream
from pi_ai._model import Model, clamp_thinking_level
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options
from pi_ai.api._common import env_value, provider_options
from pi_ai.api._google_auth import access_token
from pi_ai.api._google_convert import (
    build_config_and_params,
    resolve_google_thinking_level,
    thinking_level_for,
    uses_thinking_level,
    wire_request,
)
from pi_ai.api._http import HttpRequest, apply_on_payload, merge_headers
from pi_ai.api.google_generative_ai import (
    GoogleOptions,
    GoogleThinkingOptions,
    _thinking_setting,
    build_headers,
    sdk_headers,
    stream_request,
)

__all__ = ["API", "OPTIONS", "VertexOptions", "stream", "stream_simple"]

API_NAME = "google-vertex"
API_VERSION = "v1"
CREDENTIALS_MARKER = "gcp-vertex-credentials"
_MULTI_REGION = frozenset({"us", "eu"})
_PART_ORDER = (
    "mediaResolution",
    "codeExecutionResult",
    "executableCode",
    "fileData",
    "functionCall",
    "functionResponse",
    "inlineData",
    "text",
    "thought",
    "thoughtSignature",
    "videoMetadata",
)
_BUDGETS_25_PRO = {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
_BUDGETS_25_FLASH = {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}


@dataclass(kw_only=True)
class VertexOptions(GoogleOptions):
    project: str | None = None
    location: str | None = None


OPTIONS = VertexOptions


# --------------------------------------------------------------------------- where and who


def _api_key(options: VertexOptions) -> str | None:
    key = (options.api_key or "").strip()
    if not key or key == CREDENTIALS_MARKER or re.fullmatch(r"<[^>]+>", key):
        return None
    return key


def _custom_base(base_url: str) -> str | None:
    trimmed = base_url.strip()
    return None if not trimmed or "{location}" in trimmed else trimmed


def _names_version(base_url: str) -> bool:
    from urllib.parse import urlsplit

    return any(re.fullmatch(r"v\d+(?:beta\d*)?", part) for part in urlsplit(base_url).path.split("/"))


def _url(model: Model, model_path: str, *, api_key: bool, project: str | None, location: str | None) -> str:
    custom = _custom_base(model.base_url)
    if custom is not None:
        root, version, scope = custom, "" if _names_version(custom) else API_VERSION, None
    else:
        if api_key or location == "global":
            root = "https://aiplatform.googleapis.com/"
        elif location in _MULTI_REGION:
            root = f"https://aiplatform.{location}.rep.googleapis.com/"
        else:
            root = f"https://{location}-aiplatform.googleapis.com/"
        version = API_VERSION
        scope = None if api_key else f"projects/{project}/locations/{location}"
    parts = [root[:-1] if root.endswith("/") else root]
    if version:
        parts.append(version)
    if scope:
        parts.append(scope)
    parts.append(model_path)
    return "/".join(parts) + ":streamGenerateContent?alt=sse"


def _require(value: str | None, message: str) -> str:
    if not value:
        raise ValueError(message)
    return value


async def _request(model: Model, context: Context, options: VertexOptions) -> HttpRequest:
    api_key = _api_key(options)
    project = location = None
    auth: dict[str, str | None] = {}
    if api_key is None:
        project = _require(
            options.project
            or env_value("GOOGLE_CLOUD_PROJECT", options.env)
            or env_value("GCLOUD_PROJECT", options.env),
            "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options.",
        )
        location = _require(
            options.location or env_value("GOOGLE_CLOUD_LOCATION", options.env),
            "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options.",
        )
    params = build_config_and_params(
        model,
        context,
        temperature=options.temperature,
        max_tokens=options.max_tokens,
        tool_choice=options.tool_choice,
        thinking=_thinking_setting(options.thinking),
    )
    if options.signal is not None and options.signal.aborted:
        raise AbortError("Request aborted")
    params = await apply_on_payload(options, params, model)
    _, body = wire_request(params)
    body["contents"] = [_vertex_content(item) for item in params.get("contents") or []]
    model_id = str(params.get("model"))
    url = _url(
        model, _vertex_model_path(model_id), api_key=api_key is not None, project=project, location=location
    )
    if api_key is None:
        token = await access_token(options.env)
        auth = {"authorization": f"Bearer {token.token}", "x-goog-user-project": token.quota_project}
    return HttpRequest(url, _headers(model, options, api_key, auth), body)


def _headers(
    model: Model, options: VertexOptions, api_key: str | None, auth: dict[str, str | None]
) -> dict[str, str]:
    if api_key is not None:
        return build_headers(model, api_key, options)
    return merge_headers(sdk_headers(model, options), auth)


def _vertex_model_path(model_id: str) -> str:
    if model_id.startswith(("publishers/", "projects/", "models/")):
        return model_id
    if "/" in model_id:
        publisher, name = model_id.split("/", 2)[:2]
        return f"publishers/{publisher}/models/{name}"
    return f"publishers/google/models/{model_id}"


def _vertex_content(content: Any) -> Any:
    if not isinstance(content, dict):
        return content
    out: dict[str, Any] = {}
    if content.get("parts") is not None:
        out["parts"] = [_vertex_part(part) for part in content["parts"]]
    if content.get("role") is not None:
        out["role"] = content["role"]
    return out


def _vertex_part(part: Any) -> Any:
    if not isinstance(part, dict):
        return part
    return {key: part[key] for key in _PART_ORDER if part.get(key) is not None}


# --------------------------------------------------------------------------- the call


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one response. Every failure arrives as an ``error`` event."""
    opts = provider_options(options, VertexOptions)
    return stream_request(
        model,
        opts,
        lambda: _request(model, context, opts),
        api=API_NAME,
        no_finish_reason="Google Vertex stream ended without a finish reason",
    )


def _budget(model: Model, level: str, custom: dict[str, Any] | None) -> int:
    if custom is not None and custom.get(level) is not None:
        return int(custom[level])
    if "2.5-pro" in model.id:
        return _BUDGETS_25_PRO[level]
    if "2.5-flash" in model.id:
        return _BUDGETS_25_FLASH[level]
    return -1


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Unified options: ``reasoning`` becomes a thinking level (Gemini 3 and later, Gemma 4) or a
    budget."""
    simple = options or SimpleStreamOptions()
    provider = VertexOptions(**base_options(model, context, simple), tool_choice=simple.tool_choice)
    if not simple.reasoning:
        provider.thinking = GoogleThinkingOptions(enabled=False)
        return stream(model, context, provider)
    clamped = clamp_thinking_level(model, simple.reasoning)
    if clamped == "off":
        provider.thinking = GoogleThinkingOptions(enabled=False)
        return stream(model, context, provider)
    level = resolve_google_thinking_level(model, clamped)
    if uses_thinking_level(model):
        provider.thinking = GoogleThinkingOptions(enabled=True, level=thinking_level_for(level))
    else:
        budgets = simple.thinking_budgets
        custom = dataclasses.asdict(budgets) if budgets is not None else None
        provider.thinking = GoogleThinkingOptions(enabled=True, budget_tokens=_budget(model, level, custom))
    return stream(model, context, provider)


API = ApiImplementation(api=API_NAME, stream=stream, stream_simple=stream_simple)
