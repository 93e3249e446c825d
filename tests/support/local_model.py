"""The embedded-model runtime and model files for tests that run real inference.

``./test`` (tools/check.py) sets them up in pi's cache before pytest starts (CI keeps that cache);
a test that finds them missing fails with the command that installs them. ``PI_LOCAL_CACHE`` is
passed on so tests that give ``pi`` a throwaway ``HOME`` still use that cache, and
``PI_LOCAL_THREADS`` when it is set (``tests/conftest.py`` sets it per xdist worker).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from pi_ai import Model
from pi_coding_agent.core.local_model import (
    PREFIX_STATES,
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


KEPT_FOLDERS = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pi-for-python" / "test-local"
"""Working folders of real-model runs, at the same place in every test session (``kept_work_folder``)."""


@contextmanager
def kept_work_folder(name: str) -> Iterator[Path]:
    """An empty working folder at the same path in every test session on this machine.

    A real-model run's system prompt names its working folder, and pi keeps the evaluated state
    of the system prompt and tools in its cache (``prefix-states``, keyed by the exact tokens):
    from a folder of its own under the test's temporary folder, every run evaluates that prefix
    again (about 1 100 tokens: some 20 CPU-seconds with the 0.5B model, 35 with the 1.5B);
    from this one, a run after the first on a machine reads it back, as a user's second
    run in a project does (with ``kept_cache_env``). Another session's test of the same name
    waits for the lock."""
    KEPT_FOLDERS.mkdir(parents=True, exist_ok=True)
    with open(KEPT_FOLDERS / f"{name}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        work = KEPT_FOLDERS / name
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        try:
            yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)


def kept_cache_env() -> dict[str, str]:
    """``cache_env`` for a cache beside the kept folders that shares the real one's runtime and
    models (linked) but keeps prefix states of its own, so that the states of other tests' runs
    (a new working folder each, a new state each) do not push the kept runs' out of the few pi
    keeps."""
    real, kept = cache_root(), KEPT_FOLDERS / "cache"
    kept.mkdir(parents=True, exist_ok=True)
    for entry in real.iterdir():
        if entry.name != PREFIX_STATES and not (kept / entry.name).is_symlink():
            with suppress(FileExistsError):  # another session linked it meanwhile
                (kept / entry.name).symlink_to(entry)
    return {**cache_env(), "PI_LOCAL_CACHE": str(kept)}


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
