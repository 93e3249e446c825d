"""Anthropic message threads (Pi 1.6, beta ``message-threads-2026-08-12``).

With a session id, a request may continue the session's previous reply: the body then carries
``thread: {"type": "continue", "previous_message_id": ...}``, only the messages after that reply,
and no ``system`` or ``tools`` (the server keeps the thread's own). Otherwise it opens a new
thread (``thread: {"type": "create"}`` on the full body). Each reply can be continued once,
and only while everything it builds on is unchanged, which a hash of the fixed request fields
and the earlier messages checks. A rejection about the thread is resent once in full: as a new
thread when the old one cannot be continued, or without ``thread`` when the endpoint cannot use
threads, which turns them off for the session.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
from msgspec import json as msgspec_json

from pi_ai._model import Model
from pi_ai._session_resources import register_session_cleanup
from pi_ai.api._http import HttpStatusError

MAX_SESSIONS = 10_000
"""Sessions whose thread state is kept; the least recently updated goes first (its thread has
most likely expired on the server already, and its next request just opens a new one)."""

NEW_THREAD_ERRORS = frozenset(
    {
        "thread_not_found",
        "thread_already_continued",
        "thread_continue_in_flight",
        "thread_fingerprint_mismatch",
    }
)
"""``error.details.error_code`` values of a rejected ``continue`` that a new thread fixes."""


@dataclass(frozen=True, slots=True)
class _Continuable:
    prefix_count: int
    prefix_hash: str
    reply_id: str


_OFF: Literal["off"] = "off"
_states: OrderedDict[str, _Continuable | Literal["off"]] = OrderedDict()


def _set_state(session_id: str, value: _Continuable | Literal["off"]) -> None:
    _states.pop(session_id, None)
    _states[session_id] = value
    if len(_states) > MAX_SESSIONS:
        _states.popitem(last=False)


def _forget(session_id: str | None) -> None:
    if session_id is None:
        _states.clear()
    else:
        _states.pop(session_id, None)


register_session_cleanup(_forget)


@dataclass(frozen=True, slots=True)
class ThreadRequest:
    session_id: str
    body: dict[str, Any]


def _as_meant(value: Any, key: str | None = None) -> Any:
    """``value`` with what does not change a message's meaning taken out: cache markers (they
    move to the newest message) and string content (sent as one text block when it carries a
    marker, as a string the next time)."""
    if isinstance(value, dict):
        return {k: _as_meant(v, k) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_as_meant(item) for item in value]
    if key == "content" and isinstance(value, str):
        return [{"type": "text", "text": value}]
    return value


def _prefix_hash(model: Model, params: dict[str, Any], messages: list[Any]) -> str:
    fixed = [
        model.provider,
        model.base_url,
        *(
            params.get(name)
            for name in (
                "model",
                "system",
                "tools",
                "thinking",
                "output_config",
                "tool_choice",
                "betas",
                "fallbacks",
            )
        ),
    ]
    encoded = msgspec_json.encode([fixed, _as_meant(messages)])
    return hashlib.blake2b(encoded, digest_size=16).hexdigest()


def _create(session_id: str, params: dict[str, Any]) -> ThreadRequest:
    return ThreadRequest(session_id, {**params, "thread": {"type": "create"}})


def prepare(model: Model, session_id: str, params: dict[str, Any]) -> ThreadRequest | None:
    """The thread request for ``params`` (``None`` once the endpoint refused threads)."""
    state = _states.get(session_id)
    if state == _OFF:
        return None
    messages = params["messages"]
    if (
        isinstance(state, _Continuable)
        and len(messages) > state.prefix_count
        and _prefix_hash(model, params, messages[: state.prefix_count]) == state.prefix_hash
    ):
        del _states[session_id]  # continued once; a concurrent request cannot try it again
        body = {key: value for key, value in params.items() if key not in ("system", "tools")}
        body["messages"] = messages[state.prefix_count :]
        body["thread"] = {"type": "continue", "previous_message_id": state.reply_id}
        return ThreadRequest(session_id, body)
    return _create(session_id, params)


def _error_code(error: HttpStatusError) -> str | None:
    try:
        body = msgspec_json.decode(error.text)
    except msgspec.DecodeError:
        return None
    inner = body.get("error") if isinstance(body, dict) else None
    details = inner.get("details") if isinstance(inner, dict) else None
    code = details.get("error_code") if isinstance(details, dict) else None
    return code if isinstance(code, str) else None


Fallback = Literal["new_thread", "no_thread"]


def fallback_for(error: BaseException) -> tuple[Fallback, str] | None:
    """How to resend a rejected thread request, with the reason recorded in the diagnostic;
    ``None`` when the rejection is not about the thread (resending would fail again)."""
    if not isinstance(error, HttpStatusError):
        return None
    code = _error_code(error)
    if code in NEW_THREAD_ERRORS:
        return "new_thread", code
    # No code: the endpoint does not know the field ("thread: Extra inputs are not permitted").
    if code == "thread_unsupported_request" or (
        code is None and error.status == 400 and "thread" in str(error)
    ):
        return "no_thread", code or str(error.status)
    return None


def recreate(thread: ThreadRequest, params: dict[str, Any]) -> ThreadRequest:
    return _create(thread.session_id, params)


def turn_off(session_id: str) -> None:
    _set_state(session_id, _OFF)


def record_reply(
    model: Model, thread: ThreadRequest, params: dict[str, Any], reply: list[dict[str, Any]], reply_id: str
) -> None:
    """Remember that the session's next request may continue after ``reply`` (the answer to
    ``thread``, whose full request was ``params``, converted as the next request will send it)."""
    prefix = [*params["messages"], *reply]
    _set_state(thread.session_id, _Continuable(len(prefix), _prefix_hash(model, params, prefix), reply_id))
