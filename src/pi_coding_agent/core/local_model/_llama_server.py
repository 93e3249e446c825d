"""A llama.cpp server the user runs (``llama-server``, router mode): its models as the router
reports them, and those models as the ``llama.cpp`` provider, as Pi's built-in llama.cpp
extension offers them (``_llama_client`` talks to the server).

The server is a stored ``llama.cpp`` credential's ``env.LLAMA_BASE_URL`` (``/login llama.cpp``
writes it, as Pi does), else ``LLAMA_BASE_URL``; the key is the credential's, else
``LLAMA_API_KEY``. A model is selectable when it is loaded or sleeping (a request wakes it).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
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
    decisions: bool = False
    """A native decision model (``decisions`` among ``architecture.output_modalities``, llama.cpp
    0.6.0 on): a classifier through System One (``/v1/systemone``)."""
    text: bool = True
    """It writes text (``text`` among the output modalities, or none are told): a chat model."""
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
        return self.context_window_with(None)

    def context_window_with(self, cached: int | None) -> int:
        """``context_window``, with the one stored before (``cached``) ahead of the trained one, as Pi."""
        return (
            self.n_ctx
            or self.configured_ctx
            or (cached if cached and cached > 0 else None)
            or self.n_ctx_train
            or DEFAULT_CONTEXT
        )

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
    outputs = architecture.get("output_modalities") if isinstance(architecture, dict) else None
    decisions = isinstance(outputs, list) and "decisions" in outputs
    exit_code = status.get("exit_code")
    return ServerModel(
        entry["id"],
        value,
        n_ctx=_positive(meta.get("n_ctx")),
        n_ctx_train=_positive(meta.get("n_ctx_train")),
        configured_ctx=_configured_context(status.get("args")),
        images=isinstance(modalities, list) and "image" in modalities,
        decisions=decisions,
        text=not decisions or (isinstance(outputs, list) and "text" in outputs),
        failed=status.get("failed") is True,
        exit_code=exit_code if isinstance(exit_code, int) else None,
        progress=status.get("progress"),
    )


def configured_server(
    stored_env: Mapping[str, str], stored_key: str | None, environ: Mapping[str, str]
) -> tuple[str, str | None] | None:
    """``(server URL, key)`` of the stored credential (``env.LLAMA_BASE_URL``, its key), else of
    ``LLAMA_BASE_URL`` / ``LLAMA_API_KEY``; ``None`` without a server. ``ValueError`` for a URL
    that is not one."""
    url = stored_env.get("LLAMA_BASE_URL", "").strip() or environ.get("LLAMA_BASE_URL", "").strip()
    if not url:
        return None
    return normalize_server_url(url), stored_key or environ.get("LLAMA_API_KEY") or None


_FREE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
_THINKING_LEVELS = {
    "off": "off",
    "minimal": None,
    "low": None,
    "medium": "medium",
    "high": None,
    "xhigh": None,
}
"""What Pi maps thinking levels to for a model whose chat template has ``enable_thinking``."""


def catalog_entry(
    server_url: str, catalog: list[ServerModel], thinking: set[str], cached: Mapping[str, int]
) -> list[dict[str, Any]]:
    """The selectable models as Pi 1.6 stores them in ``models-store.json``: each that writes
    text as a chat model (``openai-completions`` at ``<server>/v1``; ``thinking``: the ids whose
    chat template knows ``enable_thinking``), then each as a classifier (``_classifier_model``),
    in Pi's key order. ``cached``: context windows stored before, used when the router tells
    none of its own."""
    selectable = [model for model in catalog if model.selectable]
    chat = [
        _chat_model(model, server_url, model.id in thinking, cached.get(model.id))
        for model in selectable
        if model.text
    ]
    return [*chat, *(_classifier_model(model, server_url, cached.get(model.id)) for model in selectable)]


def _classifier_model(model: ServerModel, server_url: str, cached: int | None) -> dict[str, Any]:
    """A decision model answers through System One (``typesafe-system-one`` at ``<server>/v1``,
    images, when it takes them, as ``images`` data URLs without the opt-in header); any other
    model through ``llama-cpp-classify`` at the server (next-token label probabilities)."""
    images = model.decisions and model.images
    return {
        "type": "classifier", "id": model.id, "name": model.id,
        "api": "typesafe-system-one" if model.decisions else "llama-cpp-classify",
        "provider": LLAMA_PROVIDER, "baseUrl": f"{server_url}/v1" if model.decisions else server_url,
        "input": ["text", "image"] if images else ["text"], "cost": dict(_FREE),
        "contextWindow": model.context_window_with(cached),
        **({"compat": {"imageInput": "images", "sendImageOptInHeader": False}} if images else {}),
    }  # fmt: skip


def _chat_model(model: ServerModel, server_url: str, reasoning: bool, cached: int | None) -> dict[str, Any]:
    context = model.context_window_with(cached)
    compat: dict[str, Any] = {
        "supportsStore": False,
        "supportsReasoningEffort": False,
        "supportsUsageInStreaming": True,
        "supportsStrictMode": False,
        "maxTokensField": "max_tokens",
    }
    if reasoning:
        compat["thinkingFormat"] = "qwen-chat-template"
    return {
        "id": model.id,
        "name": model.id,
        "api": "openai-completions",
        "provider": LLAMA_PROVIDER,
        "baseUrl": f"{server_url}/v1",
        "reasoning": reasoning,
        **({"thinkingLevelMap": dict(_THINKING_LEVELS)} if reasoning else {}),
        "input": ["text", "image"] if model.images else ["text"],
        "cost": dict(_FREE),
        "contextWindow": context,
        "maxTokens": context,
        "compat": compat,
    }


def stored_classifier_models(entry_models: Any) -> list[dict[str, Any]]:
    """The classifiers of a stored ``llama.cpp`` entry (``llama-cpp-classify`` and System One
    ones, as Pi restores them for codemode's ``models.classify()``)."""
    if not isinstance(entry_models, list):
        return []
    return [
        model
        for model in entry_models
        if isinstance(model, dict)
        and model.get("provider") == LLAMA_PROVIDER
        and model.get("type") == "classifier"
        and model.get("api") in ("llama-cpp-classify", "typesafe-system-one")
        and isinstance(model.get("id"), str)
        and isinstance(model.get("baseUrl"), str)
    ]


def stored_chat_models(entry_models: Any) -> list[dict[str, Any]]:
    """The chat models of a stored ``llama.cpp`` entry (what Pi restores for ``/model``)."""
    if not isinstance(entry_models, list):
        return []
    return [
        model
        for model in entry_models
        if isinstance(model, dict)
        and model.get("provider") == LLAMA_PROVIDER
        and model.get("type", "chat") == "chat"
        and model.get("api") == "openai-completions"
        and isinstance(model.get("id"), str)
    ]


def provider_config(server_url: str, models: list[dict[str, Any]], api_key: str | None) -> dict[str, Any]:
    """Chat models as ``catalog_entry`` writes them, as a ``models.json`` provider entry at
    ``server_url`` (the server configured now, whatever URL the models were stored with)."""
    fields = (
        "id",
        "name",
        "reasoning",
        "thinkingLevelMap",
        "input",
        "cost",
        "contextWindow",
        "maxTokens",
        "compat",
    )
    return {
        "name": "llama.cpp",
        "baseUrl": f"{server_url}/v1",
        "api": "openai-completions",
        "apiKey": api_key or "local",
        "compat": {"supportsDeveloperRole": False},
        "models": [{key: model[key] for key in fields if key in model} for model in models],
    }
