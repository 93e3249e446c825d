"""Pi packages: bundles of extensions, skills, prompt templates and themes.

Sources (``_sources``), where installed packages live (``_layout``), which of their
resources apply (``_resolve``), and installing, updating and removing them (``_manager``),
behind the ``pi install/remove/update/list/config`` commands (``_cli``). The format is
described in ``docs/packages.md``.

The manager (git, package index, archives) loads on first use: a run only resolves.
"""

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes
from pi_coding_agent.customize.packages._layout import Layout as Layout
from pi_coding_agent.customize.packages._layout import LayoutError as LayoutError
from pi_coding_agent.customize.packages._layout import Scope as Scope
from pi_coding_agent.customize.packages._resolve import InstallMissing as InstallMissing
from pi_coding_agent.customize.packages._resolve import PackageEntry as PackageEntry
from pi_coding_agent.customize.packages._resolve import ResolvedResource as ResolvedResource
from pi_coding_agent.customize.packages._resolve import ResolvedResources as ResolvedResources
from pi_coding_agent.customize.packages._resolve import Resolver as Resolver
from pi_coding_agent.customize.packages._resolve import ResourceOrigin as ResourceOrigin
from pi_coding_agent.customize.packages._resolve import entry_source as entry_source
from pi_coding_agent.customize.packages._run import PackageError as PackageError
from pi_coding_agent.customize.packages._sources import GitSource as GitSource
from pi_coding_agent.customize.packages._sources import LocalSource as LocalSource
from pi_coding_agent.customize.packages._sources import NpmSource as NpmSource
from pi_coding_agent.customize.packages._sources import PypiSource as PypiSource
from pi_coding_agent.customize.packages._sources import Source as Source
from pi_coding_agent.customize.packages._sources import SourceError as SourceError
from pi_coding_agent.customize.packages._sources import is_local_path as is_local_path
from pi_coding_agent.customize.packages._sources import parse_source as parse_source
from pi_coding_agent.customize.packages._sources import source_identity as source_identity

if TYPE_CHECKING:
    from pi_coding_agent.customize.packages._cli import PACKAGE_COMMANDS as PACKAGE_COMMANDS
    from pi_coding_agent.customize.packages._cli import run_package_command as run_package_command
    from pi_coding_agent.customize.packages._manager import ConfiguredPackage as ConfiguredPackage
    from pi_coding_agent.customize.packages._manager import PackageManager as PackageManager


__getattr__, __dir__ = lazy_attributes(globals())
