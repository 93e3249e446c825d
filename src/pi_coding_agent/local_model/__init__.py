"""The embedded local model: installing its runtime and weights into a cache folder we own.

``pi`` falls back to it when no provider is configured; ``pi --provider local`` selects it.
The inference itself is ``pi_ai``'s ``local`` API; this package only sets it up.
"""

from pi_coding_agent.local_model._catalog import LocalModelSpec, find_spec, local_model_specs
from pi_coding_agent.local_model._paths import cache_root
from pi_coding_agent.local_model._progress import Progress, StderrProgress
from pi_coding_agent.local_model._runtime import RuntimeSpec, SetupError
from pi_coding_agent.local_model._setup import (
    LOCAL_API,
    LOCAL_PROVIDER,
    activate_runtime,
    default_local_model,
    local_models,
    prepare_local_model,
)

__all__ = [
    "LOCAL_API",
    "LOCAL_PROVIDER",
    "LocalModelSpec",
    "Progress",
    "RuntimeSpec",
    "SetupError",
    "StderrProgress",
    "activate_runtime",
    "cache_root",
    "default_local_model",
    "find_spec",
    "local_model_specs",
    "local_models",
    "prepare_local_model",
]
