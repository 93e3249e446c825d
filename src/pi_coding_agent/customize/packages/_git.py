"""Packages from git repositories: cloned into pi's folder, moved to a ref, refreshed.

A clone is made in a staging folder and moved into place once it is checked out (and its
Python dependencies are installed), so a failed clone leaves nothing behind. Updating a
package without a ref follows its remote branch; a package with a ref is moved to that ref
(``pi update`` never moves it elsewhere). Both end with ``git reset --hard`` and
``git clean -fdx``, as in Pi, then reinstall the dependencies.
"""

from __future__ import annotations

import os

from pi_coding_agent.customize.packages._dependencies import install_dependencies
from pi_coding_agent.customize.packages._run import PackageError, run
from pi_coding_agent.customize.packages._sources import GitSource
from pi_coding_agent.customize.packages._staging import Staging


def clone(source: GitSource, destination: str, install_root: str) -> None:
    with Staging(destination, install_root) as staging:
        run(["git", "clone", "--quiet", source.repo, staging.folder], what=f"git clone {source.repo}")
        if source.ref:
            run(
                ["git", "checkout", "--quiet", source.ref],
                cwd=staging.folder,
                what=f"git checkout {source.ref}",
            )
        install_dependencies(staging.folder)
        staging.commit()


def head(folder: str) -> str:
    return run(["git", "rev-parse", "HEAD"], cwd=folder, what="git rev-parse HEAD").strip()


def _target(folder: str, source: GitSource) -> str:
    """Fetch what the package should be at, and return the commit-ish to reset to."""
    if source.ref:
        run(
            ["git", "fetch", "--quiet", "origin", source.ref],
            cwd=folder,
            what=f"git fetch origin {source.ref}",
        )
        return "FETCH_HEAD"
    run(["git", "fetch", "--quiet", "--prune", "--no-tags", "origin"], cwd=folder, what="git fetch origin")
    try:
        run(["git", "rev-parse", "--abbrev-ref", "@{upstream}"], cwd=folder, what="upstream")
        return "@{upstream}"
    except PackageError:
        run(["git", "remote", "set-head", "origin", "--auto"], cwd=folder, what="git remote set-head origin")
        return "origin/HEAD"


def update(source: GitSource, folder: str) -> bool:
    """Bring the clone to its target; whether anything changed."""
    if not os.path.isdir(os.path.join(folder, ".git")):
        raise PackageError(f"{folder} is not a git clone; remove it and install the package again")
    before = head(folder)
    target = _target(folder, source)
    wanted = run(
        ["git", "rev-parse", f"{target}^{{commit}}"], cwd=folder, what=f"git rev-parse {target}"
    ).strip()
    if wanted == before:
        return False
    run(["git", "reset", "--quiet", "--hard", wanted], cwd=folder, what=f"git reset --hard {wanted[:12]}")
    run(["git", "clean", "-fdxq"], cwd=folder, what="git clean")
    install_dependencies(folder)
    return True
