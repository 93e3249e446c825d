"""Which API key a provider request uses, in Pi's order.

1. ``--api-key`` (a runtime key for the selected model's provider, never stored);
2. ``auth.json``;
3. the provider's ``apiKey`` in ``models.json`` (a literal, ``$VAR`` or ``!command``);
4. the provider's environment variable (``pi_ai.get_env_api_key``).

Pi's documentation lists the environment before ``models.json``, but Pi 0.85 itself gives a
provider's ``models.json`` key priority over its environment variable (checked against the
real CLI); we follow the program, not the page.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_coding_agent.auth._config_value import is_configured, resolve_config_value
from pi_coding_agent.auth._storage import AuthStorage


class Credentials:
    """Answers "which key for this provider?" for one run."""

    def __init__(self, storage: AuthStorage, configured_keys: Mapping[str, str] | None = None) -> None:
        self.storage = storage
        self._configured = dict(configured_keys or {})
        self._runtime: dict[str, str] = {}

    def set_runtime_key(self, provider: str, key: str) -> None:
        """A key that wins over every stored one for this process only (``--api-key``)."""
        self._runtime[provider] = key

    def api_key(self, provider: str) -> str | None:
        runtime = self._runtime.get(provider)
        if runtime:
            return runtime
        stored = self.storage.api_key(provider)
        if stored:
            return stored
        scoped_env = self.storage.env(provider) or None
        configured = self._configured.get(provider)
        if configured is not None:
            return resolve_config_value(configured, scoped_env)
        from pi_ai import get_env_api_key

        return get_env_api_key(provider, scoped_env)

    def has_auth(self, provider: str) -> bool:
        """True when a request to ``provider`` would carry credentials (without running commands)."""
        if self._runtime.get(provider) or self.storage.has(provider):
            return True
        scoped_env = self.storage.env(provider) or None
        configured = self._configured.get(provider)
        if configured is not None:
            return is_configured(configured, scoped_env)
        from pi_ai import get_env_api_key

        return get_env_api_key(provider, scoped_env) is not None
