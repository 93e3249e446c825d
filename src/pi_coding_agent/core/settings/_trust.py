"""Project trust: whether ``<cwd>/.pi`` settings, resources and extensions may be used.

A project needs a trust decision only when it has something that would change how pi
behaves (``.pi/settings.json``, ``.pi/SYSTEM.md``, ``.pi/extensions``, ``.pi/mcp.json``,
``.agents/skills`` here or above, ...). Decisions are kept in ``<agent dir>/trust.json`` as
``{"<absolute dir>": true | false}``, the file Pi reads and writes (keys sorted, two-space
indent, written under Pi's ``trust.json.lock`` directory lock); the nearest ancestor with a
decision applies. Without a decision, the global ``defaultProjectTrust`` setting decides;
``ask`` asks when there is someone to ask (the terminal UI's startup prompt,
``trust_choices``) and otherwise means "no", as in print, JSON and RPC mode.

A batch task's folder (a scratch checkout of a third-party repository, often) inherits
nothing: only a decision saved for that very folder counts, and without one it is untrusted
(``resolve_project_trust(..., inherit=False)``).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pi_coding_agent.core.paths import CONFIG_DIR_NAME
from pi_coding_agent.core.settings._json_file import ConfigFileError, read_json_object
from pi_coding_agent.core.settings._settings import ProjectTrustDefault

_TRUST_REQUIRING_ENTRIES = (
    "settings.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
    "mcp.json",  # Pi 1.6 asks for it too
)
_LOCK_ATTEMPTS = 10
_LOCK_RETRY_S = 0.02
_LOCK_STALE_S = 10.0  # proper-lockfile's default: a lock this old belongs to a process that died


def _canonical(path: str | Path) -> str:
    return os.path.realpath(os.path.abspath(path))


def needs_project_trust(cwd: str | Path) -> bool:
    """True when the project has local resources that only a trusted project may use."""
    current = _canonical(cwd)
    config_dir = os.path.join(current, CONFIG_DIR_NAME)
    if any(os.path.exists(os.path.join(config_dir, entry)) for entry in _TRUST_REQUIRING_ENTRIES):
        return True
    user_skills = os.path.join(_canonical(Path.home()), ".agents", "skills")
    while True:
        skills = os.path.join(current, ".agents", "skills")
        if skills != user_skills and os.path.exists(skills):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


@dataclass(frozen=True)
class TrustChoice:
    """One answer to "Trust project folder?" (the startup prompt) or ``/trust``."""

    label: str
    trusted: bool
    updates: tuple[tuple[str, bool | None], ...]
    """``(folder, decision)`` pairs written to ``trust.json`` (``None`` removes the folder's entry)."""
    saved_path: str | None
    """The folder whose entry holds the decision afterwards; ``None`` for "this session only"."""


def trust_choices(cwd: str | Path, *, session_only: bool = False) -> list[TrustChoice]:
    """Pi's answers, in its order: trust the folder, trust its parent (dropping the folder's own
    entry), [trust for this session only], do not trust, [do not trust for this session only].
    The session-only answers (the startup prompt's) save nothing."""
    folder = _canonical(cwd)
    choices = [TrustChoice("Trust", True, ((folder, True),), folder)]
    parent = os.path.dirname(folder)
    if parent != folder:
        choices.append(
            TrustChoice(f"Trust parent folder ({parent})", True, ((parent, True), (folder, None)), parent)
        )
    if session_only:
        choices.append(TrustChoice("Trust (this session only)", True, (), None))
    choices.append(TrustChoice("Do not trust", False, ((folder, False),), folder))
    if session_only:
        choices.append(TrustChoice("Do not trust (this session only)", False, (), None))
    return choices


def trust_prompt_title(cwd: str) -> str:
    """The startup prompt's question, Pi's words."""
    return (
        f"Trust project folder?\n{cwd}\n\nThis allows pi to load {CONFIG_DIR_NAME} settings and "
        "resources, install missing project packages, and execute project extensions."
    )


@contextlib.contextmanager
def _trust_file_lock(path: Path) -> Iterator[None]:
    """Pi's lock around every read and write of ``trust.json``: the directory ``trust.json.lock``
    (``proper-lockfile``), tried ten times 20 ms apart; a lock older than 10 s is taken over."""
    lock = path.with_name(path.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(_LOCK_ATTEMPTS):
        try:
            os.mkdir(lock)
            break
        except FileExistsError:
            with contextlib.suppress(FileNotFoundError):
                if lock.stat().st_mtime < time.time() - _LOCK_STALE_S:
                    os.rmdir(lock)
                    continue
            if attempt == _LOCK_ATTEMPTS - 1:
                raise ConfigFileError(path, f"is locked by another process ({lock})") from None
            time.sleep(_LOCK_RETRY_S)
        except OSError as error:
            raise ConfigFileError(path, f"cannot be locked ({error.strerror or error})") from None
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(lock)


def _read_trust_file(path: Path) -> dict[str, bool | None]:
    data = read_json_object(path) or {}
    for key, value in data.items():
        if value is not None and not isinstance(value, bool):
            raise ConfigFileError(path, f"value for {key!r} must be true, false, or null")
    return data


def _nearest_entry(data: dict[str, bool | None], cwd: str | Path) -> tuple[str, bool] | None:
    current = _canonical(cwd)
    while True:
        decision = data.get(current)
        if isinstance(decision, bool):
            return current, decision
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def stored_trust_entry(agent_dir: str | Path, cwd: str | Path) -> tuple[str, bool] | None:
    """``(folder, decision)`` recorded for ``cwd`` or its nearest ancestor in ``trust.json``."""
    path = Path(agent_dir) / "trust.json"
    if not path.exists():
        return None
    with _trust_file_lock(path):
        return _nearest_entry(_read_trust_file(path), cwd)


def stored_trust_decision(agent_dir: str | Path, cwd: str | Path) -> bool | None:
    """The decision recorded for ``cwd`` or its nearest ancestor in ``trust.json``."""
    entry = stored_trust_entry(agent_dir, cwd)
    return None if entry is None else entry[1]


def save_trust_decisions(agent_dir: str | Path, updates: Iterable[tuple[str, bool | None]]) -> None:
    """Record decisions in ``trust.json`` (``None`` removes a folder's entry), keys sorted as Pi writes them."""
    path = Path(agent_dir) / "trust.json"
    with _trust_file_lock(path):
        data = _read_trust_file(path)
        for folder, decision in updates:
            if decision is None:
                data.pop(_canonical(folder), None)
            else:
                data[_canonical(folder)] = decision
        path.write_text(json.dumps(dict(sorted(data.items())), indent=2) + "\n", encoding="utf-8")


TrustAsker = Callable[[str, Sequence[TrustChoice]], "TrustChoice | None"]
"""Asks the user ``(question, choices)``; the choice made, or ``None`` when dismissed."""


def resolve_project_trust(
    cwd: str | Path,
    agent_dir: str | Path,
    *,
    override: bool | None,
    default_trust: ProjectTrustDefault,
    inherit: bool = True,
    ask: TrustAsker | None = None,
) -> bool:
    """Trust for a run (``--approve``/``--no-approve`` win). A project without resources that
    need trust is trusted unless a saved decision says otherwise (Pi 1.6). With
    ``default_trust`` ``ask`` and no saved decision, ``ask`` (the startup prompt) decides and
    its choice is saved; dismissed, or nobody to ask, means untrusted. With ``inherit=False``
    neither an ancestor's decision nor ``defaultProjectTrust`` counts: only a decision saved
    for ``cwd`` itself, else untrusted."""
    if not inherit and override is None and needs_project_trust(cwd):
        path = Path(agent_dir) / "trust.json"
        return path.exists() and _read_trust_file(path).get(_canonical(cwd)) is True
    decided = trust_without_asking(cwd, agent_dir, override=override, default_trust=default_trust)
    if decided is not None:
        return decided
    if ask is None:
        return False
    return record_trust_choice(
        agent_dir, ask(trust_prompt_title(str(cwd)), trust_choices(cwd, session_only=True))
    )


def trust_without_asking(
    cwd: str | Path, agent_dir: str | Path, *, override: bool | None, default_trust: ProjectTrustDefault
) -> bool | None:
    """Trust as ``resolve_project_trust`` decides it; ``None`` when the user is to be asked
    (``defaultProjectTrust`` ``ask``, nothing saved, resources that need trust)."""
    if override is not None:
        return override
    if not needs_project_trust(cwd):
        return stored_trust_decision(agent_dir, cwd) is not False
    decision = stored_trust_decision(agent_dir, cwd)
    if decision is not None:
        return decision
    if default_trust != "ask":
        return default_trust == "always"
    return None


def record_trust_choice(agent_dir: str | Path, choice: TrustChoice | None) -> bool:
    """The answer to "Trust project folder?" saved (unless for this session only); whether it
    trusts. Dismissed (``None``) means untrusted, saving nothing."""
    if choice is None:
        return False
    if choice.updates:
        save_trust_decisions(agent_dir, choice.updates)
    return choice.trusted
