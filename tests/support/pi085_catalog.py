"""Pi 0.85's built-in catalog, for replaying what Pi 0.85 answered.

Our built-in catalog is Pi 1.6's (docs/pi-1.6/models.md). Every case recorded from Pi 0.85
(the oracle's and ours under ``tests/conformance/cases``, the wire cases of
``tools/pi_wire_driver.mjs``) was answered with Pi 0.85's catalog, and a ``"provider/id"``
reference in it means that catalog's model: ``pi-0.85-catalog.json`` beside this file is it,
byte for byte the catalog this repository shipped before the move to 1.6.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

CATALOG = Path(__file__).with_name("pi-0.85-catalog.json")


@functools.cache
def _models() -> dict[tuple[str, str], dict[str, Any]]:
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    return {
        (provider, model["id"]): model
        for provider, models in catalog["providers"].items()
        for model in models
    }


def pi085_model(provider: str, model_id: str) -> dict[str, Any] | None:
    """The model as Pi 0.85 had it (camelCase JSON, a copy), or None when it had no such model."""
    found = _models().get((provider, model_id))
    return json.loads(json.dumps(found)) if found is not None else None
