"""Identifiers: 8-hex entry ids, UUIDv7 session ids, and the session id rule."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Container

_SESSION_ID = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
SESSION_ID_ERROR = (
    "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
    "and start and end with an alphanumeric character"
)


def _system_uuid4() -> str:
    return str(uuid.uuid4())


random_uuid: Callable[[], str] = _system_uuid4
"""Source of random UUID strings for entry ids. Replaceable (see ``use_uuid_source``)."""


def use_uuid_source(source: Callable[[], str] | None) -> None:
    """Make entry ids come from ``source`` (``None``: the system's UUIDv4 again).

    Exists so differential tests can reproduce the oracle's counter-based ids.
    """
    global random_uuid
    random_uuid = source or _system_uuid4


def generate_entry_id(taken: Container[str | None]) -> str:
    """First 8 hex digits of a random UUID, retried while taken; the full UUID after 100 tries."""
    for _ in range(100):
        candidate = os.urandom(4).hex() if random_uuid is _system_uuid4 else random_uuid()[:8]
        if candidate not in taken:
            return candidate
    return random_uuid()


def new_session_id() -> str:
    """A time-ordered UUIDv7, as Pi 0.85 uses."""
    import uuid_utils  # only new sessions need it: a few ms off every resume (bench/session_resume.py)

    return str(uuid_utils.uuid7())


class InvalidSessionIdError(ValueError):
    """A caller-supplied session id breaks the rule Pi enforces."""

    def __init__(self) -> None:
        super().__init__(SESSION_ID_ERROR)


def check_session_id(session_id: str) -> str:
    if _SESSION_ID.fullmatch(session_id) is None:
        raise InvalidSessionIdError()
    return session_id
