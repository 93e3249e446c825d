"""Loading a run's resources (skills, prompt templates, themes, extension paths) from
settings, packages, conventional folders and command-line paths."""

from pi_coding_agent.customize.loader._load import (
    BUILTIN_PREFIX,
    PI_BUILTIN_EXTENSIONS,
    LoadedResources,
    ResourceOptions,
    load_resources,
)
from pi_coding_agent.customize.loader._startup import load_startup_resources, offline

__all__ = [
    "BUILTIN_PREFIX",
    "PI_BUILTIN_EXTENSIONS",
    "LoadedResources",
    "ResourceOptions",
    "load_resources",
    "load_startup_resources",
    "offline",
]
