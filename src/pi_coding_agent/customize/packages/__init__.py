"""Pi packages: bundles of extensions, skills, prompt templates and themes.

Sources (``_sources``), where installed packages live (``_layout``), which of their
resources apply (``_resolve``), and installing, updating and removing them (``_manager``),
behind the ``pi install/remove/update/list/config`` commands (``_cli``). The format is
described in ``docs/packages.md``.

The manager (git, package index, archives) loads on first use: a run only resolves.
"""

from typing import TYPE_CHECKING, Any

from pi_coding_agent.customize.packages._layout import Layout, LayoutError, Scope
from pi_coding_agent.customize.packages._resolve import (
    InstallMissing,
    PackageEntry,
    ResolvedResource,
    ResolvedResources,
    Resolver,
    ResourceOrigin,
    entry_source,
)
from pi_coding_agent.customize.packages._run import PackageError
from pi_coding_agent.customize.packages._sources import (
    GitSource,
    LocalSource,
    NpmSource,
    PypiSource,
    Source,
    SourceError,
    is_local_path,
    parse_source,
    source_identity,
)

if TYPE_CHECKING:
    from pi_coding_agent.customize.packages._cli import PACKAGE_COMMANDS, run_package_command
    from pi_coding_agent.customize.packages._manager import ConfiguredPackage, PackageManager

_LAZY = {
    "ConfiguredPackage": "pi_coding_agent.customize.packages._manager",
    "PackageManager": "pi_coding_agent.customize.packages._manager",
    "PACKAGE_COMMANDS": "pi_coding_agent.customize.packages._cli",
    "run_package_command": "pi_coding_agent.customize.packages._cli",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "PACKAGE_COMMANDS",
    "ConfiguredPackage",
    "GitSource",
    "InstallMissing",
    "Layout",
    "LayoutError",
    "LocalSource",
    "NpmSource",
    "PackageEntry",
    "PackageError",
    "PackageManager",
    "PypiSource",
    "ResolvedResource",
    "ResolvedResources",
    "Resolver",
    "ResourceOrigin",
    "Scope",
    "Source",
    "SourceError",
    "entry_source",
    "is_local_path",
    "parse_source",
    "run_package_command",
    "source_identity",
]
