"""Importing extension modules and running their ``setup(pi)``.

An extension is a Python file, or a folder whose ``__init__.py`` is the entry point (its
other modules import relatively). The module defines ``setup(pi)`` (or an ``async def``);
Pi's factories are ``export default function (pi)``, ours is this one function. A package's
own dependencies (``.pi-site-packages`` next to its manifest) go on the import path first.

A file that cannot be imported, has no ``setup``, or whose ``setup`` raises is reported
(``event`` ``load`` or ``setup``, in Pi's words) and left out; the other extensions still
load. The CLI then refuses to start, as Pi does (``cli._extensions``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from pi_coding_agent.customize.extensions._api import ExtensionAPI
from pi_coding_agent.customize.extensions._extension import Extension
from pi_coding_agent.customize.extensions._runner import ExtensionRunner, call_handler, error_text
from pi_coding_agent.customize.extensions._types import ExtensionError

DEPENDENCIES_DIR = ".pi-site-packages"
"""Where ``pi install`` puts a package's Python dependencies (``packages._dependencies``)."""


def _module_name(path: str) -> str:
    digest = hashlib.sha1(path.encode()).hexdigest()[:12]
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "__init__":
        stem = os.path.basename(os.path.dirname(path))
    safe = "".join(c if c.isalnum() else "_" for c in stem)
    return f"pi_extension_{safe}_{digest}"


def _add_dependencies(path: str) -> None:
    folder = os.path.dirname(path)
    for _ in range(4):
        candidate = os.path.join(folder, DEPENDENCIES_DIR)
        if os.path.isdir(candidate):
            if candidate not in sys.path:
                sys.path.insert(0, candidate)
            return
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def import_extension(path: str) -> ModuleType:
    """Import the file at ``path`` as a fresh module (a package when it is ``__init__.py``)."""
    _add_dependencies(path)
    name = _module_name(path)
    locations = [os.path.dirname(path)] if os.path.basename(path) == "__init__.py" else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _entry_file(path: str) -> str:
    """A folder stands for its ``__init__.py``."""
    absolute = os.path.abspath(path)
    return os.path.join(absolute, "__init__.py") if os.path.isdir(absolute) else absolute


def _unique(paths: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(_entry_file(path) for path in paths))


def _display_path(path: str) -> str:
    return os.path.dirname(path) if os.path.basename(path) == "__init__.py" else path


async def load_extensions(
    paths: Sequence[str],
    cwd: str,
    flag_values: dict[str, bool | str] | None = None,
    *,
    into: ExtensionRunner | None = None,
    check_conflicts: bool = True,
) -> tuple[ExtensionRunner, list[ExtensionError]]:
    """Import and set up every extension; the runner (``into``, or a new one) holds those
    that loaded. A path ``into`` already has is not loaded twice. ``check_conflicts=False``
    leaves the tool and flag conflicts to the caller (``find_conflicts``, once every kind of
    extension is in place)."""
    runner = into if into is not None else ExtensionRunner([], cwd, flag_values)
    loaded = {_entry_file(e.path) for e in runner.extensions}
    errors: list[ExtensionError] = []
    for path in (p for p in _unique(paths) if p not in loaded):
        shown = _display_path(path)
        try:
            module = import_extension(path)
        except Exception as error:
            errors.append(ExtensionError(shown, "load", f"Failed to load extension: {error_text(error)}"))
            continue
        setup = getattr(module, "setup", None)
        if not callable(setup):
            errors.append(ExtensionError(shown, "load", f"Extension does not define a setup(pi) function: {shown}"))
            continue
        extension = Extension(shown, module=module)
        runner.extensions.append(extension)
        try:
            await call_handler(setup, ExtensionAPI(extension, runner))
        except Exception as error:
            runner.extensions.remove(extension)
            errors.append(ExtensionError(shown, "setup", f"Failed to load extension: {error_text(error)}"))
    runner.refresh_handlers()
    return runner, errors + (find_conflicts(runner.extensions) if check_conflicts else [])


def find_conflicts(extensions: Sequence[Extension]) -> list[ExtensionError]:
    """A tool or flag an earlier extension registered already: a load failure of the later
    one, in Pi's words (each extension's tools, then its flags)."""
    found: list[ExtensionError] = []
    owners: dict[tuple[str, str], str] = {}
    for extension in extensions:
        for kind, names, shown in (("tool", extension.tools, "Tool \"{}\""), ("flag", extension.flags, "Flag \"--{}\"")):
            for name in names:
                owner = owners.setdefault((kind, name), extension.path)
                if owner != extension.path:
                    found.append(ExtensionError(extension.path, "load", f"{shown.format(name)} conflicts with {owner}"))
    return found
