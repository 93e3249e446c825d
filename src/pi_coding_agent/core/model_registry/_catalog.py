"""Models the coding agent can use: ``pi_ai``'s catalog + ``models.json``, with credentials.

A model is *available* when its provider has credentials (``--api-key``, ``auth.json``,
a ``models.json`` key or an environment variable), and always when it runs in this process
(the embedded ``local`` models, any ``"api": "local"`` model). ``request_auth`` gives what a request
needs: the key and the extra headers ``models.json`` configures (``headers`` on the
provider, on the model or in ``modelOverrides``; ``authHeader: true`` adds
``Authorization: Bearer <key>``), each value resolved like a key (``$VAR``, ``!cmd``).

A provider signed in with OAuth may also name its own base URL (GitHub Copilot) and limit
its models to those the account has (``availableModelIds``). An OAuth token about to
expire is refreshed before the request (``with_fresh_auth``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_ai import Model, ModelRegistry, api_key_env_vars, provider_env_names
from pi_coding_agent.core.auth import AuthStorage, Credentials, resolve_config_value
from pi_coding_agent.core.local_model import LOCAL_PROVIDER, default_local_model, is_local, local_models
from pi_coding_agent.core.model_registry._models_json import load_models_json, read_models_json
from pi_coding_agent.core.model_registry._models_store import (
    dynamic_catalogs,
    refresh_catalogs,
    store_models,
    stored_models,
)
from pi_coding_agent.core.model_registry._resolver import default_available_model

if TYPE_CHECKING:
    from pi_ai import AbortSignal, AssistantMessageEventStream


RADIUS = "radius"
"""The built-in Radius gateway's provider id."""


class MissingCredentials(Exception):
    """No usable key for a provider; the message says how to provide one."""


def missing_key_message(provider: str) -> str:
    variables = api_key_env_vars(provider)
    needed = provider_env_names(provider)
    also = f" (and {' and '.join(needed)})" if needed else ""
    env_hint = f"set {' or '.join(variables)}{also}, " if variables else ""
    return (
        f"No API key found for {provider}: {env_hint}pass --api-key, add it to auth.json, "
        f'or give the provider an "apiKey" in models.json.'
    )


@dataclass(frozen=True)
class RequestAuth:
    api_key: str | None
    headers: dict[str, str | None] | None
    """``None`` values remove a default header (Cloudflare's gateway drops the SDKs' auth)."""
    env: dict[str, str] | None = None
    """Values the request needs besides (Cloudflare's account and gateway ids)."""
    base_url: str | None = None
    """Replaces the model's base URL (a credential with an endpoint of its own)."""


class ModelCatalog:
    def __init__(self, registry: ModelRegistry, credentials: Credentials) -> None:
        self.registry = registry
        self.credentials = credentials
        self.models_json: Path | None = None
        """The file the catalog was read from (extension providers are composed with it)."""
        self.extension_providers: dict[str, Any] = {}
        self.dynamic: dict[str, list[Model]] = {}
        """Catalogs of providers whose models come from their gateway (Radius)."""
        self.classifiers: list[dict[str, Any]] = []
        """Classifier models of providers (``llama.cpp``'s, as ``/llama`` stored them), beside
        pi-ai's classifier catalog, for codemode's ``models``."""

    @classmethod
    def load(cls, agent_dir: Path, auth: AuthStorage) -> ModelCatalog:
        """``models.json`` over the built-in models, and the Radius gateways' catalogs from
        ``models-store.json`` (``_models_store``)."""
        path = agent_dir / "models.json"
        registry = load_models_json(path)
        gateways = _radius_gateways(registry)
        dynamic = dynamic_catalogs(agent_dir, [RADIUS, *gateways], auth)
        if dynamic:
            registry = load_models_json(path, dynamic)
        catalog = cls(registry, Credentials(auth, _configured_keys(registry), gateways))
        catalog.credentials.set_provider_names(_provider_names(registry))
        catalog.models_json = path
        catalog.dynamic = dynamic
        catalog._restore_llama_models(agent_dir)
        return catalog

    def _restore_llama_models(self, agent_dir: Path) -> None:
        """The ``llama.cpp`` models ``/llama`` (ours or Pi's) stored last, offered again when a
        server is configured (Pi 1.6 restores them at start without asking the server)."""
        import os

        from pi_coding_agent.core.local_model import (
            LLAMA_PROVIDER,
            configured_server,
            provider_config,
            stored_chat_models,
            stored_classifier_models,
        )

        stored = stored_models(agent_dir, LLAMA_PROVIDER)
        models = stored_chat_models(stored)
        classifiers = stored_classifier_models(stored)
        if not models and not classifiers:
            return
        storage = self.credentials.storage
        try:
            server = configured_server(storage.env(LLAMA_PROVIDER), storage.api_key(LLAMA_PROVIDER), os.environ)
        except ValueError:
            return  # a URL that is not one: /llama says so when it is opened
        if server is not None:
            self.classifiers = classifiers
            with contextlib.suppress(ValueError):  # stored models of a shape models.json refuses
                self.register_provider(LLAMA_PROVIDER, provider_config(server[0], models, server[1]))

    def stored_llama_context_windows(self, agent_dir: Path) -> dict[str, int]:
        """The context window each stored ``llama.cpp`` model had (Pi sizes a model the router
        tells nothing about with it)."""
        from pi_coding_agent.core.local_model import LLAMA_PROVIDER

        stored = stored_models(agent_dir, LLAMA_PROVIDER)
        return {
            model["id"]: model["contextWindow"]
            for model in (stored if isinstance(stored, list) else [])
            if isinstance(model, dict) and isinstance(model.get("id"), str) and isinstance(model.get("contextWindow"), int)
        }

    def store_llama_models(self, agent_dir: Path, server_url: str, api_key: str | None, models: list[dict[str, Any]]) -> None:
        """``/llama``'s refresh: ``models`` (``catalog_entry``'s) stored as Pi stores them, and
        their chat models offered as the ``llama.cpp`` provider, their classifiers to codemode."""
        from pi_coding_agent.core.local_model import (
            LLAMA_PROVIDER,
            provider_config,
            stored_chat_models,
            stored_classifier_models,
        )

        store_models(agent_dir, LLAMA_PROVIDER, models)
        self.classifiers = stored_classifier_models(models)
        self.register_provider(LLAMA_PROVIDER, provider_config(server_url, stored_chat_models(models), api_key))

    def gateways(self) -> dict[str, str]:
        """The Radius providers and their gateway URLs (the built-in one and ``models.json``'s)."""
        found: dict[str, str] = {}
        for provider in [RADIUS, *self.credentials.radius_providers()]:
            gateway = getattr(self.credentials.oauth_flow(provider), "gateway", None)  # the Radius flow's
            if isinstance(gateway, str):
                found[provider] = gateway
        return found

    async def refresh_gateway_catalogs(self, agent_dir: Path) -> None:
        """Fetch every Radius catalog anew (``_models_store``: ``pi update --models``, and the
        interactive mode once its screen is up), then use what the store holds, the catalogs
        that failed kept as they were; raises ``CatalogRefreshError`` when any failed."""
        try:
            await refresh_catalogs(agent_dir, self.gateways(), self.credentials)
        finally:
            self.dynamic = dynamic_catalogs(agent_dir, list(self.gateways()), self.credentials.storage)
            self.registry = self._composed(self.extension_providers)
            self.credentials.set_configured_keys(_configured_keys(self.registry))
            self.credentials.set_provider_names(_provider_names(self.registry))

    def reload_models_json(self) -> None:
        """Read ``models.json`` again, as Pi does whenever ``/model`` refreshes its catalogs:
        a provider, model or key added while pi runs shows up, the extensions' providers and
        the gateways' catalogs stay. A file that became invalid leaves the built-in models
        and says why in ``error``. (A new Radius gateway still needs a restart.)"""
        if self.models_json is None:
            return
        self.registry = self._composed(self.extension_providers)
        self.credentials.set_configured_keys(_configured_keys(self.registry))
        self.credentials.set_provider_names(_provider_names(self.registry))

    def _composed(self, extension_providers: dict[str, Any]) -> ModelRegistry:
        """``models.json`` over ``extension_providers`` and the built-in and dynamic catalogs."""
        if not extension_providers:
            return load_models_json(self.models_json, self.dynamic) if self.models_json else ModelRegistry(dynamic=self.dynamic)
        file_overlay = read_models_json(self.models_json) if self.models_json is not None else None
        file_providers = file_overlay.get("providers", {}) if isinstance(file_overlay, dict) else {}
        return ModelRegistry({"providers": {**extension_providers, **file_providers}}, self.dynamic)

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        """Add (or override) a provider given as a ``models.json`` entry (an extension's
        ``pi.register_provider``); the file's own entry for that name still applies above it,
        as in Pi. Raises ``ValueError`` naming the problem when the entry is not valid."""
        providers = {**self.extension_providers, name: config}
        registry = self._composed(providers)
        if registry.error is not None:
            raise ValueError(f"provider {name}: {registry.error}")
        self.extension_providers = providers
        self.registry = registry
        self.credentials.set_configured_keys(_configured_keys(registry))
        self.credentials.set_provider_names(_provider_names(registry))

    @property
    def error(self) -> str | None:
        """What is wrong with ``models.json``; the built-in models stay usable."""
        return self.registry.error

    def all_models(self, *, skip_unusable: bool = False) -> list[Model]:
        """Pi's catalog and ``models.json``, then the embedded models (unless ``models.json`` redefines them).

        ``skip_unusable``: leave out the built-in models of providers without credentials (never
        available, and not decoded from the catalog at all)."""
        providers = self.registry.providers()
        if skip_unusable:
            providers = [provider for provider in providers if not self._builtin_without_credentials(provider)]
        models = [model for provider in providers for model in self.registry.models(provider)]
        known = {(model.provider, model.id) for model in models}
        return models + [model for model in local_models() if (model.provider, model.id) not in known]

    def _builtin_without_credentials(self, provider: str) -> bool:
        """Only built-in models (never in-process ones), and no credentials to use them with."""
        return (
            self.registry.provider_config(provider) is None
            and provider not in self.dynamic
            and not self.credentials.has_auth(provider)
        )

    def available(self) -> list[Model]:
        allowed: dict[str, set[str] | None] = {}
        found = []
        for model in self.all_models(skip_unusable=True):
            if not (is_local(model) or self.credentials.has_auth(model.provider)):
                continue
            if model.provider not in allowed:  # a signed-in account may have only some models
                allowed[model.provider] = self.credentials.available_model_ids(model.provider)
            ids = allowed[model.provider]
            if ids is None or model.id in ids:
                found.append(model)
        return found

    def find(self, provider: str, model_id: str) -> Model | None:
        found = self.registry.model(provider, model_id)
        if found is None and provider == LOCAL_PROVIDER:
            found = next((model for model in local_models() if model.id == model_id), None)
        return found

    def has_auth(self, provider: str) -> bool:
        if provider == LOCAL_PROVIDER or self.credentials.has_auth(provider):
            return True
        return any(is_local(model) for model in self.registry.models(provider))

    def default_model(self, *, local_fallback: bool = True) -> Model | None:
        """Pi's choice among the available remote models; with none, the embedded model
        (unless ``local_fallback`` is off: the ``localModelFallback`` setting)."""
        chosen = default_available_model([model for model in self.available() if not is_local(model)])
        if chosen is None and local_fallback:
            return self.find(LOCAL_PROVIDER, default_local_model().id)
        return chosen

    def request_auth(self, model: Model) -> RequestAuth:
        """Key and headers for a request to ``model``; raises ``MissingCredentials``."""
        if is_local(model):
            return RequestAuth(None, None)
        provider_auth = self.credentials.request_auth(model.provider)
        api_key = provider_auth.api_key if provider_auth is not None else None
        config = self.registry.provider_config(model.provider)
        raw_headers: dict[str, str] = {}
        if config is not None:
            raw_headers.update(config.headers or {})
            override = (config.model_overrides or {}).get(model.id)
            if override is not None and override.headers:
                raw_headers.update(override.headers)
            for definition in config.models or ():
                if definition.id == model.id and definition.headers:
                    raw_headers.update(definition.headers)
        scoped_env = self.credentials.storage.env(model.provider) or None
        headers: dict[str, str | None] = dict(provider_auth.headers or {}) if provider_auth is not None else {}
        for name, value in raw_headers.items():
            resolved = resolve_config_value(value, scoped_env)
            if resolved:
                headers[name] = resolved
        if config is not None and config.auth_header:
            if not api_key:
                raise MissingCredentials(missing_key_message(model.provider))
            headers["Authorization"] = f"Bearer {api_key}"
        if not api_key and not headers:
            raise MissingCredentials(missing_key_message(model.provider))
        env = dict(provider_auth.env) if provider_auth is not None and provider_auth.env else None
        return RequestAuth(api_key, headers or None, env, provider_auth.base_url if provider_auth is not None else None)

    def with_fresh_auth(
        self, model: Model, start: Callable[[], AssistantMessageEventStream], signal: AbortSignal | None
    ) -> AssistantMessageEventStream:
        """``start()``, after refreshing the provider's OAuth token when it is about to expire.
        A failed refresh ends the stream with its message, as the request would have."""
        if not self.credentials.needs_refresh(model.provider):
            return start()
        from pi_ai import start_stream

        async def refresh_then_stream(stream: AssistantMessageEventStream) -> None:
            await self.credentials.refresh(model.provider)
            async for event in start():
                stream.push(event)

        return start_stream(model, refresh_then_stream, signal=signal)


def _configured_keys(registry: ModelRegistry) -> dict[str, str]:
    """The ``apiKey`` of each provider that gives one."""
    configured: dict[str, str] = {}
    for provider in registry.providers():
        config = registry.provider_config(provider)
        if config is not None and config.api_key is not None:
            configured[provider] = config.api_key
    return configured


def _provider_names(registry: ModelRegistry) -> dict[str, str]:
    """The names ``models.json`` (or an extension) gives providers: an entry's ``name``, and a
    custom provider's id when it gives none."""
    from pi_ai.models import builtin_provider_infos

    builtin = builtin_provider_infos()
    names: dict[str, str] = {}
    for provider in registry.providers():
        config = registry.provider_config(provider)
        if config is not None and config.name:
            names[provider] = config.name
        elif provider not in builtin:
            names[provider] = provider
    return names


def _radius_gateways(registry: ModelRegistry) -> dict[str, tuple[str, str]]:
    """Providers signed in through Radius: their display name and gateway URL (without ``/v1``)."""
    radius: dict[str, tuple[str, str]] = {}
    for provider in registry.providers():
        config = registry.provider_config(provider)
        if config is not None and config.oauth == "radius" and config.base_url:
            radius[provider] = (config.name or provider, config.base_url.rstrip("/").removesuffix("/v1"))
    return radius
