"""The registry of wire API implementations and the four entry points that dispatch on it.

``stream(model, context, options)`` looks up ``model.api`` and hands the call to that
implementation, bounded by ``options.response_timeout_ms`` (one deadline for every API, armed
here). Built-in APIs are registered by module path and imported on first use, so importing
``pi_ai`` loads no HTTP library. Applications add their own with ``register_api``.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pi_ai._context import Context
from pi_ai._env_keys import AUTHENTICATED_MARKER, get_env_api_key
from pi_ai._event_stream import DEFAULT_RESPONSE_TIMEOUT_MS, AssistantMessageEventStream, start_stream
from pi_ai._messages import AssistantMessage
from pi_ai._model import Model
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._provider_auth import fill_base_url_placeholders, needs_env_auth, resolve_provider_auth
from pi_ai._routing import with_routing_headers
from pi_ai._transcript import prepare_context

StreamFunction = Callable[[Model, Context, StreamOptions | None], AssistantMessageEventStream]
_O = TypeVar("_O", bound=StreamOptions)

SimpleStreamFunction = Callable[[Model, Context, SimpleStreamOptions | None], AssistantMessageEventStream]


@dataclass(frozen=True, slots=True)
class ApiImplementation:
    """One wire API: ``stream`` takes provider-native options, ``stream_simple`` unified ones."""

    api: str
    stream: StreamFunction
    stream_simple: SimpleStreamFunction


# Built-in implementations: API name -> module exposing ``API: ApiImplementation``.
_BUILTIN_MODULES: dict[str, str] = {
    "anthropic-messages": "pi_ai.api.anthropic_messages",
    "openai-completions": "pi_ai.api.openai_completions",
    "openai-responses": "pi_ai.api.openai_responses",
    "google-generative-ai": "pi_ai.api.google_generative_ai",
    # OpenAI-family APIs of the sign-in work (issue 14)
    "azure-openai-responses": "pi_ai.api.azure_openai_responses",
    "openai-codex-responses": "pi_ai.api.openai_codex_responses",
    "bedrock-converse-stream": "pi_ai.api.bedrock_converse_stream",
    "google-vertex": "pi_ai.api.google_vertex",
    "mistral-conversations": "pi_ai.api.mistral_conversations",
    "pi-messages": "pi_ai.api.pi_messages",
    "local": "pi_ai.api.local",
}

_registered: dict[str, tuple[ApiImplementation, str | None]] = {}
# The built-in implementations as loaded (ids): their setup failures become error events.
_builtin_loaded: set[int] = set()


def register_api(implementation: ApiImplementation, source_id: str | None = None) -> None:
    """Register (or replace) the implementation of ``implementation.api``.

    ``source_id`` groups registrations so ``unregister_apis(source_id)`` removes them together.
    """
    _registered[implementation.api] = (implementation, source_id)


def unregister_apis(source_id: str) -> None:
    for api in [api for api, (_, source) in _registered.items() if source == source_id]:
        del _registered[api]


def get_api(api: str) -> ApiImplementation | None:
    """The implementation registered for ``api``, importing a built-in one on first use."""
    entry = _registered.get(api)
    if entry is not None:
        return entry[0]
    module_name = _BUILTIN_MODULES.get(api)
    if module_name is None:
        return None
    module = importlib.import_module(module_name)
    implementation: ApiImplementation = module.API
    _registered[api] = (implementation, None)
    _builtin_loaded.add(id(implementation))
    return implementation


def registered_apis() -> list[str]:
    return sorted(set(_registered) | set(_BUILTIN_MODULES))


def _resolve(model: Model) -> ApiImplementation:
    implementation = get_api(model.api)
    if implementation is None:
        raise LookupError(f"No API provider registered for api: {model.api}")
    return implementation


def _with_env_auth(
    model: Model, options: _O | None, default: type[_O], env_auth: bool
) -> tuple[Model, _O] | str:
    """Credentials from the environment when the call brings none, as Pi's ``stream`` adds
    them; the Cloudflare placeholders of the base URL filled. A string: why the call fails."""
    resolved = options if options is not None else default()
    if not env_auth:
        return fill_base_url_placeholders(model, resolved.env), resolved
    if needs_env_auth(model.provider, resolved.api_key, resolved.headers):
        # Pi resolves a Cloudflare provider in full: key, headers and its account/gateway ids.
        auth = resolve_provider_auth(model.provider, key=resolved.api_key, env=resolved.env)
        if auth is None:
            return f"Provider is not configured: {model.provider}"
        headers = {**(auth.headers or {}), **(resolved.headers or {})}
        resolved = dataclasses.replace(
            resolved,
            api_key=resolved.api_key if resolved.api_key is not None else auth.api_key,
            headers=headers or None,
            env={**(auth.env or {}), **(resolved.env or {})},
        )
    elif not (resolved.api_key and resolved.api_key.strip()):
        key = get_env_api_key(model.provider, resolved.env)
        if key and key != AUTHENTICATED_MARKER:
            resolved = dataclasses.replace(resolved, api_key=key)
    return fill_base_url_placeholders(model, resolved.env), resolved


def _failed(model: Model, reason: str, options: StreamOptions | None) -> AssistantMessageEventStream:
    async def fail(_stream: AssistantMessageEventStream) -> None:
        raise RuntimeError(reason)

    return start_stream(model, fail, signal=options.signal if options is not None else None)


def _call(
    implementation: ApiImplementation,
    call: Callable[[], AssistantMessageEventStream],
    model: Model,
    options: StreamOptions,
) -> AssistantMessageEventStream:
    """``call()``; for a built-in API a failure before the stream exists (an unsupported
    thinking-level mapping, bad options) ends a stream with an ``error`` event instead, as
    Pi's lazily loaded built-ins do. An application's own API raises, as in Pi."""
    if id(implementation) not in _builtin_loaded:
        return call()
    try:
        return call()
    except Exception as exc:  # errors are values: the caller reads them from the stream
        return _failed(model, str(exc), options)


def _bounded(stream: AssistantMessageEventStream, model: Model, options: StreamOptions) -> AssistantMessageEventStream:
    """``stream`` with the response deadline armed (none when it is 0)."""
    timeout_ms = options.response_timeout_ms
    timeout_ms = DEFAULT_RESPONSE_TIMEOUT_MS if timeout_ms is None else timeout_ms
    if timeout_ms > 0:
        stream.set_deadline(model, timeout_ms)
    return stream


def stream(
    model: Model, context: Context, options: StreamOptions | None = None, *, env_auth: bool = True
) -> AssistantMessageEventStream:
    """Stream one response with provider-native options.

    Without credentials in ``options`` they are taken from the environment (as Pi's
    ``stream`` does); ``env_auth=False`` says the caller resolved them already (the coding
    agent's model registry does, as Pi's ``Models`` runtime), so the environment is not read.

    Raises ``LookupError`` at once when no implementation is registered for ``model.api``;
    every later failure arrives as an ``error`` event.
    """
    implementation = _resolve(model)
    prepared = _with_env_auth(model, options, StreamOptions, env_auth)
    if isinstance(prepared, str):
        return _failed(model, prepared, options)
    model, resolved = prepared[0], with_routing_headers(prepared[0], prepared[1])
    context = prepare_context(model, context)
    native = _call(implementation, lambda: implementation.stream(model, context, resolved), model, resolved)
    return _bounded(native, model, resolved)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None, *, env_auth: bool = True
) -> AssistantMessageEventStream:
    """Stream one response with the unified options (reasoning level, tool choice);
    ``env_auth`` as for ``stream``."""
    implementation = _resolve(model)
    prepared = _with_env_auth(model, options, SimpleStreamOptions, env_auth)
    if isinstance(prepared, str):
        return _failed(model, prepared, options)
    model, resolved = prepared[0], with_routing_headers(prepared[0], prepared[1])
    context = prepare_context(model, context)
    simple = _call(implementation, lambda: implementation.stream_simple(model, context, resolved), model, resolved)
    return _bounded(simple, model, resolved)


async def complete(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessage:
    return await stream(model, context, options).result()


async def complete_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessage:
    return await stream_simple(model, context, options).result()
