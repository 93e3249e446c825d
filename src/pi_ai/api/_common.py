"""Small helpers the wire adapters share: options coercion and the end-of-stream checks, Pi's
user agent, the OpenAI SDK's and GitHub Copilot's headers, the API-key check of the
OpenAI-compatible clients, cache-retention default, outgoing text sanitizing, id hashing and
sanitizing and the prompt-cache key clamp."""

from __future__ import annotations

import functools
import os
import platform
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TypeVar

from pi_ai._abort import AbortError, AbortSignal
from pi_ai._messages import AssistantMessage, ImageContent, Message, ToolResultMessage, UserMessage
from pi_ai._model import Model
from pi_ai._options import CacheRetention, ResponseInfo, StreamOptions
from pi_ai._simple_options import stream_option_values
from pi_ai.api._accumulator import StreamError
from pi_ai.api._http import has_header, merge_headers

__all__ = [
    "call_on_response",
    "check_stream_end",
    "clamp_prompt_cache_key",
    "client_api_key",
    "copilot_dynamic_headers",
    "env_value",
    "openai_sdk_headers",
    "pi_user_agent",
    "provider_options",
    "resolve_cache_retention",
    "sanitize_id",
    "sanitize_surrogates",
    "short_hash",
]

OptionsT = TypeVar("OptionsT", bound=StreamOptions)


def provider_options(options: StreamOptions | None, cls: type[OptionsT]) -> OptionsT:
    """``options`` as the adapter's own options class: itself when it already is one, else a
    default instance carrying the ``StreamOptions`` fields of whatever was passed."""
    if isinstance(options, cls):
        return options
    if options is None:
        return cls()
    return cls(**stream_option_values(options))


async def call_on_response(options: StreamOptions, model: Model, status: int, headers: Mapping[str, str]) -> None:
    """Give ``on_response`` the answer's status and headers (for adapters that, like Pi's
    fetch-based ones, call it for error answers too, which ``open_stream`` does not)."""
    if options.on_response is None:
        return
    import inspect

    result = options.on_response(ResponseInfo(status, dict(headers)), model)
    if inspect.isawaitable(result):
        await result


def check_stream_end(
    output: AssistantMessage, signal: AbortSignal | None, no_stop_reason: str, stopped_with_error: str
) -> None:
    """Pi's checks once a stream's body is consumed: an abort, a stream that never said why it
    stopped (``no_stop_reason``), or a stop reason that is itself an error (``stopped_with_error``)."""
    if signal is not None and signal.aborted:
        raise AbortError("Request was aborted")
    if output.stop_reason == "pending":
        raise StreamError(no_stop_reason)
    if output.stop_reason in ("aborted", "error"):
        raise StreamError(stopped_with_error)


_ARCH = {
    "x86_64": "x64",
    "amd64": "x64",
    "aarch64": "arm64",
    "arm64": "arm64",
    "i386": "ia32",
    "i686": "ia32",
}


PI_RELEASE = "1.6.0"
"""The Pi release whose wire behaviour this package follows: the version in ``User-Agent``
(``pi_coding_agent.PI_COMPAT_VERSION``, what ``pi --version`` prints, is the same)."""


@functools.cache
def pi_user_agent() -> str:
    """Pi 1.6's form, ``pi/<version> (<platform>; <runtime>/<version>; <arch>)``, with our
    runtime in its place: ``pi/1.6.0 (linux; python/3.11.7; x64)`` where Pi sends
    ``node/v22...``. Platform and architecture carry Node's names (docs/pi-1.6/models.md)."""
    machine = platform.machine()
    arch = _ARCH.get(machine.lower(), machine.lower())
    system = re.sub(r"\d+$", "", sys.platform)  # Node's ``freebsd`` where Python says ``freebsd14``
    return f"pi/{PI_RELEASE} ({system}; python/{platform.python_version()}; {arch})"


def copilot_dynamic_headers(messages: Sequence[Message]) -> dict[str, str]:
    """GitHub Copilot wants to know who initiated the request and whether images are sent."""
    last = messages[-1] if messages else None
    headers = {
        "X-Initiator": "agent" if last is not None and not isinstance(last, UserMessage) else "user",
        "Openai-Intent": "conversation-edits",
    }
    has_images = any(
        isinstance(message, UserMessage | ToolResultMessage)
        and not isinstance(message.content, str)
        and any(isinstance(block, ImageContent) for block in message.content)
        for message in messages
    )
    if has_images:
        headers["Copilot-Vision-Request"] = "true"
    return headers


def client_api_key(provider: str, api_key: str | None, headers: Mapping[str, str | None] | None) -> str:
    """The key for the OpenAI SDK: the caller's, ``unused`` when an auth header is given, else an error."""
    if api_key:
        return api_key
    if has_header(headers, "authorization") or has_header(headers, "cf-aig-authorization"):
        return "unused"
    raise ValueError(f"No API key for provider: {provider}")


def _custom_header_env() -> dict[str, str]:
    """``OPENAI_CUSTOM_HEADERS``: one ``Name: value`` per line, as the OpenAI SDK reads it."""
    parsed: dict[str, str] = {}
    for line in (os.environ.get("OPENAI_CUSTOM_HEADERS") or "").split("\n"):
        name, colon, value = line.partition(":")
        if colon:
            parsed[name.strip()] = value.strip()
    return parsed


def openai_sdk_headers(
    api_key: str, client_headers: Mapping[str, str | None], *, auth_header: str = "Authorization"
) -> dict[str, str]:
    """Request headers in the OpenAI SDK's merge order: its defaults (organization and project
    from the environment), auth, ``OPENAI_CUSTOM_HEADERS``, the client's headers, the body type.
    ``auth_header="api-key"`` is the ``AzureOpenAI`` client's key header (the key alone)."""
    return merge_headers(
        {
            "Accept": "application/json",
            "OpenAI-Organization": os.environ.get("OPENAI_ORG_ID") or None,
            "OpenAI-Project": os.environ.get("OPENAI_PROJECT_ID") or None,
        },
        {auth_header: f"Bearer {api_key}" if auth_header == "Authorization" else api_key},
        _custom_header_env(),
        client_headers,
        {"content-type": "application/json"},
    )


def env_value(name: str, env: Mapping[str, str] | None) -> str | None:
    """A scoped override first, then the process environment (empty values count as unset)."""
    return (env.get(name) if env else None) or os.environ.get(name) or None


def resolve_cache_retention(
    requested: CacheRetention | None, env: Mapping[str, str] | None
) -> CacheRetention:
    """The request's choice, else ``long`` when ``PI_CACHE_RETENTION=long``, else ``short``."""
    if requested:
        return requested
    return "long" if env_value("PI_CACHE_RETENTION", env) == "long" else "short"


_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize_surrogates(text: str) -> str:
    """Drop unpaired UTF-16 surrogates, which no provider accepts in JSON; keep real pairs.

    ASCII text (``isascii`` is a C-speed check) has none: every text of a request goes through
    here, and the search was the largest single cost of building one (``bench/request_build.py``).
    """
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    # A high + low surrogate written as two code points is one character: join such pairs.
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _SURROGATE.sub("", joined)


_NOT_ID_CHAR = re.compile(r"[^a-zA-Z0-9_-]")


def sanitize_id(value: str) -> str:
    """Every character outside ``[a-zA-Z0-9_-]`` replaced by ``_``."""
    return _NOT_ID_CHAR.sub("_", value)


_MASK = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return (a * b) & _MASK


@functools.lru_cache(maxsize=8192)
def short_hash(text: str) -> str:
    """Pi's ``shortHash``: a fast 64-bit hash over UTF-16 code units, written in base 36.

    Remembered: adapters hash the same tool-call ids again on every request of a session, and
    in Python the hash costs microseconds a character (Mistral's ids: about a tenth of
    building a request, ``bench/request_build.py``)."""
    h1 = 0xDEADBEEF
    h2 = 0x41C6CE57
    data = text.encode("utf-16-le", "surrogatepass")
    for index in range(0, len(data), 2):
        unit = data[index] | (data[index + 1] << 8)
        h1 = _imul(h1 ^ unit, 2654435761)
        h2 = _imul(h2 ^ unit, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2 & _MASK) + _base36(h1 & _MASK)


def _base36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if value == 0:
        return "0"
    out = []
    while value:
        value, rest = divmod(value, 36)
        out.append(digits[rest])
    return "".join(reversed(out))


PROMPT_CACHE_KEY_MAX_LENGTH = 64


def clamp_prompt_cache_key(key: str | None) -> str | None:
    """OpenAI's ``prompt_cache_key`` holds at most 64 characters (code points)."""
    if key is None or len(key) <= PROMPT_CACHE_KEY_MAX_LENGTH:
        return key
    return key[:PROMPT_CACHE_KEY_MAX_LENGTH]
