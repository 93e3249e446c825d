"""Resource filters of settings and manifests: globs, ``!exclude``, ``+force-include``, ``-force-exclude``.

Globs are matched like minimatch (Pi's matcher): ``*`` and ``?`` stay inside one path
segment, ``**`` crosses segments, ``[...]`` and ``{a,b}`` work, and a wildcard never matches
a leading ``.`` of a segment. A pattern is tried against the path relative to the base
folder, the file name and the absolute path; for a ``SKILL.md`` also against its folder.
``+path``/``-path`` are exact paths.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

OVERRIDE_PREFIXES = ("!", "+", "-")


def is_pattern(entry: str) -> bool:
    return entry.startswith(OVERRIDE_PREFIXES) or "*" in entry or "?" in entry


def is_override(entry: str) -> bool:
    return entry.startswith(OVERRIDE_PREFIXES)


def has_glob(entry: str) -> bool:
    return "*" in entry or "?" in entry


def strip_override(entry: str) -> str:
    return entry[1:] if entry.startswith(OVERRIDE_PREFIXES) else entry


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    if not segment.startswith("."):
        out.append(r"(?!\.)")
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = segment[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                out.append(f"[{'^' if negate else ''}{body.replace(chr(92), chr(92) * 2)}]")
                i = end
        elif char == "{":
            end = segment.find("}", i)
            if end == -1:
                out.append(re.escape(char))
            else:
                options = segment[i + 1 : end].split(",")
                out.append("(?:" + "|".join(_segment_regex(o).removeprefix(r"(?!\.)") for o in options) + ")")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    segments = pattern.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append(r"(?:(?!\.)[^/]*(?:/|$))*")
            continue
        parts.append(_segment_regex(segment) + ("" if last else "/"))
    return re.compile("".join(parts))


def glob_match(path: str, pattern: str) -> bool:
    """Whether a ``/``-separated ``path`` matches ``pattern`` as a whole."""
    return _compile(pattern).fullmatch(path) is not None


def _posix(path: str) -> str:
    return path.replace(os.sep, "/")


def _candidates(file_path: str, base_dir: str) -> tuple[list[str], list[str]]:
    """Strings a glob is tried against; second list: extra ones for a ``SKILL.md``."""
    rel = _posix(os.path.relpath(file_path, base_dir))
    name = os.path.basename(file_path)
    first = [rel, name, _posix(file_path)]
    if name != "SKILL.md":
        return first, []
    parent = os.path.dirname(file_path)
    return first, [_posix(os.path.relpath(parent, base_dir)), os.path.basename(parent), _posix(parent)]


def matches_any(file_path: str, patterns: Iterable[str], base_dir: str) -> bool:
    first, skill = _candidates(file_path, base_dir)
    for pattern in patterns:
        normalized = _posix(pattern)
        if any(glob_match(c, normalized) for c in first) or any(glob_match(c, normalized) for c in skill):
            return True
    return False


def matches_any_exact(file_path: str, patterns: Sequence[str], base_dir: str) -> bool:
    if not patterns:
        return False
    rel = _posix(os.path.relpath(file_path, base_dir))
    absolute = _posix(file_path)
    skill = os.path.basename(file_path) == "SKILL.md"
    parent = os.path.dirname(file_path)
    for pattern in patterns:
        normalized = _posix(pattern[2:] if pattern.startswith(("./", ".\\")) else pattern)
        if normalized in (rel, absolute):
            return True
        if skill and normalized in (_posix(os.path.relpath(parent, base_dir)), _posix(parent)):
            return True
    return False


def enabled_by_overrides(file_path: str, patterns: Sequence[str], base_dir: str) -> bool:
    """An auto-discovered resource stays on unless an override in ``patterns`` turns it off."""
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    includes = [p[1:] for p in patterns if p.startswith("+")]
    force_excludes = [p[1:] for p in patterns if p.startswith("-")]
    enabled = True
    if excludes and matches_any(file_path, excludes, base_dir):
        enabled = False
    if includes and matches_any_exact(file_path, includes, base_dir):
        enabled = True
    if force_excludes and matches_any_exact(file_path, force_excludes, base_dir):
        enabled = False
    return enabled


def apply_patterns(all_paths: Sequence[str], patterns: Sequence[str], base_dir: str) -> set[str]:
    """The paths that the patterns enable: plain globs select (all when none), ``!`` removes,
    ``+`` adds back exact paths, ``-`` removes exact paths last."""
    includes = [p for p in patterns if not p.startswith(OVERRIDE_PREFIXES)]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    force_includes = [p[1:] for p in patterns if p.startswith("+")]
    force_excludes = [p[1:] for p in patterns if p.startswith("-")]
    result = [p for p in all_paths if matches_any(p, includes, base_dir)] if includes else list(all_paths)
    if excludes:
        result = [p for p in result if not matches_any(p, excludes, base_dir)]
    if force_includes:
        result += [p for p in all_paths if p not in result and matches_any_exact(p, force_includes, base_dir)]
    if force_excludes:
        result = [p for p in result if not matches_any_exact(p, force_excludes, base_dir)]
    return set(result)


def delta_patterns(all_paths: Sequence[str], patterns: Sequence[str], base_dir: str) -> dict[str, bool]:
    """A project entry with ``autoload: false``: each pattern turns the paths it names on or off."""
    result: dict[str, bool] = {}
    for pattern in patterns:
        target = strip_override(pattern)
        enabled = not pattern.startswith(("-", "!"))
        exact = pattern.startswith(("+", "-"))
        for path in all_paths:
            if (
                matches_any_exact(path, [target], base_dir)
                if exact
                else matches_any(path, [target], base_dir)
            ):
                result[path] = enabled
    return result
