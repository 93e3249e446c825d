"""Which session file a run opens: ``--session``, ``--continue``, ``--resume``, ``--fork``,
``--session-id``, ``--no-session``, or a new one (Pi 0.85's rules and messages)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pi_coding_agent.app.cli._args import Args
from pi_coding_agent.app.cli._problems import CliError, Diagnostics

if TYPE_CHECKING:
    from pi_coding_agent.core.session import SessionManager


def open_session(
    parsed: Args, cwd: str, home: Path, diagnostics: Diagnostics, *, interactive: bool
) -> SessionManager:
    """The session the flags name (or a new one), in the session folder the settings name;
    refused when its stored working directory is gone."""
    from pi_coding_agent.core.paths import resolve_path
    from pi_coding_agent.core.session import resolve_session_dir
    from pi_coding_agent.core.settings import Settings

    startup_settings = Settings.load(cwd, home)
    startup_settings.apply_http_proxy(os.environ)  # as Pi's CLI does at startup (global httpProxy)
    session_dir = resolve_session_dir(
        resolve_path(parsed.session_dir) if parsed.session_dir else None, startup_settings.session_dir
    )
    manager = _session_manager(parsed, cwd, session_dir, diagnostics, interactive=interactive)
    session_cwd = manager.get_cwd()
    if manager.get_session_file() and not os.path.isdir(session_cwd):
        raise CliError(
            f"Stored session working directory does not exist: {session_cwd} "
            f"(session file {manager.get_session_file()}); recreate that directory to resume the session"
        )
    return manager


def _session_manager(
    parsed: Args, cwd: str, session_dir: str | None, diagnostics: Diagnostics, *, interactive: bool = False
) -> SessionManager:
    from pi_coding_agent.core.session import (
        InvalidSessionError,
        InvalidSessionIdError,
        SessionError,
        SessionManager,
    )

    try:
        if parsed.no_session or parsed.help or parsed.list_models is not None:  # nothing to store (Pi's rule)
            return SessionManager.in_memory(cwd, session_id=parsed.session_id)
        if parsed.fork:
            if parsed.session_id and _exact_local_session(parsed.session_id, cwd, session_dir):
                raise CliError(f"Session already exists with id '{parsed.session_id}'")
            source = _find_session(parsed.fork, cwd, session_dir)
            return SessionManager.fork_from(source[0], cwd, session_dir, session_id=parsed.session_id)
        if parsed.session:
            path, other_cwd = _find_session(parsed.session, cwd, session_dir)
            if other_cwd is not None:
                _confirm_fork(other_cwd, interactive=interactive)
                return SessionManager.fork_from(path, cwd, session_dir)
            return _open(path, session_dir)
        if parsed.resume:
            if not interactive:
                raise CliError("--resume needs a terminal to pick a session in; use --continue or --session <id>")
            return _pick_session(cwd, session_dir)
        if parsed.continue_session:
            return SessionManager.continue_recent(cwd, session_dir)
        if parsed.session_id:
            existing = _exact_local_session(parsed.session_id, cwd, session_dir)
            if existing:
                return _open(existing, session_dir)
            diagnostics.warn(
                f"No project session found with id '{parsed.session_id}'; creating a new session with that id."
            )
        return SessionManager.create(cwd, session_dir, session_id=parsed.session_id)
    except InvalidSessionIdError as error:
        raise CliError(str(error)) from None
    except InvalidSessionError as error:
        raise CliError(
            f"{error} (its first line is not a session header; pass another file, or leave out --session "
            "to start a new session)"
        ) from None
    except (SessionError, OSError) as error:
        raise CliError(_describe(error)) from None


def _confirm_fork(other_cwd: str, *, interactive: bool) -> None:
    """``--session`` named another project's session: Pi's question, answered on stdin (its
    messages on stdout in the terminal UI, on stderr when stdout carries the answer); anything
    but ``y``/``yes`` stops the run with status 0, as end of input does."""
    out = sys.stdout if interactive else sys.stderr
    colour = out.isatty()
    found = f"Session found in different project: {other_cwd}"
    out.write(f"\x1b[33m{found}\x1b[39m\n" if colour else f"{found}\n")
    out.write("Fork this session into current directory? [y/N] ")
    out.flush()
    answer = sys.stdin.readline()
    if not answer:
        raise SystemExit(0)
    if answer.strip().lower() not in ("y", "yes"):
        out.write("\x1b[2mAborted.\x1b[22m\n" if colour else "Aborted.\n")
        raise SystemExit(0)


def _pick_session(cwd: str, session_dir: str | None) -> SessionManager:
    """``pi -r``: the session picker (this folder, Tab for every project); exit 0 when dismissed."""
    import asyncio

    from pi_coding_agent.app.interactive import pick_session
    from pi_coding_agent.core.paths import get_agent_dir
    from pi_coding_agent.core.session import SessionManager

    path = asyncio.run(
        pick_session(
            lambda: SessionManager.list(cwd, session_dir), lambda: SessionManager.list_all(session_dir), Path(get_agent_dir())
        )
    )
    if path is None:
        print("\x1b[2mNo session selected\x1b[22m")
        raise SystemExit(0)
    return _open(path, session_dir)


def _describe(error: Exception) -> str:
    if isinstance(error, OSError) and error.filename:
        return f"cannot read {error.filename}: {error.strerror or error} (check that the file exists and is readable)"
    return str(error)


def _open(path: str, session_dir: str | None) -> SessionManager:
    from pi_coding_agent.core.session import SessionManager

    if os.path.exists(path) and not os.access(path, os.R_OK):
        raise CliError(f"cannot read session file {path}: permission denied (check the file's permissions)")
    return SessionManager.open(path, session_dir)


def _exact_local_session(session_id: str, cwd: str, session_dir: str | None) -> str | None:
    from pi_coding_agent.core.session import list_sessions

    for info in list_sessions(cwd, session_dir):
        if info.id == session_id:
            return str(info.path)
    return None


def _find_session(argument: str, cwd: str, session_dir: str | None) -> tuple[str, str | None]:
    """(path, cwd of another project or None) for a ``--session``/``--fork`` value."""
    from pi_coding_agent.core.paths import resolve_path
    from pi_coding_agent.core.session import list_all_sessions, list_sessions

    if "/" in argument or "\\" in argument or argument.endswith(".jsonl"):
        return resolve_path(argument, cwd), None
    local = list_sessions(cwd, session_dir)
    match = next((s for s in local if s.id == argument), None) or next(
        (s for s in local if s.id.startswith(argument)), None
    )
    if match is not None:
        return str(match.path), None
    everywhere = list_all_sessions(session_dir)
    match = next((s for s in everywhere if s.id == argument), None) or next(
        (s for s in everywhere if s.id.startswith(argument)), None
    )
    if match is not None:
        return str(match.path), str(match.cwd)
    raise CliError(f"No session found matching '{argument}' (pi --session takes a file path or a session id prefix)")
