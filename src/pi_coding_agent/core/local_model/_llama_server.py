"""A llama.cpp server the user runs (``llama-server``, router mode): its model list, and those
models as the ``llama.cpp`` provider, as Pi's built-in llama.cpp extension offers them.

The server is ``LLAMA_BASE_URL`` (a stored ``llama.cpp`` credential's ``env`` wins, as in Pi);
``LLAMA_API_KEY`` is sent as a bearer token when set. A model is selectable when it is loaded
or sleeping (a request wakes it); its context window is what the server reports, else 128k.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

LLAMA_PROVIDER = "llama.cpp"
DEFAULT_CONTEXT = 128000


class LlamaServerError(Exception):
    """The server could not be reached or did not answer as a llama.cpp router; says why."""


@dataclass(frozen=True)
class ServerModel:
    id: str
    status: str
    """``loaded``, ``sleeping``, ``loading``, ``unloaded``... as the server says."""
    context_window: int
    images: bool

    @property
    def selectable(self) -> bool:
        return self.status in ("loaded", "sleeping")


def normalize_server_url(value: str) -> str:
    """``http(s)://host[:port][/path]`` without a trailing ``/`` or ``/v1``; raises ``ValueError``."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"llama.cpp server URL must be http(s)://host[:port]: {value!r}")
    path = parts.path.rstrip("/").removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _model(entry: Any) -> ServerModel | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
        return None
    status = entry.get("status")
    value = status.get("value") if isinstance(status, dict) else None
    if not isinstance(value, str):
        return None
    meta = entry.get("meta")
    context = (meta.get("n_ctx") or meta.get("n_ctx_train")) if isinstance(meta, dict) else None
    architecture = entry.get("architecture")
    modalities = architecture.get("input_modalities") if isinstance(architecture, dict) else None
    return ServerModel(
        entry["id"],
        value,
        context if isinstance(context, int) and context > 0 else DEFAULT_CONTEXT,
        isinstance(modalities, list) and "image" in modalities,
    )


REQUEST_SECONDS = 15.0
"""Pi's limit for each request to the server."""


async def list_server_models(server_url: str, api_key: str | None = None) -> list[ServerModel]:
    """``GET /models`` of the router; raises ``LlamaServerError`` naming the problem."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=REQUEST_SECONDS) as client:
            response = await client.get(f"{server_url}/models", headers=headers)
    except httpx.HTTPError as error:
        raise LlamaServerError(f"Could not reach llama.cpp server at {server_url}: {error}") from error
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if response.status_code >= 400:
        raise LlamaServerError(f"llama.cpp returned HTTP {response.status_code}")
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        raise LlamaServerError("llama.cpp returned an invalid model catalog")
    models = [_model(entry) for entry in data]
    if any(model is None for model in models):
        raise LlamaServerError("Server is not running in llama.cpp router mode")
    return [model for model in models if model is not None]


def provider_config(server_url: str, models: list[ServerModel], api_key: str | None) -> dict[str, Any]:
    """The selectable models as a ``models.json`` provider entry (OpenAI chat completions)."""
    return {
        "name": "llama.cpp",
        "baseUrl": f"{server_url}/v1",
        "api": "openai-completions",
        "apiKey": api_key or "local",
        "compat": {
            "supportsStore": False,
            "supportsDeveloperRole": False,
            "supportsReasoningEffort": False,
            "supportsUsageInStreaming": True,
            "supportsStrictMode": False,
            "maxTokensField": "max_tokens",
        },
        "models": [
            {
                "id": model.id,
                "name": model.id,
                "input": ["text", "image"] if model.images else ["text"],
                "contextWindow": model.context_window,
                "maxTokens": model.context_window,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            }
            for model in models
            if model.selectable
        ],
    }
