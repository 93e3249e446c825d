"""How tools turn the path a model wrote into a file system path.

Models write paths in many ways: relative to the session cwd, absolute, with ``~``, as
``@file`` (the editor's mention syntax), as ``file://`` URLs, or with a Unicode space
copied from a screen. Everything resolves against the cwd given to the tool; the process
working directory is never used.
"""

from __future__ import annotations

import os
import re
import unicodedata
from urllib.parse import unquote, urlparse

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_NARROW_NBSP = "\u202f"
_AM_PM = re.compile(r" (AM|PM)\.", re.IGNORECASE)


def normalize_path(path: str) -> str:
    """Unicode spaces to spaces, a leading ``@`` dropped, ``~`` expanded, file URLs decoded."""
    normalized = _UNICODE_SPACES.sub(" ", path)
    if normalized.startswith("@"):
        normalized = normalized[1:]
    if normalized == "~":
        return os.path.expanduser("~")
    if normalized.startswith("~/"):
        return os.path.join(os.path.expanduser("~"), normalized[2:])
    if normalized.startswith("file://"):
        return unquote(urlparse(normalized).path)
    return normalized


def resolve_to_cwd(path: str, cwd: str) -> str:
    """Absolute, normalized path (``..`` and ``.`` folded, no trailing slash)."""
    normalized = normalize_path(path)
    base = os.path.expanduser(cwd) if cwd.startswith("~") else cwd
    joined = normalized if os.path.isabs(normalized) else os.path.join(base, normalized)
    resolved = os.path.normpath(joined)
    # POSIX normpath keeps a leading "//"; Node's resolve folds it like any other slash run.
    if resolved.startswith("//"):
        resolved = "/" + resolved.lstrip("/")
    return resolved


def resolve_read_path(path: str, cwd: str) -> str:
    """Like ``resolve_to_cwd``, then try the spellings macOS uses in screenshot names.

    macOS writes a narrow no-break space before AM/PM, stores names decomposed (NFD) and
    uses a curly apostrophe; a model types none of these. The first variant that exists
    wins; if none does, the plain resolution is returned (and the read fails on it).
    """
    resolved = resolve_to_cwd(path, cwd)
    if os.path.exists(resolved):
        return resolved
    am_pm = _AM_PM.sub(lambda m: f"{_NARROW_NBSP}{m.group(1)}.", resolved)
    nfd = unicodedata.normalize("NFD", resolved)
    curly = resolved.replace("'", "\u2019")
    nfd_curly = nfd.replace("'", "\u2019")
    for variant in (am_pm, nfd, curly, nfd_curly):
        if variant != resolved and os.path.exists(variant):
            return variant
    return resolved


def display_relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` with ``/`` separators (``os.path.relpath`` semantics)."""
    rel = os.path.relpath(path, root)
    return rel.replace(os.sep, "/") if os.sep != "/" else rel
