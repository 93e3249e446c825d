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

Refreshing a catalog from the gateway (``GET <gateway>/v1/config``, which Pi's interactive
mode does in the background) is not done here: see docs/providers/pi-messages.md.
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
from pi_coding_agent.auth import AuthStorage
from pi_coding_agent.settings import ConfigFileError, read_json_object

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
    config = credential.get("gatewayConfig")
    if not isinstance(config, dict) or not isinstance(config.get("baseUrl"), str):
        return []
    models = config.get("models")
    if not isinstance(models, list):
        return []
    base_url = config["baseUrl"]
    return [
        {**model, "api": "pi-messages", "provider": provider, "baseUrl": base_url}
        for model in models
        if _is_gateway_model(model)
    ]


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
