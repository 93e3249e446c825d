"""Tests that read provider credentials from the environment start from none of them."""

from __future__ import annotations

import pytest

AUTH_VARIABLES = (
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_OAUTH_TOKEN",
    "ANTHROPIC_API_KEY",
    "CLOUDFLARE_API_KEY",
    "CLOUDFLARE_ACCOUNT_ID",
    "CLOUDFLARE_GATEWAY_ID",
)
"""The variables whose precedence the auth tests check."""


def clear_auth_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in AUTH_VARIABLES:
        monkeypatch.delenv(name, raising=False)
