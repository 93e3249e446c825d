"""The embedded-model runtime and model files for tests that run real inference.

``./test`` (tools/check.py) sets them up in pi's cache before pytest starts (CI keeps that cache);
a test that finds them missing fails with the command that installs them. ``PI_LOCAL_CACHE`` is
passed on so tests that give ``pi`` a throwaway ``HOME`` still use that cache, and
``PI_LOCAL_THREADS`` when it is set (``tests/conftest.py`` sets it per xdist worker).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pi_ai import Model
from pi_coding_agent.core.local_model import (
    RuntimeSpec,
    activate_runtime,
    cache_root,
    find_spec,
    runtime_spec,
)

SMOKE_MODEL = "smollm2-135m"
"""Tiny and fast (tests of mechanics); its answers are not meant to be good."""
SMALL_MODEL = "qwen2.5-coder-0.5b"
"""The smallest model that does real tasks (tests of behaviour)."""
DEFAULT_MODEL = "qwen2.5-coder-1.5b"
"""The model ``pi`` runs when nothing is configured (the README's first command)."""


def cache_env() -> dict[str, str]:
    threads = os.environ.get("PI_LOCAL_THREADS")
    return {"PI_LOCAL_CACHE": str(cache_root()), **({"PI_LOCAL_THREADS": threads} if threads else {})}


def cache_env_with_only(folder: Path, *model_ids: str) -> dict[str, str]:
    """``cache_env`` for a cache in ``folder`` that shares the real runtime but holds only the
    given models (linked, with their checks), whatever else the real cache has downloaded."""
    real = cache_root()
    (folder / "models").mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name != "models":
            (folder / entry.name).symlink_to(entry)
    for model_id in model_ids:
        gguf = model_file(model_id)
        for path in (gguf, gguf.with_name(gguf.name + ".verified")):
            (folder / "models" / path.name).symlink_to(path)
    return {**cache_env(), "PI_LOCAL_CACHE": str(folder)}


def require_runtime() -> Path:
    """The runtime ``pi`` uses on this machine (the prebuilt llama.cpp where it fits), activated."""
    runtime = runtime_spec().site_dir()
    if not (runtime / "complete").exists():
        pytest.fail(f"the local model runtime is not set up: run {sys.executable} -m pi_coding_agent.core.local_model setup")
    activate_runtime(runtime)
    return runtime


def require_source_runtime() -> Path:
    """The llama-cpp-python source build (its server; the fallback runtime), not activated."""
    runtime = RuntimeSpec().site_dir()
    if not (runtime / "complete").exists():
        pytest.fail(
            f"the llama-cpp-python build is not set up: run {sys.executable} -m pi_coding_agent.core.local_model "
            "setup --with-source-build"
        )
    return runtime


def model_file(model_id: str) -> Path:
    spec = find_spec(model_id)
    assert spec is not None, model_id
    path = cache_root() / "models" / spec.file
    if not path.is_file():
        pytest.fail(f"{path} is missing: run {sys.executable} -m pi_coding_agent.core.local_model setup {model_id}")
    return path


def local_model(model_id: str, *, context_window: int = 4096, max_tokens: int = 256) -> Model:
    """A ``local`` API model for ``model_id``'s file, runtime activated."""
    require_runtime()
    return Model(
        id=model_id, name=model_id, api="local", provider="local", base_url=str(model_file(model_id)),
        input=["text"], context_window=context_window, max_tokens=max_tokens,
    )
