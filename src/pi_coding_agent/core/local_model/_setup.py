"""Making the embedded model usable: runtime built and installed, model file present and checked.

``prepare_local_model`` is what ``pi`` calls before the first request to a ``local`` model; it is
cheap once everything is in place (a stat of the model file and a stamp).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pi_ai import Model
from pi_coding_agent.core.local_model._catalog import default_spec_id, find_spec, local_model_specs
from pi_coding_agent.core.local_model._errors import SetupError
from pi_coding_agent.core.local_model._paths import cache_root, model_path

if TYPE_CHECKING:
    from pi_coding_agent.core.local_model._progress import Progress

LOCAL_PROVIDER = "local"
LOCAL_API = "local"
PREFIX_STATES = "prefix-states"
"""Folder of the cache root with the KV states of prompts' fixed prefixes (``pi_ai.api.local``)."""


def local_models() -> list[Model]:
    """The embedded models as catalog entries; ``baseUrl`` is where the GGUF file lives (or will)."""
    return [
        Model(
            id=spec.id,
            name=spec.name,
            api=LOCAL_API,
            provider=LOCAL_PROVIDER,
            base_url=str(model_path(spec.file)),
            input=["text"],
            context_window=spec.context_window,
            max_tokens=spec.max_tokens,
        )
        for spec in local_model_specs()
        if not spec.hidden
    ]


def is_local(model: Model) -> bool:
    """Runs in this process (no key, no server): the embedded models and ``"api": "local"`` ones."""
    return model.api == LOCAL_API


def default_local_model() -> Model:
    chosen = default_spec_id()
    return next(model for model in local_models() if model.id == chosen)


def activate_runtime(runtime: Path) -> None:
    """Make the ``local`` API load this runtime's llama.cpp library, and put its Python packages on
    ``sys.path``: its own first (never another llama-cpp-python build), its dependencies last (the
    host's own jinja2 wins)."""
    from pi_ai.api.local import use_library, use_prefix_cache
    from pi_coding_agent.core.local_model._prebuilt import PrebuiltSpec
    from pi_coding_agent.core.local_model._runtime import RuntimeSpec

    first, deps = str(runtime / "first"), str(runtime / "deps")
    if first not in sys.path:
        sys.path.insert(0, first)
    if deps not in sys.path:
        sys.path.append(deps)
    use_prefix_cache(str(cache_root() / PREFIX_STATES))
    for spec in (PrebuiltSpec(), RuntimeSpec()):
        if spec.library(runtime).is_file():
            use_library(str(spec.library(runtime)))
            return
    raise SetupError(f"{runtime} holds no llama.cpp library; remove it and run the setup again")


def is_set_up(model: Model) -> bool:
    """The runtime is installed and the embedded model's file is there and checked (so
    ``prepare_local_model`` has nothing to do)."""
    from pi_coding_agent.core.local_model._model_files import is_verified
    from pi_coding_agent.core.local_model._prebuilt import runtime_spec

    spec = find_spec(model.id)
    if spec is None or not (runtime_spec().site_dir() / "complete").exists():
        return False
    return is_verified(model_path(spec.file))


def prepare_local_model(model: Model, progress: Progress) -> None:
    """Build/install the runtime and fetch the model file as needed; raises ``SetupError``.

    A ``local`` model from ``models.json`` names its own GGUF file in ``baseUrl``; only the
    embedded ones are downloaded.
    """
    from pi_coding_agent.core.local_model._model_files import ensure_model_file, is_verified
    from pi_coding_agent.core.local_model._prebuilt import runtime_spec

    runtime = runtime_spec()
    spec = find_spec(model.id) if model.provider == LOCAL_PROVIDER else None
    if spec is not None and str(model_path(spec.file)) == model.base_url:
        if not (runtime.site_dir() / "complete").exists() and not is_verified(model_path(spec.file)):
            from pi_coding_agent.core.local_model._overlap import install_while

            found = spec
            activate_runtime(install_while(runtime, lambda: ensure_model_file(found, progress), progress))
            return
        activate_runtime(runtime.install(progress))
        ensure_model_file(spec, progress)
        return
    activate_runtime(runtime.install(progress))
    path = Path(model.base_url.removeprefix("file://")).expanduser()
    if not path.is_file():
        raise SetupError(f'model file {path} (baseUrl of {model.provider}/{model.id}) does not exist')
