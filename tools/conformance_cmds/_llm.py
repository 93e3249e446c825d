"""What ``payload`` and ``parse-stream`` share: run our ``stream``/``stream_simple`` the way the
oracle runs Pi's (``../shared/oracle/lib/llm.mjs``), against a real HTTP server on 127.0.0.1.

Input handling mirrors the oracle:

- ``model``: ``"provider/id"`` from the catalog of the Pi the answer is compared with (Pi 0.85's,
  ``tests/support/pi085_catalog.py``, which every recorded case was answered with; with
  ``CURRENT_PI`` set, our built-in catalog, which is Pi 1.6's); ``{"ref": "provider/id", ...}`` with
  top-level fields overridden; or a partial model completed per API (anthropic / openai /
  google base URLs, ``reasoning: false``, text+image input, zero cost, 200 000 context,
  32 000 max tokens).
- ``fn``: ``"streamSimple"`` (default) or ``"stream"``.
- ``options``: camelCase JSON; ``apiKey`` defaults to ``pi-oracle-dummy-key`` and
  ``maxRetries`` to 0. Messages without ``timestamp`` get 0.
- Requests keep the model's real URL but are redirected to the loopback server
  (``pi_ai.api._http.redirect_requests``); the reported request shows the real URL.

How an API plugs in (the convention every ``pi_ai.api.<module>`` follows):

- the module exposes ``API: ApiImplementation`` (registered lazily by ``pi_ai._registry``);
- it exposes ``OPTIONS``: its provider-options dataclass, a subclass of ``StreamOptions``
  (e.g. ``AnthropicOptions`` with ``thinking_enabled``), used for ``fn: "stream"``;
  ``fn: "streamSimple"`` uses ``SimpleStreamOptions``;
- JSON option keys are converted camelCase -> snake_case onto the dataclass fields
  (``thinkingBudgetTokens`` -> ``thinking_budget_tokens``); a field typed
  ``ThinkingBudgets`` (or ``... | None``) is built from its object; everything else is
  passed as is (``toolChoice`` strings or objects, ``metadata``, ``headers``). Keys the
  dataclass does not have land in ``options.extra``.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import importlib
import importlib.util
import json
import re
import sys
import time
import typing
from collections.abc import Callable
from typing import Any

from tests.support.loopback import LoopbackServer, Reply
from tests.support.pi085_catalog import pi085_model

from conformance_cmds._common import Rejected

DUMMY_API_KEY = "pi-oracle-dummy-key"

CURRENT_PI: contextvars.ContextVar[bool] = contextvars.ContextVar("current_pi", default=False)
"""Whether the answer is compared with Pi 1.6 (``--current``): model references then name models
of our built-in catalog instead of Pi 0.85's."""

API_DEFAULTS: dict[str, tuple[str, str]] = {
    "anthropic-messages": ("anthropic", "https://api.anthropic.com"),
    "openai-completions": ("openai", "https://api.openai.com/v1"),
    "openai-responses": ("openai", "https://api.openai.com/v1"),
    "google-generative-ai": ("google", "https://generativelanguage.googleapis.com/v1beta"),
}

API_MODULES: dict[str, str] = {
    "anthropic-messages": "pi_ai.api.anthropic_messages",
    "openai-completions": "pi_ai.api.openai_completions",
    "openai-responses": "pi_ai.api.openai_responses",
    "google-generative-ai": "pi_ai.api.google_generative_ai",
    # OpenAI-family APIs of the sign-in work (issue 14)
    "azure-openai-responses": "pi_ai.api.azure_openai_responses",
    "openai-codex-responses": "pi_ai.api.openai_codex_responses",
    "google-vertex": "pi_ai.api.google_vertex",
    "mistral-conversations": "pi_ai.api.mistral_conversations",
    "pi-messages": "pi_ai.api.pi_messages",
    # Bedrock's AWS SDK speaks node:http, which the oracle cannot redirect: Pi's answers for it
    # are the wire cases (tests/conformance/cases/wire/bedrock-converse-stream).
    "bedrock-converse-stream": "pi_ai.api.bedrock_converse_stream",
}

VOLATILE_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "accept-encoding",
        "accept-language",
        "sec-fetch-mode",
        "user-agent",
        "x-stainless-arch",
        "x-stainless-os",
        "x-stainless-runtime-version",
        "x-goog-api-client",
    }
)


def normalize(output: Any) -> Any:
    """Drop the request headers only Pi's JavaScript HTTP stack sends.

    ``x-stainless-*`` are the JS SDKs' telemetry headers (``x-stainless-lang: js`` ...) and
    ``accept-language``/``sec-fetch-mode`` come from Node's fetch; we send none of them on
    purpose (docs/decisions/transport.md). Everything else must match.
    """
    if isinstance(output, dict) and isinstance(output.get("request"), dict):
        headers = output["request"].get("headers")
        if isinstance(headers, dict):
            output["request"]["headers"] = {
                name: value
                for name, value in headers.items()
                if not name.startswith("x-stainless-") and name not in ("accept-language", "sec-fetch-mode")
            }
    return output


# --------------------------------------------------------------------------- inputs


def _builtin_model(provider: str, model_id: str) -> dict[str, Any] | None:
    if not CURRENT_PI.get():
        return pi085_model(provider, model_id)
    from pi_ai.models import get_model

    model = get_model(provider, model_id)
    return json.loads(_encode(model)) if model is not None else None


def resolve_model(request: dict[str, Any]) -> Any:
    from pi_ai import Model, convert

    spec = request.get("model")

    def from_ref(ref: str) -> dict[str, Any]:
        provider, slash, model_id = ref.partition("/")
        if not slash:
            raise Rejected(f'model reference must be "provider/modelId", got {json.dumps(ref)}')
        model = _builtin_model(provider, model_id)
        if model is None:
            raise Rejected(f"unknown built-in model {ref}")
        return model

    if isinstance(spec, str):
        data = from_ref(spec)
    elif isinstance(spec, dict) and isinstance(spec.get("ref"), str):
        overrides = {key: value for key, value in spec.items() if key != "ref"}
        data = {**from_ref(spec["ref"]), **overrides}
    else:
        partial = spec or {}
        api = partial.get("api") or request.get("api")
        if not api:
            raise Rejected("input.api (or model.api) is required for a partial model")
        provider, base_url = API_DEFAULTS.get(api, ("custom", "http://localhost:8000/v1"))
        model_id = partial.get("id", "test-model")
        data = {
            "id": model_id,
            "name": model_id,
            "api": api,
            "provider": provider,
            "baseUrl": base_url,
            "reasoning": False,
            "input": ["text", "image"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 200000,
            "maxTokens": 32000,
            **partial,
        }
    if request.get("api") and data.get("api") != request["api"]:
        raise Rejected(f"input.api is {request['api']} but the model's api is {data.get('api')}")
    from pi_ai.api._local_servers import with_pi_request_shape

    # Our local-server rewrites are a documented difference (docs/providers/local-servers.md,
    # tested in tests/pi_ai/api/test_local_servers.py); the cases compare Pi's request shape.
    return with_pi_request_shape(convert(data, Model))


def _encode(value: Any) -> str:
    from pi_ai import encode

    return encode(value).decode()


def build_context(request: dict[str, Any]) -> Any:
    from pi_ai import Context, convert

    context = dict(request.get("context") or {})
    context["messages"] = [
        message if "timestamp" in message else {**message, "timestamp": 0}
        for message in context.get("messages") or []
    ]
    return convert(context, Context)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def build_options(request: dict[str, Any], model: Any, on_payload: Callable[[Any, Any], None]) -> Any:
    from pi_ai import SimpleStreamOptions, ThinkingBudgets

    fn = request.get("fn") or "streamSimple"
    if fn not in ("stream", "streamSimple"):
        raise Rejected(f'fn must be "stream" or "streamSimple", got {fn}')
    if fn == "streamSimple":
        options_type: type = SimpleStreamOptions
    else:
        module = importlib.import_module(API_MODULES.get(model.api, ""))
        options_type = module.OPTIONS
    raw: dict[str, Any] = {"apiKey": DUMMY_API_KEY, "maxRetries": 0, **(request.get("options") or {})}
    fields = {field.name: field for field in dataclasses.fields(options_type)}
    hints = typing.get_type_hints(options_type)
    kwargs: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        name = _snake(key)
        if name not in fields or name in ("extra", "on_payload", "on_response", "signal"):
            extra[key] = value
            continue
        if value is not None and (ThinkingBudgets in typing.get_args(hints[name]) or hints[name] is ThinkingBudgets):
            kwargs[name] = ThinkingBudgets(**{_snake(k): v for k, v in value.items()})
        else:
            kwargs[name] = value
    return options_type(**kwargs, extra=extra, on_payload=on_payload), fn


# --------------------------------------------------------------------------- running


_CLOCK_KEYS = ("timestamp", "durationMs")
"""Numbers read from the clock, written as 0 (a 1.6 answer's ``durationMs`` is recorded as 0 too:
``tools/gen_midway_cases.py``)."""


def _zero_timestamps(value: Any) -> Any:
    if isinstance(value, list):
        return [_zero_timestamps(item) for item in value]
    if isinstance(value, dict):
        return {
            key: 0
            if key in _CLOCK_KEYS and isinstance(item, int | float) and not isinstance(item, bool)
            else _zero_timestamps(item)
            for key, item in value.items()
        }
    return value


_CLOCK_ID = re.compile(r"_(\d{13})_(\d+)")


def _normalize_clock_ids(value: Any, start_ms: int, end_ms: int) -> Any:
    if isinstance(value, list):
        return [_normalize_clock_ids(item, start_ms, end_ms) for item in value]
    if isinstance(value, dict):
        return {key: _normalize_clock_ids(item, start_ms, end_ms) for key, item in value.items()}
    if isinstance(value, str):

        def replace(match: re.Match[str]) -> str:
            stamp = int(match.group(1))
            return f"_0_{match.group(2)}" if start_ms - 1000 <= stamp <= end_ms + 1000 else match.group(0)

        return _CLOCK_ID.sub(replace, value)
    return value


def _event_json(event: Any) -> dict[str, Any]:
    from pi_ai import to_builtins

    data = to_builtins(event)
    data.pop("partial", None)
    return data


def describe_request(record: Any, original_url: str) -> dict[str, Any]:
    headers = {
        name: "<volatile>" if name in VOLATILE_HEADERS else record.headers[name]
        for name in sorted(record.headers)
    }
    raw = record.body
    if record.headers.get("content-encoding") == "zstd":
        # Codex bodies; the Pi side reports the JSON it compressed (tools/pi_codex_oracle.mjs).
        from tests.support.responses_server import zstd_decompress

        raw = zstd_decompress(raw)
    try:
        body: Any = json.loads(raw)
    except ValueError:
        body = raw.decode("utf-8", "replace")
    return {"method": record.method, "url": original_url, "headers": headers, "body": body}


async def _run(request: dict[str, Any], reply: Callable[[Any], Reply]) -> dict[str, Any]:
    import pi_ai
    from pi_ai.api._http import close_clients, redirect_requests

    model = resolve_model(request)
    context = build_context(request)
    payloads: list[Any] = []

    def capture(payload: Any, _model: Any) -> None:
        payloads.append(json.loads(_encode(payload)))

    options, fn = build_options(request, model, capture)
    events: list[dict[str, Any]] = []
    start_ms = time.time_ns() // 1_000_000
    async with LoopbackServer(respond=lambda _record: reply(model)) as server:
        with redirect_requests(server.url) as originals:
            try:
                stream = (
                    pi_ai.stream(model, context, options)
                    if fn == "stream"
                    else pi_ai.stream_simple(model, context, options)
                )
            except Exception as error:  # raised synchronously, as Pi's compat layer does
                raise Rejected(str(error) or type(error).__name__) from None
            async for event in stream:
                events.append(_event_json(event))
            final = pi_ai.to_builtins(await stream.result())
        await close_clients()
    end_ms = time.time_ns() // 1_000_000
    requests = [
        describe_request(record, url) for record, url in zip(server.requests, originals, strict=False)
    ]
    return {
        "model": model,
        "payloads": payloads,
        "requests": requests,
        "events": _normalize_clock_ids(_zero_timestamps(events), start_ms, end_ms),
        "final": _normalize_clock_ids(_zero_timestamps(final), start_ms, end_ms),
    }


NOT_BUILT_EXIT = 3


def _require_built(api: str) -> None:
    """An API whose module does not exist yet is reported as not built (exit 3), like a
    missing subcommand, so its cases stay expected failures instead of errors."""
    module = API_MODULES.get(api)
    if module is not None and importlib.util.find_spec(module) is None:
        message = f"the {api} adapter ({module}) waits for issue #5"
        sys.stdout.write(json.dumps({"error": {"name": "NotBuilt", "message": message}}) + "\n")
        raise SystemExit(NOT_BUILT_EXIT)


def run_stream(request: dict[str, Any], reply: Callable[[Any], Reply]) -> dict[str, Any]:
    _require_built(resolve_model(request).api)
    return asyncio.run(_run(request, reply))
