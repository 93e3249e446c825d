"""How the startup header names extensions, from where each came (``ExtensionRunner.sources``:
``(source, scope, base folder)``), as Pi's header names them.

* ``labelled_path``: the path with its origin (``path (temp)`` for ``-e``, ``user`` or
  ``project`` for a settings entry, ``auto (user)`` for a discovered one, the package source
  for a package, whose path is then relative to the package);
* ``extensions_section``: the ``[Extensions]`` section: the shortest path endings that tell
  the extensions apart (``source:path`` for a package's), or, expanded, every path grouped by
  scope (project, user, path) and package; a folder extension is named without its
  ``index.ts`` / ``index.js``, as Pi names it.

A source with a scheme (``git:``, ``pypi:``, ``npm:``...) is a package; Pi counts ``npm:``
and ``git:`` only, the two kinds it installs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_coding_agent.customize.packages import is_local_path

if TYPE_CHECKING:
    from pi_coding_agent.customize.extensions import ExtensionRunner
    from pi_coding_agent.customize.themes import Theme

Source = tuple[str, str, "str | None"]


def home_short(path: str) -> str:
    home = os.path.expanduser("~")
    return f"~{path[len(home) :]}" if home and path.startswith(home) else path


def source_of(path: str, sources: dict[str, Source]) -> Source | None:
    """The path's own source, else that of the nearest folder above it that has one."""
    current = path
    while True:
        if current in sources:
            return sources[current]
        if "/" not in current:
            return None
        current = current[: current.rindex("/")]


def completion_tag(info: Source | None) -> str | None:
    """Where a command's file comes from, as Pi tags it in ``/`` completion: ``u``, ``p`` or
    ``t`` (user, project, this run), with an ``npm:`` or ``git:`` package's source after it."""
    if info is None:
        return None
    source, scope, _ = info
    prefix = {"user": "u", "project": "p"}.get(scope, "t")
    return f"{prefix}:{source}" if source.startswith(("npm:", "git:")) else prefix


def _is_package(source: str) -> bool:
    return source != "auto" and not is_local_path(source)


def _short(path: str, info: Source | None) -> str:
    """Relative to its package for a package's extension, else the path (``~`` for home)."""
    if info is not None and _is_package(info[0]) and info[2]:
        relative = os.path.relpath(path, info[2])
        if relative != "." and not relative.startswith(".."):
            return relative
    return home_short(path)


def labelled_path(path: str, sources: dict[str, Source]) -> str:
    info = source_of(path, sources)
    if info is None:
        return home_short(path)
    source, scope, _ = info
    scope_label = {"user": "user", "project": "project", "temporary": "temp"}.get(scope)
    if source != "auto" and not _is_package(source):  # a settings entry or an ``-e`` path
        label = scope if scope in ("user", "project") else "path (temp)" if scope == "temporary" else "path"
    else:
        label = f"{source} ({scope_label})" if scope_label else source
    return f"{label} {_short(path, info)}"


def _package_label(source: str) -> str:
    """``pypi:name`` / ``npm:name`` name the package; ``git:host/owner/repo@ref`` its path."""
    kind, _, rest = source.partition(":")
    if kind == "git":
        path = rest.split("@", 1)[0].split("/", 1)[-1]
        return path.removesuffix(".git") or source
    return rest or source


INDEX_FILES = ("index.ts", "index.js")
"""A folder extension's entry file, which Pi leaves out of the names it shows."""


def _without_index(path: str) -> str:
    head, _, last = path.rpartition("/")
    return head if head and last in INDEX_FILES else path


def _path_segments(path: str) -> list[str]:
    """The path's folders and name (from ``~`` for home), a last ``index.ts``/``index.js`` dropped."""
    segments = [s for s in home_short(path).split("/") if s and s != "~"]
    if len(segments) > 1 and segments[-1] in INDEX_FILES:
        segments.pop()
    return segments


def _compact_labels(paths: list[str], sources: dict[str, Source]) -> list[str]:
    """Each extension's shortest path ending no other (non-package) extension shares."""
    local = [p for p in paths if not _is_package((source_of(p, sources) or ("", "", None))[0])]
    segments = {p: _path_segments(p) for p in local}
    labels = []
    for path in paths:
        info = source_of(path, sources)
        if info is not None and _is_package(info[0]):
            inner = _short(path, info).removeprefix("extensions/")
            labels.append(f"{_package_label(info[0])}:{inner}" if inner not in ("", ".") else _package_label(info[0]))
            continue
        mine = segments[path]
        label = "/".join(mine)
        for count in range(1, len(mine) + 1):
            candidate = mine[-count:]
            if all(segments[other][-count:] != candidate for other in local if other != path):
                label = "/".join(candidate)
                break
        labels.append(label)
    return labels


def grouped_lines(
    paths: list[str],
    sources: dict[str, Source],
    theme: Theme,
    plain: Callable[[str], str] = home_short,
    packaged: Callable[[str, Source | None], str] = _short,
) -> list[str]:
    """The paths grouped by scope (project, user, then path: ``-e``/``--skill`` and the like),
    within one by package, each sorted by path and shown by ``plain`` (``packaged`` for a
    package's), as Pi expands its resource sections."""
    groups: dict[str, tuple[list[str], dict[str, list[str]]]] = {g: ([], {}) for g in ("project", "user", "path")}
    for path in paths:
        source, scope, _ = source_of(path, sources) or ("local", "project", None)
        group = "path" if source == "cli" or scope == "temporary" else scope if scope in ("user", "project") else "path"
        if _is_package(source):
            groups[group][1].setdefault(source, []).append(path)
        else:
            groups[group][0].append(path)
    lines = []
    for name, (local, packages) in groups.items():
        if not local and not packages:
            continue
        lines.append(f"  {theme.fg('accent', name)}")
        lines += [theme.fg("dim", f"    {plain(p)}") for p in sorted(local)]
        for source, members in sorted(packages.items()):
            lines.append(f"    {theme.fg('mdLink', source)}")
            lines += [theme.fg("dim", f"      {packaged(p, source_of(p, sources))}") for p in sorted(members)]
    return lines


def extensions_section(runner: ExtensionRunner | None, theme: Theme, expanded: bool) -> list[str]:
    """``[Extensions]`` and its lines; nothing without extensions."""
    paths = [extension.path for extension in runner.extensions] if runner is not None else []
    if not paths:
        return []
    heading = theme.fg("mdHeading", "[Extensions]")
    if expanded:
        lines = grouped_lines(
            paths,
            runner.sources,  # type: ignore[union-attr]
            theme,
            plain=lambda path: _without_index(home_short(path)),
            packaged=lambda path, info: _without_index(_short(path, info)),
        )
        return [heading, *lines]
    labels = sorted(_compact_labels(paths, runner.sources))  # type: ignore[union-attr]
    return [heading, theme.fg("dim", "  " + ", ".join(labels))]
