"""Sign-in flows of Pi 0.85's subscription providers (``auth/oauth`` in pi-ai).

``get_oauth_flow(provider)`` gives the flow of a provider (``None`` for one without), and
``OAUTH_PROVIDERS`` lists them: ``anthropic``, ``openai-codex``, ``github-copilot``,
``openrouter``, ``kimi-coding``, ``xai``, ``radius``. A flow's ``login(callbacks)`` talks to
the user only through ``LoginCallbacks`` (prompts, and events such as a URL to open or a
device code to enter) and returns the credential; ``refresh`` renews one; ``to_auth`` says
what a request made with it carries. Storing credentials is the caller's business (the
coding agent keeps them in ``auth.json``).

The flows live here, beside the wire adapters rather than with the coding agent, as in Pi:
what a provider's sign-in and its requests need (client ids, endpoints, the headers and base
URL a token implies) is provider knowledge, usable by any program built on ``pi_ai``.
Nothing here is imported until a name is used; each flow's module loads on first use.

Endpoint overrides for tests and self-hosted servers: ``pi_ai.oauth._endpoints`` (documented
in ``docs/auth.md``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pi_ai._lazy import lazy_attributes

if TYPE_CHECKING:
    from pi_ai.oauth._endpoints import base_url_variable as base_url_variable
    from pi_ai.oauth._types import AuthEvent as AuthEvent
    from pi_ai.oauth._types import AuthPrompt as AuthPrompt
    from pi_ai.oauth._types import AuthUrlEvent as AuthUrlEvent
    from pi_ai.oauth._types import DeviceCodeEvent as DeviceCodeEvent
    from pi_ai.oauth._types import InfoEvent as InfoEvent
    from pi_ai.oauth._types import InfoLink as InfoLink
    from pi_ai.oauth._types import LoginCallbacks as LoginCallbacks
    from pi_ai.oauth._types import LoginCancelled as LoginCancelled
    from pi_ai.oauth._types import OAuthCredential as OAuthCredential
    from pi_ai.oauth._types import OAuthError as OAuthError
    from pi_ai.oauth._types import OAuthFlow as OAuthFlow
    from pi_ai.oauth._types import ProgressEvent as ProgressEvent
    from pi_ai.oauth._types import PromptOption as PromptOption
    from pi_ai.oauth._types import RequestCredentials as RequestCredentials

OAUTH_PROVIDERS: tuple[str, ...] = (
    "anthropic",
    "github-copilot",
    "kimi-coding",
    "openai-codex",
    "openrouter",
    "radius",
    "xai",
)
"""Providers with a sign-in flow, in provider-id order."""

_FLOWS = {
    "anthropic": ("pi_ai.oauth._anthropic", "AnthropicOAuth"),
    "github-copilot": ("pi_ai.oauth._github_copilot", "GitHubCopilotOAuth"),
    "kimi-coding": ("pi_ai.oauth._kimi_coding", "KimiCodingOAuth"),
    "openai-codex": ("pi_ai.oauth._openai_codex", "OpenAICodexOAuth"),
    "openrouter": ("pi_ai.oauth._openrouter", "OpenRouterOAuth"),
    "xai": ("pi_ai.oauth._xai", "XaiOAuth"),
}


def get_oauth_flow(
    provider: str, *, radius_gateway: str | None = None, name: str | None = None
) -> OAuthFlow | None:
    """The sign-in flow for ``provider``, or ``None``.

    ``radius_gateway`` makes a Radius flow for that gateway under the id ``provider`` (Pi's
    ``models.json`` providers with ``"oauth": "radius"``), shown as ``name``.
    """
    if radius_gateway is not None or provider == "radius":
        from pi_ai.oauth._radius import DEFAULT_GATEWAY, RadiusOAuth

        return RadiusOAuth(
            provider,
            name or ("Radius" if provider == "radius" else provider),
            radius_gateway or DEFAULT_GATEWAY,
        )
    found = _FLOWS.get(provider)
    if found is None:
        return None
    module, cls = found
    flow: OAuthFlow = getattr(importlib.import_module(module), cls)()
    return flow


__getattr__, __dir__ = lazy_attributes(globals())
