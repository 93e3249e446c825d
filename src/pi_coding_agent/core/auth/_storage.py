"""``auth.json``: stored credentials per provider, in Pi's format (a file either program wrote
works in the other).

::

    {"anthropic": {"type": "api_key", "key": "sk-ant-..."},
     "cloudflare-ai-gateway": {"type": "api_key", "key": "$CF_KEY", "env": {"CF_KEY": "..."}},
     "github-copilot": {"type": "oauth", "access": "...", "refresh": "...", "expires": 1760000000000,
                        "availableModelIds": ["gpt-4.1", ...]}}

Reading: the file is created (``{}``, mode ``0600``, each folder made for it ``0700``) the
first time it is read, as Pi does. An existing file that others may read is tightened to
``0600`` (``notice`` says so; Pi leaves modes alone). A file that cannot be parsed is reported
(``issue``) and treated as empty; it is never rewritten: changes to it are refused.

Writing (``modify``, ``set``, ``delete``) happens under the lock Pi uses too (``_lock``): the
file is read again, changed, and written as ``JSON.stringify(data, null, 2)`` through a
temporary file renamed over it (a crash never leaves half a file; a symlinked ``auth.json``
keeps its link and the target is replaced).
"""

from __future__ import annotations

import contextlib
import copy
import errno
import math
import os
import stat
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from pi_ai import canonical_provider, legacy_provider_ids
from pi_ai.js_json import stringify as js_stringify
from pi_coding_agent.core.auth._config_value import resolve_config_value
from pi_coding_agent.core.auth._lock import lock_path, locked
from pi_coding_agent.core.paths import make_private_dirs
from pi_coding_agent.core.settings import ConfigFileError, read_json_object

AUTH_FILE_MODE = 0o600

Credential = dict[str, Any]
Update = Callable[[Credential | None], Awaitable[Credential | None]]


class AuthFileError(Exception):
    """``auth.json`` cannot be changed (unparsable, unwritable, or its lock is held)."""


class AuthStorage:
    """Credentials read from one ``auth.json``."""

    def __init__(
        self,
        path: Path,
        data: Mapping[str, Any] | None = None,
        issue: str | None = None,
        notice: str | None = None,
    ) -> None:
        self.path = path
        self._data: dict[str, Any] = dict(data or {})
        self.issue = issue
        """Why the file could not be used, if it could not (the run goes on without it)."""
        self.notice = notice
        """What loading changed about the file (its mode tightened), for the user to know."""

    @classmethod
    def load(cls, path: Path, *, create: bool = True) -> AuthStorage:
        """Read ``path`` (creating an empty private file when missing and ``create``)."""
        if create and not path.exists():
            _create_empty(path)
        notice = _tighten_mode(path)
        data, issue = _read(path)
        return cls(path, data, issue, notice)

    def reload(self) -> None:
        self._data, self.issue = _read(self.path)

    def providers(self) -> list[str]:
        """Providers with a stored credential of any kind (a renamed provider by its current id)."""
        return list(dict.fromkeys(canonical_provider(name) for name in self._data))

    def has(self, provider: str) -> bool:
        return _stored(self._data, provider) is not None

    def credential(self, provider: str) -> Credential | None:
        """A copy of the stored credential as it is in the file (keys unresolved)."""
        found = _stored(self._data, provider)
        return copy.deepcopy(found) if isinstance(found, dict) else None

    async def read(self, provider: str) -> Credential | None:
        """``credential`` for ``pi_ai``'s ``CredentialStore`` (``pi_ai.ImagesModels`` reads
        sign-ins from ``auth.json`` through it; ``modify`` writes refreshed ones back)."""
        return self.credential(provider)

    def credential_type(self, provider: str) -> str | None:
        found = _stored(self._data, provider)
        kind = found.get("type") if isinstance(found, dict) else None
        return kind if isinstance(kind, str) else None

    def api_key(self, provider: str) -> str | None:
        """The provider's stored API key, resolved (``$VAR``, ``!command``); ``None`` for OAuth."""
        credential = _stored(self._data, provider)
        if not isinstance(credential, dict) or credential.get("type") != "api_key":
            return None
        key = credential.get("key")
        if not isinstance(key, str) or not key:
            return None
        env = credential.get("env")
        return resolve_config_value(key, env if isinstance(env, dict) else None)

    def env(self, provider: str) -> dict[str, str]:
        """Provider-scoped environment values stored with an API key credential."""
        credential = _stored(self._data, provider)
        env = credential.get("env") if isinstance(credential, dict) else None
        return {k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {}

    async def modify(self, provider: str, update: Update) -> Credential | None:
        """Under the lock: read the file again, pass the provider's credential to ``update``
        and store what it returns (``None``: leave it). Returns the credential stored after."""
        async with self._locked():
            current = self._read_for_write()
            provider = canonical_provider(provider)
            replacement = await update(copy.deepcopy(_stored(current, provider)))
            if replacement is not None:
                current[provider] = replacement
                self._write(current)
            self._data = current
            stored = _stored(current, provider)
            return copy.deepcopy(stored) if isinstance(stored, dict) else None

    async def set(self, provider: str, credential: Credential) -> None:
        async def replace(_current: Credential | None) -> Credential:
            return credential

        await self.modify(provider, replace)

    async def delete(self, provider: str) -> bool:
        """Remove the provider's credential; False when there was none."""
        async with self._locked():
            current = self._read_for_write()
            provider = canonical_provider(provider)
            names = [provider, *legacy_provider_ids(provider)]
            existed = [current.pop(name, None) for name in names] != [None] * len(names)
            if existed:
                self._write(current)
            self._data = current
            return existed

    def _locked(self) -> Any:
        try:
            if not self.path.exists():
                _create_empty(self.path)
        except OSError as error:
            raise AuthFileError(f"Cannot create {self.path}: {error.strerror or error}") from None
        return locked(self.path)

    def _read_for_write(self) -> dict[str, Any]:
        try:
            data = read_json_object(self.path)
        except ConfigFileError as error:
            raise AuthFileError(f"Cannot update {self.path}: {error.reason}") from None
        return dict(data or {})

    def _write(self, data: Mapping[str, Any]) -> None:
        text = js_stringify(data, indent=2)  # as Pi writes it: JSON.stringify(data, null, 2)
        target = self.path.resolve() if self.path.is_symlink() else self.path
        try:
            fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, target)
            except BaseException:
                _unlink_quietly(temporary)
                raise
            _fsync_dir(target.parent)
        except OSError as error:
            raise AuthFileError(f"Cannot write {self.path}: {error.strerror or error}") from None


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _read(path: Path) -> tuple[dict[str, Any], str | None]:
    """``(credentials, issue)``. A file Pi is rewriting in place (it writes without renaming)
    can be caught half-written; while its lock exists, a parse failure is retried briefly."""
    for attempt in range(10):
        try:
            data = read_json_object(path)
            break
        except ConfigFileError as error:
            if attempt == 9 or not lock_path(path).exists():
                return {}, f"Cannot use {path}: {error.reason}"
            time.sleep(0.05)
    bad = [name for name, value in (data or {}).items() if not _valid_credential(value)]
    if bad:
        return {}, f"Cannot use {path}: invalid credential for provider {bad[0]!r}"
    return dict(data or {}), None


def _create_empty(path: Path) -> None:
    make_private_dirs(str(path.parent))  # ~/.pi too, not only ~/.pi/agent
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, AUTH_FILE_MODE)
    except FileExistsError:
        return
    except OSError:
        # A read-only agent dir is not an error for a run that only reads credentials.
        return
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("{}")


def _tighten_mode(path: Path) -> str | None:
    """Make an existing ``auth.json`` of ours ``0600``; the notice when its mode was looser.

    Only a regular file owned by this user is changed, through a descriptor opened without
    following a symlink (a link's target is never chmodded: a loose one gets a warning).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        # a symlink: its target is checked; missing, unreadable: reading reports what matters
        return _loose_link_target(path) if error.errno == errno.ELOOP else None
    try:
        info = os.fstat(fd)
        mode = stat.S_IMODE(info.st_mode)
        if not stat.S_ISREG(info.st_mode) or mode & 0o077 == 0 or info.st_uid != os.getuid():
            return None
        try:
            os.fchmod(fd, AUTH_FILE_MODE)
        except OSError as error:
            return f"{path} is readable by others (mode {mode:04o}) and could not be made private: {error.strerror}"
        return f"{path} was readable by others (mode {mode:04o}); it is now private (0600)"
    finally:
        os.close(fd)


def _loose_link_target(path: Path) -> str | None:
    """The warning for a symlinked ``auth.json`` whose target others can read."""
    try:
        target = os.path.realpath(path)
        info = os.stat(target)
    except OSError:
        return None
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISREG(info.st_mode) or mode & 0o077 == 0:
        return None
    return (
        f"{path} is a symlink to {target}, which is readable by others (mode {mode:04o}); "
        f"make it private (chmod 600 {target})"
    )


def _valid_credential(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("type") == "api_key":
        key = value.get("key")
        env = value.get("env")
        return (key is None or isinstance(key, str)) and (
            env is None or (isinstance(env, dict) and all(isinstance(v, str) for v in env.values()))
        )
    if value.get("type") == "oauth":
        expires = value.get("expires")
        return (
            isinstance(value.get("access"), str)
            and isinstance(value.get("refresh"), str)
            and isinstance(expires, (int, float))
            and not isinstance(expires, bool)
            and math.isfinite(expires)
        )
    return False


def _stored(data: Mapping[str, Any], provider: str) -> Any:
    """The entry for ``provider``: under its current id, else under an old id it had (an
    ``auth.json`` written before Pi renamed it)."""
    provider = canonical_provider(provider)
    for name in (provider, *legacy_provider_ids(provider)):
        if name in data:
            return data[name]
    return None
