"""The real-world corpus (``../shared/corpus``, see its README): recorded inputs nobody on this
project wrote, each with the real Pi 0.85's answer. Read from there, never copied here.

The folder is ``$PI_CORPUS_DIR``, else ``corpus`` beside the oracle folder (``$PI_ORACLE_DIR``),
else ``<repo>/../shared/corpus``. When it is missing, tests
that need it are skipped, unless ``PI_REQUIRE_ORACLE=1`` (set by ``.ci/run``): then they fail.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.oracle import REPO, oracle_dir


def corpus_dir() -> Path | None:
    found = oracle_dir()
    beside_oracle = found.parent / "corpus" if found is not None else None
    for candidate in (os.environ.get("PI_CORPUS_DIR"), beside_oracle, REPO.parent / "shared" / "corpus"):
        if candidate and (Path(candidate) / "README.md").exists():
            return Path(candidate)
    return None


def case_names(folder: str) -> list[str]:
    """The case names in ``<corpus>/<folder>`` (empty when the corpus is not here)."""
    root = corpus_dir()
    if root is None:
        return []
    return sorted(path.name[: -len(".json.gz")] for path in (root / folder).glob("*.json.gz") if ".out." not in path.name)


def require_corpus() -> Path:
    root = corpus_dir()
    if root is None:
        reason = "the corpus (../shared/corpus) was not found; set PI_CORPUS_DIR"
        if os.environ.get("PI_REQUIRE_ORACLE") == "1":
            pytest.fail(f"PI_REQUIRE_ORACLE=1 but {reason}")
        pytest.skip(reason)
    return root


def load_case(folder: str, name: str) -> tuple[Any, Any]:
    """(input, Pi's answer) of one corpus case."""
    root = require_corpus() / folder
    request = json.loads(gzip.decompress((root / f"{name}.json.gz").read_bytes()))
    answer = json.loads(gzip.decompress((root / f"{name}.out.json.gz").read_bytes()))
    return request, answer
