"""Where Pi keeps session files, and how it names them.

``<agent dir>/sessions/--<cwd with / \\ : turned into ->--/<ISO time>_<session id>.jsonl``,
the agent dir being ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``. Folders this module creates
are private to the user (``0700``); existing folders are left as they are.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from pi_coding_agent.core.paths import (
    SESSION_DIR_ENV,
    expand_tilde,
    get_agent_dir,
    make_private_dirs,
    resolve_path,
)


def sessions_dir(env: Mapping[str, str] | None = None) -> str:
    return os.path.join(get_agent_dir(env), "sessions")


def resolve_session_dir(
    cli_session_dir: str | None = None,
    settings_session_dir: str | None = None,
    env: Mapping[str, str] | None = None,
) -> str | None:
    """The session folder the CLI uses: ``--session-dir`` > ``$PI_CODING_AGENT_SESSION_DIR`` > setting.

    ``None`` means the default per-project folder.
    """
    if cli_session_dir:
        return expand_tilde(cli_session_dir)
    from_env = (os.environ if env is None else env).get(SESSION_DIR_ENV)
    if from_env:
        return expand_tilde(from_env)
    return settings_session_dir or None


_SEPARATORS = re.compile(r"[/\\:]")


def encode_cwd(cwd: str) -> str:
    """``/home/dev/project`` -> ``--home-dev-project--``."""
    resolved = resolve_path(cwd)
    trimmed = resolved[1:] if resolved[:1] in ("/", "\\") else resolved
    return f"--{_SEPARATORS.sub('-', trimmed)}--"


def default_session_dir_path(cwd: str, agent_dir_path: str | None = None) -> str:
    base = resolve_path(agent_dir_path) if agent_dir_path else resolve_path(get_agent_dir())
    return os.path.join(base, "sessions", encode_cwd(cwd))


def default_session_dir(cwd: str, agent_dir_path: str | None = None) -> str:
    """The per-project session folder for ``cwd``, created if missing."""
    path = default_session_dir_path(cwd, agent_dir_path)
    make_private_dirs(path)
    return path


def session_file_name(header_timestamp: str, session_id: str) -> str:
    """``2026-11-30T09:08:28.653Z`` + id -> ``2026-11-30T09-08-28-653Z_<id>.jsonl``."""
    return f"{header_timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"
