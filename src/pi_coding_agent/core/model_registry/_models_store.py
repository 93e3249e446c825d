"""``models-store.json``: the catalogs of providers whose models come from their gateway, as Pi
0.85 keeps them beside ``auth.json`` (``{"<provider>": {"models": [...], "checkedAt": ms}}``).

Radius (``radius``, and each ``models.json`` provider with ``"oauth": "radius"``) has no
built-in models: they are the gateway's, read here from the provider's stored entry (models
of other providers in it are ignored, as Pi ignores them). Before this file existed Pi kept a
Radius catalog in the OAuth credential (``gatewayConfig: {baseUrl, models}``); a provider with
no stored entry takes its models from there (those of the gateway's shape, each becoming a
``pi-messages`` model at the gateway's ``baseUrl``) and the entry is written, as Pi migrates
it. The file is written as Pi writes it (``JSON.stringify(data, null, 2)``, mode ``0600``)
under the same lock directory (``models-store.json.lock``); when another process holds the
lock the migration is left to it and the models are used all the same.

The ``llama.cpp`` provider's models are kept here too (``stored_models``, ``store_models``):
``/llama`` stores what the router offers, in Pi 1.6's shape, and the next start offers them
again (``ModelCatalog.load``).

``refresh_catalogs`` fetches each catalog anew (``pi update --models``): for every Radius
provider with a credential (a sign-in, refreshed once it has expired, or a key),
``GET <gateway>/v1/config`` with the token, and the answer's models (those of a gateway
model's shape, at the answer's ``baseUrl``) replace the stored entry. The interactive mode
also does this in the background at every start, as Pi's does (``modes/interactive/_catalog_refresh``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pi_ai import DecodeError, Model, convert
from pi_ai.js_json import stringify
from pi_coding_agent.core.auth import AuthStorage, Credentials
from pi_coding_agent.core.settings import ConfigFileError, read_json_object

STORE_FILE = "models-store.json"
_MODE = 0o600


def dynamic_catalogs(agent_dir: Path, providers: Iterable[str], auth: AuthStorage) -> dict[str, list[Model]]:
    """The models of each of ``providers`` that has any: stored, else migrated from its credential."""
    path = agent_dir / STORE_FILE
    store = _read(path)
    found: dict[str, list[Model]] = {}
    for provider in providers:
        entry = store.get(provider)
        if isinstance(entry, dict) and isinstance(entry.get("models"), list):
            raw = [m for m in entry["models"] if isinstance(m, dict) and m.get("provider") == provider]
        else:
            raw = _legacy_models(provider, auth.credential(provider))
            if raw:
                _write_entry(path, provider, {"models": raw, "checkedAt": int(time.time() * 1000)})
        models = [model for model in (_model(item) for item in raw) if model is not None]
        if models:
            found[provider] = models
    return found


def stored_models(agent_dir: Path, provider: str) -> Any:
    """The ``models`` of ``provider``'s stored entry as they are in the file (``None``: no entry)."""
    entry = _read(agent_dir / STORE_FILE).get(provider)
    return entry.get("models") if isinstance(entry, dict) else None


def store_models(agent_dir: Path, provider: str, models: list[dict[str, Any]]) -> None:
    """Replace ``provider``'s stored entry with ``models``, checked now (as Pi persists a refresh)."""
    _write_entry(agent_dir / STORE_FILE, provider, {"models": models, "checkedAt": int(time.time() * 1000)})


def _read(path: Path) -> Mapping[str, Any]:
    try:
        return read_json_object(path) or {}
    except ConfigFileError:
        return {}  # unreadable: as Pi, no stored catalogs (the file is not rewritten then)


def _model(data: Mapping[str, Any]) -> Model | None:
    try:
        return convert(dict(data), Model)
    except DecodeError:
        return None


def _is_gateway_model(value: Any) -> bool:
    """A model as a Radius gateway describes it (Pi's check)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("reasoning"), bool)
        and isinstance(value.get("input"), list)
        and isinstance(value.get("cost"), dict)
        and _number(value.get("contextWindow"))
        and _number(value.get("maxTokens"))
    )


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _legacy_models(provider: str, credential: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    if not credential or credential.get("type") != "oauth":
        return []
    return _gateway_models(provider, credential.get("gatewayConfig")) or []


def _gateway_models(provider: str, config: Any) -> list[dict[str, Any]] | None:
    """A gateway's ``{baseUrl, models}`` as the provider's models; ``None`` when it is not one."""
    if not isinstance(config, dict) or not isinstance(config.get("baseUrl"), str):
        return None
    models = config.get("models")
    if not isinstance(models, list):
        return None
    base_url = config["baseUrl"]
    return [
        {**model, "api": "pi-messages", "provider": provider, "baseUrl": base_url}
        for model in models
        if _is_gateway_model(model)
    ]


REFRESH_TIMEOUT_S = 15.0
_BODY_SHOWN = 512


class CatalogRefreshError(Exception):
    """Some catalogs could not be fetched; ``str()`` is Pi's line for it."""


async def refresh_catalogs(agent_dir: Path, gateways: Mapping[str, str], credentials: Credentials) -> None:
    """Fetch the catalog of each provider in ``gateways`` (id -> gateway URL) that has a
    credential, and store it; raises ``CatalogRefreshError`` naming each that failed."""
    import asyncio

    async def one(provider: str, gateway: str) -> str | None:
        try:
            key = await _refresh_key(provider, credentials)
            if key is None:
                return None
            models = await _fetch(provider, gateway, key)
        except Exception as error:
            return f"{provider}: {error}"
        _write_entry(agent_dir / STORE_FILE, provider, {"models": models, "checkedAt": int(time.time() * 1000)})
        return None

    try:
        async with asyncio.timeout(REFRESH_TIMEOUT_S):
            failures = await asyncio.gather(*(one(provider, url) for provider, url in gateways.items()))
    except TimeoutError:
        raise CatalogRefreshError("Model catalog refresh timed out.") from None
    problems = [failure for failure in failures if failure is not None]
    if problems:
        raise CatalogRefreshError(f"Could not refresh model catalogs: {'; '.join(problems)}")


async def _refresh_key(provider: str, credentials: Credentials) -> str | None:
    if credentials.is_oauth(provider):
        stored = credentials.storage.credential(provider) or {}
        expires = stored.get("expires")
        if not isinstance(expires, int | float) or time.time() * 1000 >= expires:
            await credentials.refresh(provider)  # only once it has expired, as Pi's refresh does
    return credentials.api_key(provider)


async def _fetch(provider: str, gateway: str, key: str) -> list[dict[str, Any]]:
    import httpx

    from pi_ai.js_json import JsonParseError, parse

    url = httpx.URL(gateway).join("/v1/config")
    headers = {"accept": "application/json", "authorization": f"Bearer {key}"}
    try:
        async with httpx.AsyncClient(timeout=REFRESH_TIMEOUT_S, trust_env=False) as client:
            response = await client.get(url, headers=headers)
    except httpx.HTTPError:
        raise RuntimeError("fetch failed") from None  # what Node's fetch says
    if response.status_code >= 400:
        body = response.text.strip()
        shown = body if len(body) <= _BODY_SHOWN else body[:_BODY_SHOWN] + "…"
        raise RuntimeError(f"Could not load Radius config from {gateway}: {response.status_code}: {shown}")
    try:
        config = parse(response.text)
    except JsonParseError as error:
        raise RuntimeError(str(error)) from None
    models = _gateway_models(provider, config)
    if models is None:
        raise RuntimeError(f"Invalid Radius config from {gateway}")
    return models


def _write_entry(path: Path, provider: str, entry: Mapping[str, Any]) -> None:
    lock = path.with_name(path.name + ".lock")
    try:
        os.mkdir(lock, 0o700)
    except OSError:
        return  # held by another process (Pi takes the same lock), or the folder is read-only
    try:
        current = dict(_read(path))
        current[provider] = dict(entry)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            os.fchmod(fd, _MODE)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(stringify(current, indent=2))
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    except OSError:
        pass  # a catalog that cannot be saved is still used for this run
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(lock)
