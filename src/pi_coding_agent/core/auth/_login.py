"""Signing in and out: what ``/login`` and ``/logout`` call.

``login_options`` lists what can be signed in to (Pi's built-in providers, ``models.json``
Radius gateways, and the other providers of ``models.json`` and extensions, with a plain
"API key"), one entry per provider and method, by name as Pi sorts them.
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
    from pi_coding_agent.core.auth._credentials import Credentials
    from pi_coding_agent.core.auth._storage import AuthStorage

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
    options = []
    for provider, (name, key_name) in _providers(credentials).items():
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


def _providers(credentials: Credentials) -> dict[str, tuple[str, str | None]]:
    """Every provider one can sign in to: its name and its API key's name (``None``: none).

    As in Pi: the built-in ones (with Pi's built-in llama.cpp extension's ``llama.cpp``, whose
    sign-in is a server URL), the ``models.json`` Radius gateways, and each other provider of
    ``models.json`` or an extension, whose key is just an "API key"; a ``name`` given there wins."""
    from pi_ai.models import builtin_provider_infos

    names = credentials.provider_names()
    providers = {p: (names.get(p, info.name), info.api_key) for p, info in builtin_provider_infos().items()}
    from pi_coding_agent.core.local_model import LLAMA_PROVIDER

    providers[LLAMA_PROVIDER] = (names.get(LLAMA_PROVIDER, "llama.cpp"), "llama.cpp server")
    for provider in credentials.radius_providers():
        providers[provider] = (credentials.radius_name(provider), "Radius API key")
    for provider, name in names.items():
        providers.setdefault(provider, (name, "API key"))
    return providers


async def login(
    credentials: Credentials, provider: str, callbacks: LoginCallbacks, auth_type: AuthType = "oauth"
) -> dict[str, Any]:
    """Sign in to ``provider`` and store the credential; returns it. Raises ``OAuthError``
    (``LoginCancelled`` when the user stopped) or ``AuthFileError`` when it cannot be stored."""
    from pi_ai.oauth import OAuthError

    known = _providers(credentials)
    if provider not in known:
        raise OAuthError(f"Unknown provider: {provider}")
    name, key_name = known[provider]
    if auth_type == "oauth":
        flow = credentials.oauth_flow(provider)
        if flow is None:
            raise OAuthError(f"{name} does not support oauth login")
        credential = await flow.login(callbacks)
    else:
        if key_name is None:
            raise OAuthError(f"{name} does not support api_key login")
        from pi_coding_agent.core.auth._api_key_login import api_key_login

        credential = await api_key_login(provider, key_name, callbacks)
    await credentials.storage.set(provider, credential)
    return credential


async def logout(storage: AuthStorage, provider: str) -> bool:
    """Remove the provider's stored credential; False when none was stored."""
    return await storage.delete(provider)


def stored_credentials(storage: AuthStorage) -> list[tuple[str, str]]:
    """``(provider, "oauth" | "api_key")`` for each stored credential, without resolving keys."""
    return [(provider, storage.credential_type(provider) or "") for provider in storage.providers()]
