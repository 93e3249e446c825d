"""What a request to a provider carries, from a stored key or from the environment, as Pi's
per-provider API-key auth resolves it.

Most providers need only a key (``get_env_api_key``). Three differ:

- ``anthropic``: without a stored key, ``ANTHROPIC_AUTH_TOKEN`` comes first and is sent as
  ``Authorization: Bearer <token>`` (no ``x-api-key``); then ``ANTHROPIC_OAUTH_TOKEN``, then
  ``ANTHROPIC_API_KEY``, as keys.
- ``cloudflare-workers-ai``: the key (``CLOUDFLARE_API_KEY``) and ``CLOUDFLARE_ACCOUNT_ID``;
- ``cloudflare-ai-gateway``: the key, ``CLOUDFLARE_ACCOUNT_ID`` and ``CLOUDFLARE_GATEWAY_ID``;
  the key is sent as ``cf-aig-authorization: Bearer <key>`` and the SDKs' own auth headers
  are removed.

  For both, the ids are values the request needs (``ProviderAuth.env``): they fill the
  ``{CLOUDFLARE_ACCOUNT_ID}`` / ``{CLOUDFLARE_GATEWAY_ID}`` placeholders of the catalog's base
  URLs (``fill_base_url_placeholders``). Each comes from the values stored with a key, else
  from the environment; without all of them the provider is not configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pi_ai._env_keys import env_value, get_env_api_key
from pi_ai._model import Model

_CLOUDFLARE_IDS: dict[str, tuple[str, ...]] = {
    "cloudflare-workers-ai": ("CLOUDFLARE_ACCOUNT_ID",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID"),
}


@dataclass(frozen=True, slots=True)
class ProviderAuth:
    """A request's credentials: a key and/or headers (``None`` removes a default header), and
    values the request needs besides (Cloudflare's account and gateway ids)."""

    api_key: str | None = None
    headers: Mapping[str, str | None] | None = None
    env: Mapping[str, str] | None = None


def provider_env_names(provider: str) -> tuple[str, ...]:
    """The variables ``provider`` needs besides its key (empty for most providers)."""
    return _CLOUDFLARE_IDS.get(provider, ())


def resolve_provider_auth(
    provider: str,
    *,
    key: str | None = None,
    key_env: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
) -> ProviderAuth | None:
    """The credentials of ``provider``, or ``None`` when it is not configured.

    ``key`` is a key the caller holds (stored, given on the command line, configured), with
    ``key_env`` the values stored alongside it; without one, the environment is read
    (``env`` overrides first, then the process environment), as described above.
    """
    ids = _CLOUDFLARE_IDS.get(provider)
    if ids is not None:
        return _cloudflare(provider, ids, key, key_env, env)
    if key is not None:
        return ProviderAuth(api_key=key) if key else None
    if provider == "anthropic":
        token = env_value("ANTHROPIC_AUTH_TOKEN", env)
        if token:
            return ProviderAuth(headers={"Authorization": f"Bearer {token}"})
    api_key = get_env_api_key(provider, env)
    return ProviderAuth(api_key=api_key) if api_key else None


def _cloudflare(
    provider: str,
    ids: tuple[str, ...],
    key: str | None,
    key_env: Mapping[str, str] | None,
    env: Mapping[str, str] | None,
) -> ProviderAuth | None:
    api_key = key if key is not None else env_value("CLOUDFLARE_API_KEY", env)
    values: dict[str, str] = {}
    for name in ids:
        # A value stored with the key wins; a key stored alone still takes the id from the env.
        stored = key_env.get(name) if key is not None and key_env is not None else None
        value = stored if stored is not None else env_value(name, env)
        if not value:
            return None
        values[name] = value
    if not api_key:
        return None
    if provider == "cloudflare-ai-gateway":
        headers = {"cf-aig-authorization": f"Bearer {api_key}", "Authorization": None, "x-api-key": None}
        return ProviderAuth(headers=headers, env=values)
    return ProviderAuth(api_key=api_key, env=values)


def needs_env_auth(provider: str, api_key: str | None, headers: Mapping[str, str | None] | None) -> bool:
    """Whether a call to a Cloudflare provider came without its credentials, so that they
    (and the ids) are resolved from the environment first, as Pi's ``stream`` does."""
    if provider not in _CLOUDFLARE_IDS or (api_key and api_key.strip()):
        return False
    return not isinstance((headers or {}).get("cf-aig-authorization"), str)


def fill_base_url_placeholders(model: Model, env: Mapping[str, str] | None) -> Model:
    """``model`` with the ``{CLOUDFLARE_...}`` placeholders of its base URL filled from ``env``
    (for the Cloudflare providers; a placeholder without a value stays as it is)."""
    names = _CLOUDFLARE_IDS.get(model.provider)
    if not names or not env:
        return model
    base_url = model.base_url
    for name in ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID"):
        value = env.get(name)
        if value is not None:
            base_url = base_url.replace("{" + name + "}", value)
    if base_url == model.base_url:
        return model
    import msgspec

    return msgspec.structs.replace(model, base_url=base_url)
