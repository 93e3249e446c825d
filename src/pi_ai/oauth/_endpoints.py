"""Where the sign-in flows send their requests, and the overrides for tests and self-hosting.

Each flow talks to its provider's fixed URLs (Pi's). Two environment overrides exist for a
fake authorization server on 127.0.0.1 in tests, or a self-hosted gateway; nothing else uses
them, and Pi 0.85 does not read them (except Kimi's, which are Pi's own):

- ``PI_OAUTH_<PROVIDER>_BASE_URL`` (provider id upper-cased, ``-`` as ``_``: for example
  ``PI_OAUTH_ANTHROPIC_BASE_URL``, ``PI_OAUTH_GITHUB_COPILOT_BASE_URL``): every URL of that
  provider's flow keeps its path and query but goes to this origin (``http://127.0.0.1:8123``;
  a path prefix is kept too). For GitHub Copilot this includes the Copilot API base URL
  requests are sent to after sign-in.
- ``PI_OAUTH_CALLBACK_PORT``: the port of the local callback server of the flows that listen
  on a fixed one (Anthropic 53692, OpenAI Codex 1455, Radius 1456); ``0`` picks a free port.
  The redirect URI names the port actually used.

Kimi's authorization host also follows Pi's ``KIMI_CODE_OAUTH_HOST`` / ``KIMI_OAUTH_HOST``,
and Radius's gateway the ``baseUrl`` of a ``models.json`` provider with ``"oauth": "radius"``.
"""

from __future__ import annotations

import os
from urllib.parse import quote, urlsplit

CALLBACK_HOST = "127.0.0.1"
"""The callback servers listen on the loopback address only (Pi's PI_OAUTH_CALLBACK_HOST,
which can widen that, is deliberately not read)."""


def base_url_variable(provider: str) -> str:
    return "PI_OAUTH_" + provider.upper().replace("-", "_") + "_BASE_URL"


def endpoint(provider: str, url: str) -> str:
    """``url``, or the same path on the override origin of ``provider``'s flow."""
    base = os.environ.get(base_url_variable(provider))
    if not base:
        return url
    parts = urlsplit(url)
    return base.rstrip("/") + parts.path + (f"?{parts.query}" if parts.query else "")


def callback_port(default: int) -> int:
    value = os.environ.get("PI_OAUTH_CALLBACK_PORT", "").strip()
    return int(value) if value.isdigit() else default


def form_encode(fields: dict[str, str] | list[tuple[str, str]]) -> str:
    """``new URLSearchParams(fields).toString()``: the same bytes as Pi puts in a URL or a
    form body (``*-._`` and letters/digits left as they are, space as ``+``)."""
    pairs = fields.items() if isinstance(fields, dict) else fields
    return "&".join(f"{_form_component(name)}={_form_component(value)}" for name, value in pairs)


def _form_component(text: str) -> str:
    return quote(text, safe="*-._ ").replace(" ", "+").replace("~", "%7E")
