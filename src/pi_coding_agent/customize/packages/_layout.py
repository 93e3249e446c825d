"""Where packages live on disk: the install folders pi owns, per scope.

``user`` scope: under the agent dir (``~/.pi/agent``); ``project`` scope: under ``<cwd>/.pi``.
Git clones go to ``git/<host>/<path>``, source distributions from an index to
``pypi/<name>``; npm packages to Pi's npm project ``npm`` (``npm/node_modules/<name>``, ``_npm``).
``temporary`` scope (a remote ``pi -e`` source, not recorded in any settings) is Pi's
cache ``<agent dir>/tmp/extensions/<kind>/<hash>/<name>``, reused by later runs.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Literal

from pi_coding_agent.core.paths import CONFIG_DIR_NAME, resolve_path
from pi_coding_agent.customize.packages._sources import GitSource, NpmSource, PypiSource, Source

Scope = Literal["user", "project", "temporary"]


class LayoutError(ValueError):
    """A package would live outside pi's install folders (a crafted source)."""


@dataclass(frozen=True)
class Layout:
    cwd: str
    agent_dir: str

    def base_dir(self, scope: Scope) -> str:
        """What relative paths in that scope's settings are relative to."""
        if scope == "project":
            return os.path.join(self.cwd, CONFIG_DIR_NAME)
        if scope == "user":
            return self.agent_dir
        return self.cwd

    def resolve_local(self, path: str, scope: Scope) -> str:
        return resolve_path(path.strip(), self.base_dir(scope))

    def install_root(self, scope: Scope) -> str:
        if scope == "temporary":
            return os.path.join(self.agent_dir, "tmp", "extensions")
        return self.base_dir("project" if scope == "project" else "user")

    def install_path(self, source: Source, scope: Scope) -> str | None:
        """The folder a git/pypi/npm package is (or would be) installed in; ``None`` for local ones."""
        root = self.install_root(scope)
        if scope == "temporary":
            return _temporary_path(root, source)
        if isinstance(source, GitSource):
            return _inside(os.path.join(root, "git"), source.host, source.path)
        if isinstance(source, PypiSource):
            return _inside(os.path.join(root, "pypi"), source.name)
        if isinstance(source, NpmSource):
            return _inside(os.path.join(root, "npm", "node_modules"), source.name)
        return None


def _temporary_path(root: str, source: Source) -> str | None:
    """Pi's ``getTemporaryDir(prefix, suffix)``: ``<prefix>/<sha256(prefix-suffix)[:8]>/<suffix>``."""
    if isinstance(source, GitSource):
        prefix, suffix = f"git-{source.host}", source.path
    elif isinstance(source, PypiSource):
        prefix, suffix = "pypi", source.name
    elif isinstance(source, NpmSource):
        return _inside(root, "npm", hashlib.sha256(b"npm-").hexdigest()[:8], "node_modules", source.name)
    else:
        return None
    digest = hashlib.sha256(f"{prefix}-{suffix}".encode()).hexdigest()[:8]
    return _inside(root, prefix, digest, suffix)


def _inside(root: str, *parts: str) -> str:
    resolved_root = os.path.abspath(root)
    path = os.path.abspath(os.path.join(resolved_root, *parts))
    if path != resolved_root and not path.startswith(resolved_root + os.sep):
        raise LayoutError(f"Refusing to use path outside package install root: {path}")
    return path
