"""``auth.json``: stored credentials per provider, in Pi's format.

::

    {"anthropic": {"type": "api_key", "key": "sk-ant-..."},
     "cloudflare-ai-gateway": {"type": "api_key", "key": "$CF_KEY", "env": {"CF_KEY": "..."}},
     "github-copilot": {"type": "oauth", "access": "...", "refresh": "...", "expires": 1760000000000}}

The file is created (``{}``, mode ``0600``, its folder ``0700``) the first time it is read,
as Pi does. A file that cannot be parsed is reported (``issue``) and treated as empty; it
is never rewritten. An existing file that others may read or write (a mode looser than
``0600``: copied from another machine, created by an editor with the umask's mode) is
tightened to ``0600`` before it is read, and ``notice`` says so; Pi 0.85 leaves it as it is.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi_coding_agent.auth._config_value import resolve_config_value
from pi_coding_agent.paths import make_private_dirs
from pi_coding_agent.settings import ConfigFileError, read_json_object

AUTH_FILE_MODE = 0o600


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
        try:
            data = read_json_object(path)
        except ConfigFileError as error:
            return cls(path, None, f"Cannot use {path}: {error.reason}", notice)
        bad = [name for name, value in (data or {}).items() if not _valid_credential(value)]
        if bad:
            return cls(path, None, f"Cannot use {path}: invalid credential for provider {bad[0]!r}", notice)
        return cls(path, data, None, notice)

    def providers(self) -> list[str]:
        """Providers with a stored credential of any kind."""
        return list(self._data)

    def has(self, provider: str) -> bool:
        return provider in self._data

    def api_key(self, provider: str) -> str | None:
        """The provider's usable key: an API key (resolved) or an unexpired OAuth token."""
        credential = self._data.get(provider)
        if not isinstance(credential, dict):
            return None
        if credential.get("type") == "api_key":
            key = credential.get("key")
            if not isinstance(key, str) or not key:
                return None
            env = credential.get("env")
            return resolve_config_value(key, env if isinstance(env, dict) else None)
        if credential.get("type") == "oauth":
            expires = credential.get("expires")
            access = credential.get("access")
            if isinstance(access, str) and isinstance(expires, (int, float)) and expires > time.time() * 1000:
                return access
        return None

    def env(self, provider: str) -> dict[str, str]:
        """Provider-scoped environment values stored with an API key credential."""
        credential = self._data.get(provider)
        env = credential.get("env") if isinstance(credential, dict) else None
        return {k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {}


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
    following a symlink (a link's target is never chmodded).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None  # missing, a symlink, unreadable: reading reports what matters
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
        return (
            isinstance(value.get("access"), str)
            and isinstance(value.get("refresh"), str)
            and isinstance(value.get("expires"), (int, float))
        )
    return False
