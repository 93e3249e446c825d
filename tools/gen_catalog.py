#!/usr/bin/env python3
"""Regenerate ``src/pi_ai/models/catalog.json`` from Pi 0.85's built-in model data.

    .venv/bin/python tools/gen_catalog.py [PI_AI_PROVIDER_DATA_DIR]

The source is pi-ai's ``dist/providers/data/<provider>.json`` (``{api: {id: model}}`` per
provider) in the oracle runtime. The output is one compact JSON document
``{"generatedAt": ..., "providers": {provider: [model, ...]}}`` with providers in Pi's
order (alphabetical, as ``getProviders()`` lists them) and models in Pi's per-provider order
(API groups in file order, then ids in file order, as ``getModels()`` lists them). Only the
data is carried over; field names stay Pi's so the file reads like Pi's own model JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = (
    Path.home() / ".cache/pi-oracle-0.85.0/node_modules/@earendil-works/pi-ai/dist/providers/data"
)
TARGET = ROOT / "src" / "pi_ai" / "models" / "catalog.json"


def build(source: Path) -> dict[str, object]:
    manifest = json.loads((source / ".manifest.json").read_text())
    providers: dict[str, list[object]] = {}
    for path in sorted(
        (p for p in source.glob("*.json") if not p.name.startswith(".")), key=lambda p: p.stem
    ):
        groups = json.loads(path.read_text())
        models: dict[str, object] = {}
        for group in groups.values():
            models.update(group)  # later groups win on a duplicate id, as Pi's flattening does
        providers[path.stem] = list(models.values())
    return {"generatedAt": manifest["generatedAt"], "providers": providers}


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else DEFAULT_SOURCE
    if not (source / ".manifest.json").exists():
        print(f"gen_catalog: {source} is not pi-ai's providers/data folder", file=sys.stderr)
        return 2
    catalog = build(source)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(json.dumps(catalog, ensure_ascii=False, separators=(",", ":")) + "\n")
    count = sum(len(models) for models in catalog["providers"].values())  # type: ignore[attr-defined]
    print(f"wrote {TARGET.relative_to(ROOT)}: {len(catalog['providers'])} providers, {count} models")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
