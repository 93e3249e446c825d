"""A llama.cpp server the user runs (``llama-server``, router mode): its models as the router
reports them, and those models as the ``llama.cpp`` provider, as Pi's built-in llama.cpp
extension offers them (``_llama_client`` talks to the server).

The server is a stored ``llama.cpp`` credential's ``env.LLAMA_BASE_URL`` (``/login llama.cpp``
writes it, as Pi does), else ``LLAMA_BASE_URL``; the key is the credential's, else
``LLAMA_API_KEY``. A model is selectable when it is loaded or sleeping (a request wakes it).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

LLAMA_PROVIDER = "llama.cpp"
DEFAULT_SERVER_URL = "http://127.0.0.1:9931"
"""Pi 1.6's default (0.85 said ``:8080``); llama.cpp's ``llama serve`` listens there."""
LLAMA_COMMAND = ("llama", "Manage llama.cpp router models")
LLAMA_SOURCE = {"path": "builtin:llama.cpp", "source": "builtin", "scope": "temporary", "origin": "top-level"}
"""Where Pi 1.6 says ``/llama`` comes from (RPC ``get_commands``'s ``sourceInfo``)."""
DEFAULT_CONTEXT = 128000
CONTEXT_FLAGS = ("--ctx-size", "-c", "-ctx")


class LlamaServerError(Exception):
    """The server could not be reached or did not answer as a llama.cpp router; says why."""


@dataclass(frozen=True)
class ServerModel:
    id: str
    status: str
    """``loaded``, ``sleeping``, ``loading``, ``unloaded``, ``downloading``... as the server says."""
    n_ctx: int | None = None
    """The context the running model has (``meta.n_ctx``)."""
    n_ctx_train: int | None = None
    configured_ctx: int | None = None
    """``--ctx-size``/``-c`` among the arguments the router starts the model with."""
    images: bool = False
    failed: bool = False
    exit_code: int | None = None
    progress: Any = None
    """A download's ``{file: {done, total}}`` while ``downloading``."""

    @property
    def selectable(self) -> bool:
        return self.status in ("loaded", "sleeping")

    @property
    def context_window(self) -> int:
        """As Pi 1.6 sizes it: what runs, what is configured, what it was trained with, 128k."""
        return self.n_ctx or self.configured_ctx or self.n_ctx_train or DEFAULT_CONTEXT

    @property
    def context_label(self) -> str | None:
        """``33k`` as ``/llama`` shows a loaded model's context (``None``: unknown)."""
        context = self.n_ctx or self.n_ctx_train or self.configured_ctx
        if not context:
            return None
        return f"{round(context / 1000)}k" if context >= 1000 else str(context)


def normalize_server_url(value: str) -> str:
    """``http(s)://host[:port][/path]`` without a trailing ``/`` or ``/v1``; raises ``ValueError``."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"llama.cpp server URL must be http(s)://host[:port]: {value!r}")
    path = parts.path.rstrip("/").removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _configured_context(arguments: Any) -> int | None:
    if not isinstance(arguments, list):
        return None
    for flag, value in itertools.pairwise(arguments):
        if flag in CONTEXT_FLAGS and isinstance(value, str) and value.isdigit() and int(value) > 0:
            return int(value)
    return None


def parse_model(entry: Any) -> ServerModel | None:
    """One entry of ``GET /models``; ``None`` when it is not a router's (no ``status.value``)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
        return None
    status = entry.get("status")
    value = status.get("value") if isinstance(status, dict) else None
    if not isinstance(status, dict) or not isinstance(value, str):
        return None
    meta = entry["meta"] if isinstance(entry.get("meta"), dict) else {}
    architecture = entry.get("architecture")
    modalities = architecture.get("input_modalities") if isinstance(architecture, dict) else None
    exit_code = status.get("exit_code")
    return ServerModel(
        entry["id"],
        value,
        n_ctx=_positive(meta.get("n_ctx")),
        n_ctx_train=_positive(meta.get("n_ctx_train")),
        configured_ctx=_configured_context(status.get("args")),
        images=isinstance(modalities, list) and "image" in modalities,
        failed=status.get("failed") is True,
        exit_code=exit_code if isinstance(exit_code, int) else None,
        progress=status.get("progress"),
    )


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
