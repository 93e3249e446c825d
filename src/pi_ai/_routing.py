"""OpenCode's per-conversation routing header (Pi 1.6).

OpenCode (Zen and Go) routes the requests of one conversation together by the
``x-opencode-session`` header. Pi 1.6 sends the call's ``session_id`` there on every request to
OpenCode, whichever wire API the model speaks: a model of the ``opencode`` or ``opencode-go``
provider, or any model whose base URL is on ``opencode.ai`` (a custom provider pointing there).
A header of that name the caller sets already wins. Summary requests carry a fresh session id of
their own (docs/pi-1.6/tools-and-compaction.md), so they are routed apart from the conversation.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar
from urllib.parse import urlsplit

from pi_ai._model import Model
from pi_ai._options import StreamOptions

OPENCODE_SESSION_HEADER = "x-opencode-session"
OPENCODE_PROVIDERS = frozenset({"opencode", "opencode-go"})
OPENCODE_HOST = "opencode.ai"

_O = TypeVar("_O", bound=StreamOptions)


def is_opencode(model: Model) -> bool:
    """Whether requests for ``model`` go to OpenCode (by provider, or by the base URL's host)."""
    if model.provider in OPENCODE_PROVIDERS:
        return True
    try:
        return urlsplit(model.base_url).hostname == OPENCODE_HOST
    except ValueError:
        return False


def with_routing_headers(model: Model, options: _O) -> _O:
    """``options`` with OpenCode's session header added, when it applies."""
    session_id = options.session_id
    if not session_id or not is_opencode(model):
        return options
    headers = options.headers or {}
    if any(name.lower() == OPENCODE_SESSION_HEADER for name in headers):
        return options
    return dataclasses.replace(options, headers={**headers, OPENCODE_SESSION_HEADER: session_id})
