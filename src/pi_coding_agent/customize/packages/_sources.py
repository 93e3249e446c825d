"""Package sources as written in settings and on the command line.

* ``git:host/user/repo[@ref]``, ``git:git@host:user/repo[@ref]``, ``https://host/user/repo[@ref]``,
  ``ssh://...``, ``git://...`` (Pi's forms) and ``git:file:///path/to/repo[@ref]`` (a repository
  on this machine; Pi has no such form);
* ``pypi:name``, ``pypi:name==1.2.0``, ``pypi:name>=1,<2`` (a source distribution from a Python
  package index; ours);
* ``npm:name[@version]`` (Pi's; installed with npm into Pi's layout, ``_npm``);
* anything else is a local path (a folder, or one extension file), relative to the settings
  file it appears in (``~/.pi/agent`` or ``.pi``) or, on the command line, to the working
  directory; ``file://`` URLs are local paths too, as in Pi.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit

NON_LOCAL_PREFIXES = ("npm:", "git:", "github:", "http:", "https:", "ssh:", "pypi:", "builtin:")
"""Sources that are not paths (`builtin:` names one of Pi 1.6's built-in extensions)."""


@dataclass(frozen=True)
class GitSource:
    repo: str
    """What ``git clone`` is given."""
    host: str
    path: str
    """``user/repo``: with ``host``, the identity of the package and its install folder."""
    ref: str | None
    kind: Literal["git"] = "git"

    @property
    def pinned(self) -> bool:
        return self.ref is not None


@dataclass(frozen=True)
class PypiSource:
    name: str
    """Normalized (PEP 503): lower case, runs of ``-_.`` become ``-``."""
    specifier: str
    """Version specifier as given (``""``, ``==1.2.0``, ``>=1,<2``)."""
    kind: Literal["pypi"] = "pypi"

    @property
    def pinned(self) -> bool:
        return re.fullmatch(r"===?\s*[^,*]+", self.specifier.strip()) is not None


@dataclass(frozen=True)
class NpmSource:
    spec: str
    name: str
    version: str | None
    kind: Literal["npm"] = "npm"

    @property
    def pinned(self) -> bool:
        return (
            self.version is not None
            and re.fullmatch(r"v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?", self.version) is not None
        )


@dataclass(frozen=True)
class LocalSource:
    path: str
    kind: Literal["local"] = "local"
    pinned: bool = False


Source = GitSource | PypiSource | NpmSource | LocalSource


class SourceError(ValueError):
    """A source string that names no usable package."""


def is_local_path(value: str) -> bool:
    return not value.strip().startswith(NON_LOCAL_PREFIXES)


def normalize_distribution_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _split_ref(url: str) -> tuple[str, str | None]:
    scp = re.fullmatch(r"git@([^:]+):(.+)", url)
    if scp:
        repo_path, _, ref = scp.group(2).partition("@")
        return (f"git@{scp.group(1)}:{repo_path}", ref) if repo_path and ref else (url, None)
    if "://" in url:
        scheme, rest = url.split("://", 1)
        authority, slash, path = rest.partition("/")
        repo_path, _, ref = path.partition("@")
        if not slash or not repo_path or not ref:
            return url, None
        return f"{scheme}://{authority}/{repo_path}".rstrip("/"), ref
    host, slash, path = url.partition("/")
    repo_path, _, ref = path.partition("@")
    if not slash or not repo_path or not ref:
        return url, None
    return f"{host}/{repo_path}", ref


def _unsafe(part: str, allow_slash: bool) -> bool:
    for candidate in (part, unquote(part)):
        if "\0" in candidate or "\\" in candidate or candidate.startswith("/"):
            return True
        if not allow_slash and "/" in candidate:
            return True
        if ".." in candidate.split("/"):
            return True
    return False


def _git(repo: str, host: str, path: str, ref: str | None, *, min_segments: int = 2) -> GitSource | None:
    path = re.sub(r"\.git$", "", path).lstrip("/")
    if not host or not path or len(path.split("/")) < min_segments:
        return None
    if _unsafe(host, allow_slash=False) or _unsafe(path, allow_slash=True):
        return None
    return GitSource(repo=repo, host=host, path=path, ref=ref or None)


def parse_git_url(source: str) -> GitSource | None:
    text = source.strip()
    prefixed = text.startswith("git:")
    url = text[4:].strip() if prefixed else text
    if not prefixed and not re.match(r"(?i)(https?|ssh|git)://", url):
        return None
    repo, ref = _split_ref(url)
    if prefixed and repo.startswith("file://"):
        folder = unquote(urlsplit(repo).path)
        return _git(repo, "file", folder.lstrip("/"), ref, min_segments=1)
    scp = re.fullmatch(r"git@([^:]+):(.+)", repo)
    if scp:
        return _git(repo, scp.group(1), scp.group(2), ref)
    if re.match(r"(?i)(https?|ssh|git)://", repo):
        parts = urlsplit(repo)
        return _git(repo, parts.hostname or "", parts.path, ref)
    host, _, path = repo.partition("/")
    if "." not in host and host != "localhost":
        return None
    return _git(f"https://{repo}", host, path, ref)


def _parse_npm(spec: str) -> NpmSource:
    match = re.fullmatch(r"(@?[^@]+(?:/[^@]+)?)(?:@(.+))?", spec)
    if not match:
        return NpmSource(spec, spec, None)
    return NpmSource(spec, match.group(1), match.group(2))


def _parse_pypi(spec: str) -> PypiSource:
    match = re.fullmatch(r"([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\(?[<>=!~].*)?", spec)
    if not match:
        raise SourceError(f"pypi:{spec} is not a distribution name with an optional version (pypi:name==1.0)")
    specifier = (match.group(2) or "").strip().strip("()")
    return PypiSource(normalize_distribution_name(match.group(1)), specifier)


def parse_source(source: str) -> Source:
    """What kind of package ``source`` names (never fails for local paths)."""
    text = source.strip()
    if text.startswith("npm:"):
        return _parse_npm(text[4:].strip())
    if text.startswith("pypi:"):
        return _parse_pypi(text[5:].strip())
    if is_local_path(text):
        return LocalSource(source)
    git = parse_git_url(text)
    if git is not None:
        return git
    return LocalSource(source)


def source_identity(parsed: Source, local_path: str | None = None) -> str:
    """The same package however it is written (version and ref left out)."""
    if isinstance(parsed, NpmSource):
        return f"npm:{parsed.name}"
    if isinstance(parsed, GitSource):
        return f"git:{parsed.host}/{parsed.path}"
    if isinstance(parsed, PypiSource):
        return f"pypi:{parsed.name}"
    return f"local:{local_path if local_path is not None else parsed.path}"
