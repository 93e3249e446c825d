"""The catalogs and runners behind codemode's ``models`` global, from the session's catalog.

Chat models come from the session's catalog (built-in, ``models.json``, extensions' providers);
image and classifier models from pi-ai's catalogs (Pi 1.6's), then the classifiers of the
catalog's own providers (``llama.cpp``'s, as ``/llama`` stored them, taken as they are); pi-ai's
have a ``models.json`` entry of their provider applied as Pi applies it: its ``baseUrl`` replaces theirs (unless the provider
signs in through Radius), and for classifiers its ``compat`` is laid over theirs. A type's
models are available when their provider has credentials.

``classify`` / ``generateImages`` run with the provider's request credentials (key, headers,
the endpoint a credential may carry), an OAuth token refreshed first when it is about to
expire; missing credentials are a failed result, as any provider failure is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_coding_agent.core.model_registry import MissingCredentials, ModelCatalog

if TYPE_CHECKING:
    from pi_ai import AbortSignal, ClassifierModel, ImagesModel
    from pi_coding_agent.core.codemode import ModelsAccess


def _chat_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A chat model with the defaults Pi's registry fills in for ``models.json`` entries
    (``reasoning: false``, every cost field), which our catalog leaves out."""
    cost = entry.get("cost") or {}
    return {
        **entry,
        "reasoning": entry.get("reasoning", False),
        "cost": {**cost, **{key: cost.get(key, 0) for key in ("input", "output", "cacheRead", "cacheWrite")}},
    }


def _configured(catalog: ModelCatalog, kind: str, entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with its provider's ``models.json`` ``baseUrl`` (and classifiers' ``compat``)."""
    config = catalog.registry.provider_config(entry["provider"])
    if config is None:
        return entry
    configured = dict(entry)
    if config.base_url and config.oauth != "radius":
        configured["baseUrl"] = config.base_url
    if kind == "classifier" and config.compat:
        configured["compat"] = {**(entry.get("compat") or {}), **config.compat}
    return configured


def _builtin(kind: str, provider: str | None) -> list[dict[str, Any]]:
    from pi_ai import (
        get_classifier_models,
        get_classifier_providers,
        get_image_models,
        get_image_providers,
        to_builtins,
    )

    providers, models = (
        (get_image_providers(), get_image_models)
        if kind == "image"
        else (get_classifier_providers(), get_classifier_models)
    )
    names = [provider] if provider is not None else providers
    return [to_builtins(model) for name in names for model in models(name)]


def models_access(catalog: ModelCatalog) -> ModelsAccess:
    """The ``models`` global's catalogs and runners over ``catalog``."""
    from pi_ai import to_builtins
    from pi_coding_agent.core.codemode import ModelsAccess

    def entries(kind: str, provider: str | None, *, available: bool) -> list[dict[str, Any]]:
        if kind == "chat":
            chat = catalog.available() if available else catalog.all_models()
            return [
                _chat_entry(to_builtins(model))
                for model in chat
                if provider is None or model.provider == provider
            ]
        if kind not in ("image", "classifier"):
            return []
        found = [_configured(catalog, kind, entry) for entry in _builtin(kind, provider)]
        if kind == "classifier":
            found += [dict(entry) for entry in catalog.classifiers if provider in (None, entry["provider"])]
        return [entry for entry in found if not available or catalog.has_auth(entry["provider"])]

    async def available_of_type(kind: str, provider: str | None) -> list[dict[str, Any]]:
        return entries(kind, provider, available=True)

    async def run(method: str, entry: dict[str, Any], context: dict[str, Any], signal: AbortSignal) -> Any:
        return to_builtins(await _run(catalog, method, entry, context, signal))

    return ModelsAccess(
        models_of_type=lambda kind, provider: entries(kind, provider, available=False),
        available_of_type=available_of_type,
        run=run,
    )


async def _run(
    catalog: ModelCatalog, method: str, entry: dict[str, Any], context: dict[str, Any], signal: AbortSignal
) -> Any:
    """One ``classify`` / ``generateImages`` call; failures are results."""
    import msgspec

    from pi_ai import (
        ClassifierModel,
        ImagesContext,
        ImagesModel,
        ImagesOptions,
        Model,
        classify,
        convert,
        generate_images,
    )

    model: ClassifierModel | ImagesModel = (
        convert(entry, ClassifierModel) if method == "classify" else convert(entry, ImagesModel)
    )
    try:
        if catalog.credentials.needs_refresh(model.provider):
            await catalog.credentials.refresh(model.provider)
        auth = catalog.request_auth(
            Model(
                id=model.id, name=model.name, api=model.api, provider=model.provider, base_url=model.base_url
            )
        )
    except (MissingCredentials, RuntimeError, ValueError) as error:
        return _failed(model, str(error))
    base_url = auth.base_url or model.base_url
    for name, value in (auth.env or {}).items():  # Cloudflare's {CLOUDFLARE_ACCOUNT_ID}
        base_url = base_url.replace("{" + name + "}", value)
    if base_url != model.base_url:
        model = msgspec.structs.replace(model, base_url=base_url)
    headers = {name: value for name, value in (auth.headers or {}).items() if value is not None}
    options = ImagesOptions(api_key=auth.api_key, headers=headers or None, signal=signal)
    if isinstance(model, ClassifierModel):
        return await classify(model, context, options)
    return await generate_images(model, convert(context, ImagesContext), options)


def _failed(model: ClassifierModel | ImagesModel, message: str) -> Any:
    from pi_ai import AssistantImages, ClassifierModel, classifier_error, now_ms

    if isinstance(model, ClassifierModel):
        return classifier_error(model, message)
    return AssistantImages(
        api=model.api,
        provider=model.provider,
        model=model.id,
        output=[],
        stop_reason="error",
        timestamp=now_ms(),
        error_message=message,
    )
