"""Signing in and out: what ``/login`` and ``/logout`` call.

``login_options`` lists what can be signed in to (Pi's built-in providers and ``models.json``
Radius gateways), one entry per provider and method, by name as Pi sorts them.
``login(credentials, provider, callbacks)`` runs the provider's flow (``pi_ai.oauth``) or asks
for its API key, and stores the result in ``auth.json``; ``logout`` removes a stored
credential (environment variables and ``models.json`` stay as they are);
``stored_credentials`` lists what ``logout`` can remove.

The flows never open a browser: ``callbacks.notify`` receives the URL (``AuthUrlEvent``) or the
device code (``DeviceCodeEvent``) and the caller shows or opens it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pi_ai.oauth import LoginCallbacks
    from pi_coding_agent.auth._credentials import Credentials
    from pi_coding_agent.auth._storage import AuthStorage

AuthType = Literal["oauth", "api_key"]


@dataclass(frozen=True, slots=True)
class LoginOption:
    provider: str
    name: str
    """The provider's name ("Anthropic")."""
    auth_type: AuthType
    method: str
    """The sign-in method's name ("Anthropic (Claude Pro/Max)", "Anthropic API key")."""
    login_label: str | None = None
    """A label of the method's own for the choice ("Sign in with OpenRouter")."""
    is_subscription: bool = False
    configured: bool = False
    """The provider has credentials now (stored, in ``models.json`` or in the environment)."""


def login_options(credentials: Credentials, auth_type: AuthType | None = None) -> list[LoginOption]:
    from pi_ai.models import builtin_provider_infos

    options = []
    providers = {provider: (info.name, info.api_key) for provider, info in builtin_provider_infos().items()}
    for provider in credentials.radius_providers():
        providers[provider] = (credentials.radius_name(provider), "Radius API key")
    for provider, (name, key_name) in providers.items():
        configured = credentials.has_auth(provider)
        flow = credentials.oauth_flow(provider)
        if flow is not None and auth_type in (None, "oauth"):
            options.append(
                LoginOption(
                    provider, name, "oauth", flow.name, flow.login_label, flow.is_subscription, configured
                )
            )
        if key_name is not None and auth_type in (None, "api_key"):
            options.append(LoginOption(provider, name, "api_key", key_name, configured=configured))
    return sorted(options, key=lambda option: option.name.casefold())


async def login(
    credentials: Credentials, provider: str, callbacks: LoginCallbacks, auth_type: AuthType = "oauth"
) -> dict[str, Any]:
    """Sign in to ``provider`` and store the credential; returns it. Raises ``OAuthError``
    (``LoginCancelled`` when the user stopped) or ``AuthFileError`` when it cannot be stored."""
    from pi_ai.models import get_provider_info
    from pi_ai.oauth import OAuthError

    if get_provider_info(provider) is None and provider not in credentials.radius_providers():
        raise OAuthError(f"Unknown provider: {provider}")
    if auth_type == "oauth":
        flow = credentials.oauth_flow(provider)
        if flow is None:
            raise OAuthError(f"{_name(credentials, provider)} does not support oauth login")
        credential = await flow.login(callbacks)
    else:
        info = get_provider_info(provider)
        key_name = (
            info.api_key
            if info is not None
            else ("Radius API key" if provider in credentials.radius_providers() else None)
        )
        if key_name is None:
            raise OAuthError(f"{_name(credentials, provider)} does not support api_key login")
        from pi_coding_agent.auth._api_key_login import api_key_login

        credential = await api_key_login(provider, key_name, callbacks)
    await credentials.storage.set(provider, credential)
    return credential


async def logout(storage: AuthStorage, provider: str) -> bool:
    """Remove the provider's stored credential; False when none was stored."""
    return await storage.delete(provider)


def stored_credentials(storage: AuthStorage) -> list[tuple[str, str]]:
    """``(provider, "oauth" | "api_key")`` for each stored credential, without resolving keys."""
    return [(provider, storage.credential_type(provider) or "") for provider in storage.providers()]


def _name(credentials: Credentials, provider: str) -> str:
    from pi_ai.models import get_provider_info

    info = get_provider_info(provider)
    if info is not None:
        return info.name
    return credentials.radius_name(provider) if provider in credentials.radius_providers() else provider
