"""The embedded local model: installing its runtime and weights into a cache folder we own.

``pi`` falls back to it when no provider is configured; ``pi --provider local`` selects it.
The inference itself is ``pi_ai``'s ``local`` API; this package only sets it up. Importing it is
cheap (the catalog entries); building, downloading and checking load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_coding_agent.core.local_model._catalog import LocalModelSpec, ModelPart, find_spec, local_model_specs
from pi_coding_agent.core.local_model._errors import SetupError
from pi_coding_agent.core.local_model._paths import cache_root
from pi_coding_agent.core.local_model._setup import (
    LOCAL_API,
    LOCAL_PROVIDER,
    activate_runtime,
    default_local_model,
    is_local,
    local_models,
    prepare_local_model,
)

if TYPE_CHECKING:
    from pi_coding_agent.core.local_model._model_files import ensure_model_file
    from pi_coding_agent.core.local_model._progress import Progress, StderrProgress
    from pi_coding_agent.core.local_model._runtime import RuntimeSpec, build_wheel, install_runtime

__all__ = [
    "LOCAL_API",
    "LOCAL_PROVIDER",
    "LocalModelSpec",
    "ModelPart",
    "Progress",
    "RuntimeSpec",
    "SetupError",
    "StderrProgress",
    "activate_runtime",
    "build_wheel",
    "cache_root",
    "default_local_model",
    "ensure_model_file",
    "find_spec",
    "install_runtime",
    "is_local",
    "local_model_specs",
    "local_models",
    "prepare_local_model",
]

_LAZY = {
    "ensure_model_file": "_model_files",
    "Progress": "_progress",
    "StderrProgress": "_progress",
    "RuntimeSpec": "_runtime",
    "build_wheel": "_runtime",
    "install_runtime": "_runtime",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
