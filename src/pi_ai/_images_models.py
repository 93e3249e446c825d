"""Image models with their credentials: Pi 0.85's ``builtinImagesModels({credentials})``.

``generate_images`` (``pi_ai._images``) needs the key in its options, as Pi's compat
``generateImages``. ``ImagesModels.generate_images`` finds it as Pi's collection does: the
``api_key`` option, else the provider's stored credential (a sign-in, refreshed when it has
less than five minutes left, or a stored key), else the provider's environment variable
(``OPENROUTER_API_KEY``). A stored credential owns the provider: a sign-in that cannot be
refreshed fails the call instead of falling back to the environment. Credentials come from a
``CredentialStore``: ``InMemoryCredentialStore`` here, the coding agent's ``AuthStorage``
(``auth.json``, shared with Pi) there.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_ai._env_keys import api_key_env_vars, env_value
from pi_ai._images import (
    AssistantImages,
    ImagesContext,
    ImagesModel,
    ImagesOptions,
    generate_images,
    get_image_models,
)

if TYPE_CHECKING:
    import asyncio

__all__ = ["CredentialStore", "ImagesModels", "InMemoryCredentialStore"]

OAUTH_MIN_VALIDITY_MS = 5 * 60 * 1000
IMAGES_PROVIDERS = ("openrouter",)
"""The providers of Pi's built-in image models."""

Credential = dict[str, Any]
Update = Callable[[Credential | None], Awaitable[Credential | None]]


class CredentialStore(Protocol):
    """Stored credentials per provider, in ``auth.json``'s shape (``{"type": "oauth" | "api_key", ...}``)."""

    async def read(self, provider: str) -> Credential | None: ...

    async def modify(self, provider: str, update: Update) -> Credential | None:
        """Replace the provider's credential with ``update(current)`` (``None``: unchanged),
        one change at a time; the credential after it."""
        ...


class InMemoryCredentialStore:
    def __init__(self, credentials: dict[str, Credential] | None = None) -> None:
        self._credentials = dict(credentials or {})
        self._locks: dict[str, asyncio.Lock] = {}

    async def read(self, provider: str) -> Credential | None:
        return self._credentials.get(provider)

    async def modify(self, provider: str, update: Update) -> Credential | None:
        import asyncio  # not at import: asyncio loads ssl, and ``import pi_ai`` stays light

        async with self._locks.setdefault(provider, asyncio.Lock()):
            changed = await update(self._credentials.get(provider))
            if changed is not None:
                self._credentials[provider] = changed
            return self._credentials.get(provider)


class ImagesModels:
    def __init__(self, credentials: CredentialStore | None = None) -> None:
        self.credentials: CredentialStore = credentials or InMemoryCredentialStore()

    def models(self, provider: str | None = None) -> list[ImagesModel]:
        providers = IMAGES_PROVIDERS if provider is None else (provider,)
        return [model for name in providers for model in get_image_models(name)]

    def model(self, provider: str, model_id: str) -> ImagesModel | None:
        return next((model for model in self.models(provider) if model.id == model_id), None)

    async def api_key(self, provider: str, options: ImagesOptions | None = None) -> str | None:
        """The key a request to ``provider`` carries (see the module docstring); raises
        ``RuntimeError`` when a sign-in cannot be refreshed."""
        if provider not in IMAGES_PROVIDERS:
            raise LookupError(f"Unknown provider: {provider}")
        if options is not None and options.api_key is not None:
            return options.api_key
        stored = await self.credentials.read(provider)
        if stored is not None:
            if stored.get("type") == "oauth":
                return await self._oauth_key(provider, stored)
            if stored.get("type") != "api_key":
                return None
            if stored.get("key"):
                return str(stored["key"])
        env = options.env if options is not None else None
        return next((value for name in api_key_env_vars(provider) if (value := env_value(name, env))), None)

    async def _oauth_key(self, provider: str, credential: Credential) -> str | None:
        from pi_ai.oauth import get_oauth_flow

        flow = get_oauth_flow(provider)
        if flow is None:
            return None
        if _expires_soon(credential):

            async def renew(current: Credential | None) -> Credential | None:
                if current is None or current.get("type") != "oauth" or not _expires_soon(current):
                    return None  # signed out, or refreshed meanwhile
                return {**await flow.refresh(current), "type": "oauth"}

            try:
                credential = await self.credentials.modify(provider, renew) or {}
            except Exception as error:
                raise RuntimeError(f"OAuth refresh failed for {provider}: {error}") from None
            if credential.get("type") != "oauth":
                return None
        return flow.to_auth(credential).api_key

    async def generate_images(
        self, model: ImagesModel, context: ImagesContext, options: ImagesOptions | None = None
    ) -> AssistantImages:
        """Generate images with the key found for ``model.provider``; failures are values."""
        try:
            key = await self.api_key(model.provider, options)
        except (LookupError, RuntimeError) as error:
            return AssistantImages(
                api=model.api,
                provider=model.provider,
                model=model.id,
                output=[],
                stop_reason="error",
                error_message=str(error),
                timestamp=int(time.time() * 1000),
            )
        request = (
            dataclasses.replace(options, api_key=key) if options is not None else ImagesOptions(api_key=key)
        )
        return await generate_images(model, context, request)


def _expires_soon(credential: Credential) -> bool:
    expires = credential.get("expires")
    return not isinstance(expires, int | float) or time.time() * 1000 + OAUTH_MIN_VALIDITY_MS >= expires
