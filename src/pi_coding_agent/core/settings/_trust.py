"""Project trust: whether ``<cwd>/.pi`` settings and prompt files may be used.

A project needs a trust decision only when it has something that would change how pi
behaves (``.pi/settings.json``, ``.pi/SYSTEM.md``, ``.pi/extensions``, ...). Decisions are
kept in ``<agent dir>/trust.json`` as ``{"<absolute dir>": true | false}``; the nearest
ancestor with a decision applies. Without a decision, the global ``defaultProjectTrust``
setting decides (``ask`` means "no" when nobody can be asked, as in print mode).

A batch task's folder (a scratch checkout of a third-party repository, often) inherits
nothing: only a decision saved for that very folder counts, and without one it is untrusted
(``resolve_project_trust(..., inherit=False)``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
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
)


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


def _read_trust_file(path: Path) -> dict[str, bool | None]:
    data = read_json_object(path) or {}
    for key, value in data.items():
        if value is not None and not isinstance(value, bool):
            raise ConfigFileError(path, f"value for {key!r} must be true, false, or null")
    return data


def stored_trust_entry(agent_dir: str | Path, cwd: str | Path) -> tuple[str, bool] | None:
    """``(folder, decision)`` recorded for ``cwd`` or its nearest ancestor in ``trust.json``."""
    data = _read_trust_file(Path(agent_dir) / "trust.json")
    current = _canonical(cwd)
    while True:
        decision = data.get(current)
        if isinstance(decision, bool):
            return current, decision
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def stored_trust_decision(agent_dir: str | Path, cwd: str | Path) -> bool | None:
    """The decision recorded for ``cwd`` or its nearest ancestor in ``trust.json``."""
    entry = stored_trust_entry(agent_dir, cwd)
    return None if entry is None else entry[1]


def save_trust_decisions(agent_dir: str | Path, updates: Iterable[tuple[str, bool | None]]) -> None:
    """Record decisions in ``trust.json`` (``None`` removes a folder's entry), keys sorted as Pi writes them."""
    path = Path(agent_dir) / "trust.json"
    data = _read_trust_file(path)
    for folder, decision in updates:
        if decision is None:
            data.pop(_canonical(folder), None)
        else:
            data[_canonical(folder)] = decision
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(sorted(data.items())), indent=2) + "\n", encoding="utf-8")


def resolve_project_trust(
    cwd: str | Path,
    agent_dir: str | Path,
    *,
    override: bool | None,
    default_trust: ProjectTrustDefault,
    inherit: bool = True,
) -> bool:
    """Trust for a run without a UI to ask (``--approve``/``--no-approve`` win). With
    ``inherit=False`` neither an ancestor's decision nor ``defaultProjectTrust`` counts: only
    a decision saved for ``cwd`` itself, else untrusted."""
    if override is not None:
        return override
    if not needs_project_trust(cwd):
        return True
    if not inherit:
        return _read_trust_file(Path(agent_dir) / "trust.json").get(_canonical(cwd)) is True
    decision = stored_trust_decision(agent_dir, cwd)
    if decision is not None:
        return decision
    return default_trust == "always"


def remember_trust_decision(agent_dir: str | Path, cwd: str | Path, trusted: bool) -> None:
    """Record a decision for ``cwd`` in ``trust.json`` (an extension's ``remember: true``)."""
    import json
    import tempfile

    path = Path(agent_dir) / "trust.json"
    data = read_json_object(path) or {}
    data[_canonical(cwd)] = trusted
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
    os.replace(handle.name, path)
