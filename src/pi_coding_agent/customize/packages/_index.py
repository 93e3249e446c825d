"""Packages from a Python package index (PEP 503 "simple" pages): source distributions.

A pi package is a folder of resources with its manifest; a source distribution
(``name-version.tar.gz``) is exactly that folder, so that is what is fetched. The newest
version matching the source's specifier is chosen (pre-releases only when the specifier
names one, yanked files only when pinned with ``==``), its ``sha256`` is checked when the
index gives one, and the archive is unpacked (no links or paths outside it) in a staging
folder, then moved into place. The index is the ``packageIndexUrl`` setting, else
``$PIP_INDEX_URL``, else PyPI.
"""

from __future__ import annotations

import hashlib
import os
import tarfile
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import TYPE_CHECKING
from urllib.parse import urldefrag, urljoin

from pi_coding_agent.customize.packages._dependencies import install_dependencies
from pi_coding_agent.customize.packages._run import PackageError
from pi_coding_agent.customize.packages._sources import PypiSource, normalize_distribution_name
from pi_coding_agent.customize.packages._staging import Staging

if TYPE_CHECKING:
    from packaging.version import Version

DEFAULT_INDEX_URL = "https://pypi.org/simple/"
TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class Release:
    version: Version
    url: str
    sha256: str | None
    filename: str


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            values = dict(attrs)
            if values.get("href"):
                self.links.append((values["href"] or "", values))


def _sdist_version(filename: str, name: str) -> str | None:
    if not filename.endswith(".tar.gz"):
        return None
    stem = filename[: -len(".tar.gz")]
    distribution, _, version = stem.rpartition("-")
    if not distribution or normalize_distribution_name(distribution) != name:
        return None
    return version


def _fetch(url: str) -> str:
    import httpx

    try:
        response = httpx.get(
            url, timeout=TIMEOUT_SECONDS, follow_redirects=True, headers={"Accept": "text/html"}
        )
    except httpx.HTTPError as error:
        raise PackageError(f"cannot reach the package index at {url}: {error}") from None
    if response.status_code == 404:
        raise PackageError(f"the package index has no project at {url}")
    if response.status_code >= 400:
        raise PackageError(f"the package index answered {response.status_code} for {url}")
    return response.text


def releases(source: PypiSource, index_url: str) -> list[Release]:
    """Source distributions of the project that match the source's specifier, newest first."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        specifier = SpecifierSet(source.specifier)
    except InvalidSpecifier:
        raise PackageError(f"pypi:{source.name}{source.specifier}: invalid version specifier") from None
    page_url = urljoin(index_url.rstrip("/") + "/", f"{source.name}/")
    parser = _Links()
    parser.feed(_fetch(page_url))
    found: list[Release] = []
    for href, attrs in parser.links:
        url, fragment = urldefrag(urljoin(page_url, href))
        filename = url.rsplit("/", 1)[-1]
        text = _sdist_version(filename, source.name)
        if text is None:
            continue
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if "data-yanked" in attrs and not source.pinned:
            continue
        if not specifier.contains(version, prereleases=bool(specifier.prereleases)):
            continue
        sha256 = fragment[len("sha256=") :] if fragment.startswith("sha256=") else None
        found.append(Release(version, url, sha256, filename))
    found.sort(key=lambda release: release.version, reverse=True)
    return found


def best_release(source: PypiSource, index_url: str) -> Release:
    found = releases(source, index_url)
    if not found:
        wanted = f" matching {source.specifier}" if source.specifier else ""
        raise PackageError(
            f"no source distribution (.tar.gz) of {source.name}{wanted} on {index_url} "
            "(pi packages are installed from source distributions)"
        )
    return found[0]


def _download(release: Release, folder: str) -> str:
    import httpx

    path = os.path.join(folder, release.filename)
    digest = hashlib.sha256()
    try:
        with httpx.stream("GET", release.url, timeout=TIMEOUT_SECONDS, follow_redirects=True) as response:
            if response.status_code >= 400:
                raise PackageError(f"downloading {release.url} failed: HTTP {response.status_code}")
            with open(path, "wb") as out:
                for chunk in response.iter_bytes():
                    digest.update(chunk)
                    out.write(chunk)
    except httpx.HTTPError as error:
        raise PackageError(f"downloading {release.url} failed: {error}") from None
    if release.sha256 and digest.hexdigest() != release.sha256.lower():
        raise PackageError(f"{release.filename}: sha256 does not match the index ({digest.hexdigest()})")
    return path


def _unpack(archive: str, folder: str) -> str:
    """Extract a source distribution; the folder holding its files."""
    target = os.path.join(folder, "unpacked")
    try:
        with tarfile.open(archive, "r:gz") as tar:
            members = tar.getmembers()
            for member in members:
                if not (member.isfile() or member.isdir()):
                    raise PackageError(
                        f"{os.path.basename(archive)}: {member.name} is a link or device; refusing it"
                    )
            tar.extractall(target, filter="data")
    except (tarfile.TarError, OSError) as error:
        raise PackageError(f"{os.path.basename(archive)} cannot be unpacked: {error}") from None
    entries = os.listdir(target)
    if len(entries) == 1 and os.path.isdir(os.path.join(target, entries[0])):
        return os.path.join(target, entries[0])
    return target


def install_release(release: Release, destination: str, install_root: str, index_url: str) -> None:
    with Staging(destination, install_root) as staging:
        root = _unpack(_download(release, staging.folder), staging.folder)
        install_dependencies(root, index_url=index_url)
        staging.commit(root)


def installed_version(folder: str) -> str | None:
    """``Version`` of ``PKG-INFO`` in an unpacked source distribution."""
    try:
        with open(os.path.join(folder, "PKG-INFO"), encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
                if not line.strip():
                    break
    except OSError:
        return None
    return None
