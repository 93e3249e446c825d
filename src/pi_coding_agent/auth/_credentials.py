"""Which API key a provider request uses, in Pi's order.

1. ``--api-key`` (a runtime key for the selected model's provider, never stored);
2. ``auth.json``;
3. the provider's ``apiKey`` in ``models.json`` (a literal, ``$VAR`` or ``!command``);
4. the provider's environment variables (``pi_ai.resolve_provider_auth``: for most providers
   one key variable; ``ANTHROPIC_AUTH_TOKEN`` first for Anthropic, sent as a bearer header;
   Cloudflare's account and gateway ids, taken from the environment also with a held key).

Pi's documentation lists the environment before ``models.json``, but Pi 0.85 itself gives a
provider's ``models.json`` key priority over its environment variable (checked against the
real CLI); we follow the program, not the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pi_coding_agent.auth._config_value import is_configured, resolve_config_value
from pi_coding_agent.auth._storage import AuthStorage

if TYPE_CHECKING:
    from pi_ai import ProviderAuth


class Credentials:
    """Answers "which credentials for this provider?" for one run."""

    def __init__(self, storage: AuthStorage, configured_keys: Mapping[str, str] | None = None) -> None:
        self.storage = storage
        self._configured = dict(configured_keys or {})
        self._runtime: dict[str, str] = {}

    def set_configured_keys(self, configured_keys: Mapping[str, str]) -> None:
        """The providers' ``apiKey`` values after the catalog changed (an extension's provider)."""
        self._configured = dict(configured_keys)

    def set_runtime_key(self, provider: str, key: str) -> None:
        """A key that wins over every stored one for this process only (``--api-key``)."""
        self._runtime[provider] = key

    def request_auth(self, provider: str) -> ProviderAuth | None:
        """What a request to ``provider`` carries (``None``: not configured).

        A key held in 1-3 owns the provider; only without one is the environment read, where
        ``pi_ai.resolve_provider_auth`` knows the providers whose auth is more than a key
        (``ANTHROPIC_AUTH_TOKEN`` as a bearer header, Cloudflare's account and gateway ids).
        """
        from pi_ai import resolve_provider_auth

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

        scoped_env = self.storage.env(provider) or None
        configured = self._configured.get(provider)
        if not (self._runtime.get(provider) or self.storage.has(provider)):
            if configured is None:
                return resolve_provider_auth(provider, env=scoped_env) is not None
            if not is_configured(configured, scoped_env):
                return False
        # A key is held; the provider's other values (Cloudflare's ids) must be found too.
        return resolve_provider_auth(provider, key="<held>", key_env=scoped_env) is not None

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
