"""Pi packages: bundles of extensions, skills, prompt templates and themes.

Sources (``_sources``), where installed packages live (``_layout``), which of their
resources apply (``_resolve``), and installing, updating and removing them (``_manager``),
behind the ``pi install/remove/update/list/config`` commands (``_cli``). The format is
described in ``docs/packages.md``.
"""

from pi_coding_agent.packages._layout import Layout, LayoutError, Scope
from pi_coding_agent.packages._resolve import (
    InstallMissing,
    PackageEntry,
    ResolvedResource,
    ResolvedResources,
    Resolver,
    ResourceOrigin,
    entry_source,
)
from pi_coding_agent.packages._sources import (
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

__all__ = [
    "GitSource",
    "InstallMissing",
    "Layout",
    "LayoutError",
    "LocalSource",
    "NpmSource",
    "PackageEntry",
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
    "source_identity",
]
