#!/usr/bin/env python3
"""Regenerate the built-in catalog from Pi 1.6 itself (its runtime in the oracle folder).

    .venv/bin/python tools/gen_catalog.py

``tools/pi_catalog_dump.mjs`` runs in Pi's Node runtime (``$PI_CURRENT_HOME``, default
``~/.cache/pi-oracle-1.6.0``, the release Pi's users run; ``install-current.sh`` installs it) and prints the catalog as pi-ai's own functions give it. Two
files are written from it:

- ``src/pi_ai/models/catalog.json``: ``{"generatedAt", "providers": {provider: [model, ...]}}``
  with providers in Pi's order (``getProviders()``: alphabetical) and models in Pi's
  per-provider order (``getModels()``), every field as Pi has it (ids, names, prices, limits,
  ``compat``, thinking maps), for every provider including those whose wire API we do not
  speak;
- ``src/pi_ai/models/providers.json``: each built-in provider's display name and the names of
  its sign-in methods (``apiKey``: "Anthropic API key"; ``oauth``: "Anthropic (Claude Pro/Max)").

Models this implementation adds of its own (the embedded ``local`` models) live elsewhere
(``pi_coding_agent.core.local_model``) and are not touched. ``tests/pi_ai/test_catalog_live.py``
runs the same dump and fails when the files drift from Pi.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DUMP = ROOT / "tools" / "pi_catalog_dump.mjs"
MODELS_DIR = ROOT / "src" / "pi_ai" / "models"


def oracle_home() -> Path:
    return Path(os.environ.get("PI_CURRENT_HOME", Path.home() / ".cache" / "pi-oracle-1.6.0"))


def node() -> Path:
    arch = "arm64" if platform.machine() in ("aarch64", "arm64") else "x64"
    return oracle_home() / "node_modules" / f"node-linux-{arch}" / "bin" / "node"


def dump_pi_catalog() -> dict[str, object]:
    """Pi's catalog as ``pi_catalog_dump.mjs`` prints it (raises if the runtime is missing)."""
    done = subprocess.run(
        [str(node()), str(DUMP)],
        capture_output=True,
        check=True,
        timeout=300,
        env={**os.environ, "PI_ORACLE_HOME": str(oracle_home())},
    )
    dumped: dict[str, object] = json.loads(done.stdout)
    return dumped


def catalog_documents(dumped: dict[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    """(``catalog.json``, ``providers.json``) contents."""
    return {"generatedAt": dumped["generatedAt"], "providers": dumped["models"]}, dict(dumped["providers"])  # type: ignore[call-overload]


def write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def main() -> int:
    if not node().exists():
        print(f"gen_catalog: Pi's Node runtime is not in {oracle_home()} (run ../shared/oracle/install-current.sh)", file=sys.stderr)
        return 2
    catalog, providers = catalog_documents(dump_pi_catalog())
    write_json(MODELS_DIR / "catalog.json", catalog)
    write_json(MODELS_DIR / "providers.json", providers)
    models = catalog["providers"]
    assert isinstance(models, dict)
    count = sum(len(entries) for entries in models.values())
    print(f"wrote catalog.json ({len(models)} providers, {count} models) and providers.json ({len(providers)} providers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
