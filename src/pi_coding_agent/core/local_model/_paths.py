"""Where the embedded model's runtime and weights live: a cache folder the project owns.

``PI_LOCAL_CACHE`` overrides the root; otherwise ``$XDG_CACHE_HOME/pi-for-python/local`` or
``~/.cache/pi-for-python/local``. Nothing is ever written into the user's Python environment.
"""

from __future__ import annotations

from pathlib import Path

from pi_coding_agent.core.paths import cache_dir

CACHE_ENV = "PI_LOCAL_CACHE"


def model_path(file_name: str) -> Path:
    """Where an embedded model's assembled GGUF file lives."""
    return cache_root() / "models" / file_name


def cache_root() -> Path:
    """The root folder of everything the local model setup writes."""
    return Path(cache_dir("local", CACHE_ENV))
