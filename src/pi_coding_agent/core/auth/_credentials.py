"""Which credentials a provider request uses, in Pi's order.

1. ``--api-key`` (a runtime key for the selected model's provider, never stored);
2. ``auth.json``: an API key, or an OAuth credential (see below);
3. the provider's ``apiKey`` in ``models.json`` (a literal, ``$VAR`` or ``!command``);
4. the provider's environment variables (``pi_ai.resolve_provider_auth``: for most providers
   one key variable; ``ANTHROPIC_AUTH_TOKEN`` first for Anthropic, sent as a bearer header;
   Cloudflare's account and gateway ids, taken from the environment also with a held key).

A stored credential owns its provider: the environment is read only when nothing is stored,
and an OAuth credential for a provider without a sign-in flow configures nothing.

OAuth credentials are turned into request credentials by the provider's flow
(``pi_ai.oauth``: a key, headers, sometimes a base URL). One that expires within five
minutes is refreshed first (``refresh``): under ``auth.json``'s lock, after reading the file
again (another process may have refreshed it meanwhile), with a 15 s limit; the new
credential is written before the lock is released. A failed refresh is an error for that
request ("OAuth refresh failed for <provider>: <reason>"); the credential stays, as in Pi.

Pi's documentation lists the environment before ``models.json``, but Pi 0.85 itself gives a
provider's ``models.json`` key priority over its environment variable (checked against the
real CLI); we follow the program, not the page.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi_coding_agent.core.auth._config_value import is_configured, referenced_env_vars, resolve_config_value
from pi_coding_agent.core.auth._lock import AuthLockError
from pi_coding_agent.core.auth._storage import AuthFileError, AuthStorage

if TYPE_CHECKING:
    from pi_ai import ProviderAuth
    from pi_ai.oauth import OAuthFlow

OAUTH_MIN_VALIDITY_MS = 5 * 60 * 1000
REFRESH_TIMEOUT_S = 15.0


class OAuthRefreshError(Exception):
    """An OAuth credential could not be refreshed; the message is the one to show."""


def _expires_soon(credential: Mapping[str, Any], min_validity_ms: float) -> bool:
    expires = credential.get("expires")
    return not isinstance(expires, (int, float)) or time.time() * 1000 + min_validity_ms >= expires


class Credentials:
    """Answers "which credentials for this provider?" for one run."""

    def __init__(
        self,
        storage: AuthStorage,
        configured_keys: Mapping[str, str] | None = None,
        radius_gateways: Mapping[str, tuple[str, str]] | None = None,
    ) -> None:
        self.storage = storage
        self._configured = dict(configured_keys or {})
        self._radius = dict(radius_gateways or {})
        """``models.json`` providers with ``"oauth": "radius"``: id -> (name, gateway URL)."""
        self._runtime: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._flows: dict[str, OAuthFlow | None] = {}

    def set_configured_keys(self, configured_keys: Mapping[str, str]) -> None:
        """The providers' ``apiKey`` values after the catalog changed (an extension's provider)."""
        self._configured = dict(configured_keys)

    def set_provider_names(self, names: Mapping[str, str]) -> None:
        """The names the catalog gives providers: every provider beyond the built-in ones
        (``models.json``'s, extensions'), and a built-in one renamed there. ``/login`` lists
        them as named here."""
        self._names = dict(names)

    def provider_names(self) -> dict[str, str]:
        return dict(self._names)

    def set_runtime_key(self, provider: str, key: str) -> None:
        """A key that wins over every stored one for this process only (``--api-key``)."""
        self._runtime[provider] = key

    def oauth_flow(self, provider: str) -> OAuthFlow | None:
        """The provider's sign-in flow (``None``: it has none)."""
        if provider not in self._flows:
            from pi_ai.oauth import OAUTH_PROVIDERS, get_oauth_flow

            if provider in self._radius:
                name, gateway = self._radius[provider]
                self._flows[provider] = get_oauth_flow(provider, radius_gateway=gateway, name=name)
            else:
                self._flows[provider] = get_oauth_flow(provider) if provider in OAUTH_PROVIDERS else None
        return self._flows[provider]

    def radius_providers(self) -> list[str]:
        """``models.json`` providers that sign in to a Radius gateway (``"oauth": "radius"``)."""
        return list(self._radius)

    def radius_name(self, provider: str) -> str:
        return self._radius[provider][0]

    def is_oauth(self, provider: str) -> bool:
        """The provider's requests use a stored OAuth credential."""
        return provider not in self._runtime and self.storage.credential_type(provider) == "oauth"

    def request_auth(self, provider: str) -> ProviderAuth | None:
        """What a request to ``provider`` carries (``None``: not configured). An OAuth token is
        given as stored; call ``refresh`` first when ``needs_refresh`` says so.

        A key held in 1-3 owns the provider; only without one is the environment read, where
        ``pi_ai.resolve_provider_auth`` knows the providers whose auth is more than a key
        (``ANTHROPIC_AUTH_TOKEN`` as a bearer header, Cloudflare's account and gateway ids).
        """
        from pi_ai import resolve_provider_auth

        if self.is_oauth(provider):
            return self._oauth_auth(provider)
        scoped_env = self.storage.env(provider) or None
        held, key = self._held_key(provider, scoped_env)
        if held:
            return resolve_provider_auth(provider, key=key, key_env=scoped_env) if key else None
        return resolve_provider_auth(provider, env=scoped_env)

    def api_key(self, provider: str) -> str | None:
        auth = self.request_auth(provider)
        return auth.api_key if auth is not None else None

    def has_auth(self, provider: str) -> bool:
        """True when a request to ``provider`` would carry credentials (without running commands)."""
        from pi_ai import resolve_provider_auth

        if self.is_oauth(provider):
            return self.oauth_flow(provider) is not None
        scoped_env = self.storage.env(provider) or None
        configured = self._configured.get(provider)
        if not (self._runtime.get(provider) or self.storage.has(provider)):
            if configured is None:
                return resolve_provider_auth(provider, env=scoped_env) is not None
            if not is_configured(configured, scoped_env):
                return False
        # A key is held; the provider's other values (Cloudflare's ids) must be found too.
        return resolve_provider_auth(provider, key="<held>", key_env=scoped_env) is not None

    def auth_source(self, provider: str) -> str | None:
        """Where a configured provider's credentials come from, as Pi's ``/login`` list says:
        ``runtime`` (``--api-key``), ``stored`` (``auth.json``), ``models_json_command``, the
        variables a ``models.json`` key names, ``models_json_key`` (a literal there), else the
        provider's own variables that are set (``None`` when none is)."""
        from pi_ai import api_key_env_vars

        if provider in self._runtime:
            return "runtime"
        if self.storage.has(provider):
            return "stored"
        configured = self._configured.get(provider)
        if configured is not None:
            if configured.startswith("!"):
                return "models_json_command"
            return ", ".join(referenced_env_vars(configured)) or "models_json_key"
        return ", ".join(n for n in api_key_env_vars(provider) if os.environ.get(n)) or None

    def available_model_ids(self, provider: str) -> set[str] | None:
        """The models a signed-in account may use, when its credential says (Copilot)."""
        if not self.is_oauth(provider):
            return None
        flow = self.oauth_flow(provider)
        credential = self.storage.credential(provider)
        return flow.available_model_ids(credential) if flow is not None and credential is not None else None

    def needs_refresh(self, provider: str, min_validity_ms: float = OAUTH_MIN_VALIDITY_MS) -> bool:
        if not self.is_oauth(provider) or self.oauth_flow(provider) is None:
            return False
        credential = self.storage.credential(provider)
        return credential is not None and _expires_soon(
            credential, max(OAUTH_MIN_VALIDITY_MS, min_validity_ms)
        )

    async def refresh(self, provider: str, min_validity_ms: float | None = None) -> None:
        """Renew the provider's OAuth credential if it expires within five minutes (or within
        ``min_validity_ms``, which must then hold afterwards); raises ``OAuthRefreshError``."""
        flow = self.oauth_flow(provider)
        if flow is None:
            return
        window = max(OAUTH_MIN_VALIDITY_MS, min_validity_ms or 0)

        async def renew(current: dict[str, Any] | None) -> dict[str, Any] | None:
            if current is None or current.get("type") != "oauth" or not _expires_soon(current, window):
                return None  # logged out, or refreshed by another process meanwhile
            try:
                return await asyncio.wait_for(flow.refresh(current), REFRESH_TIMEOUT_S)
            except TimeoutError:
                raise OAuthRefreshError(
                    f"OAuth refresh failed for {provider}: no answer within {REFRESH_TIMEOUT_S:.0f} s"
                ) from None
            except Exception as error:
                raise OAuthRefreshError(f"OAuth refresh failed for {provider}: {error}") from None

        try:
            stored = await self.storage.modify(provider, renew)
        except (AuthFileError, AuthLockError) as error:
            raise OAuthRefreshError(f"Credential store modify failed for {provider}: {error}") from None
        if min_validity_ms is not None and stored is not None and _expires_soon(stored, window):
            raise OAuthRefreshError(f"OAuth refresh returned a token that expires too soon for {provider}")

    def _oauth_auth(self, provider: str) -> ProviderAuth | None:
        from pi_ai import ProviderAuth

        flow = self.oauth_flow(provider)
        credential = self.storage.credential(provider)
        if flow is None or credential is None:
            return None
        derived = flow.to_auth(credential)
        return ProviderAuth(
            api_key=derived.api_key, headers=dict(derived.headers) or None, base_url=derived.base_url
        )

    def _held_key(self, provider: str, scoped_env: Mapping[str, str] | None) -> tuple[bool, str | None]:
        """(whether a key is held in 1-3, that key resolved: ``None`` when it cannot be)."""
        runtime = self._runtime.get(provider)
        if runtime:
            return True, runtime
        stored = self.storage.api_key(provider)
        if stored:
            return True, stored
        configured = self._configured.get(provider)
        if configured is not None:
            return True, resolve_config_value(configured, scoped_env)
        return False, None
