"""A package's own Python dependencies, installed inside the package (never into the user's
environment): ``[project].dependencies`` of its ``pyproject.toml`` go to
``<package>/.pi-site-packages`` with pip's ``--target``; the extension loader puts that folder
on the import path. Packages without dependencies (skills, templates, themes) need no pip.
"""

from __future__ import annotations

import os
import sys

from pi_coding_agent.customize.packages._run import run

DEPENDENCIES_DIR = ".pi-site-packages"


def declared_dependencies(root: str) -> list[str]:
    import tomllib

    path = os.path.join(root, "pyproject.toml")
    try:
        with open(path, "rb") as handle:
            project = tomllib.load(handle).get("project")
    except (OSError, tomllib.TOMLDecodeError):
        return []
    value = project.get("dependencies") if isinstance(project, dict) else None
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def install_dependencies(root: str, *, index_url: str | None = None) -> None:
    """Install what ``root`` declares into ``root/.pi-site-packages``; ``PackageError`` on failure."""
    wanted = declared_dependencies(root)
    if not wanted:
        return
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-input",
        "--quiet",
        "--target",
        os.path.join(root, DEPENDENCIES_DIR),
    ]
    if index_url:
        command += ["--index-url", index_url]
    run([*command, *wanted], what=f"installing the Python dependencies {', '.join(wanted)}")
