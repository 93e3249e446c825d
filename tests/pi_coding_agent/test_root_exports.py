"""The package root offers Pi's root exports that exist here, by Pi's names in snake_case, and
stays cheap: importing it loads one module; each name loads only what it needs."""

from __future__ import annotations

import importlib
import re

import pytest

import pi_coding_agent
from tests.support.imports import new_modules
from tests.support.oracle import oracle_home, require_live_oracle

SUBPACKAGES = (
    "pi_coding_agent.runtime.agent_session", "pi_coding_agent.core.auth", "pi_coding_agent.core.bash",
    "pi_coding_agent.app.cli", "pi_coding_agent.core.compaction", "pi_coding_agent.core.messages",
    "pi_coding_agent.core.model_registry", "pi_coding_agent.app.print_mode", "pi_coding_agent.app.rpc",
    "pi_coding_agent.customize.themes", "pi_coding_agent.customize.packages", "pi_coding_agent.core.paths",
    "pi_coding_agent.customize.prompt_templates", "pi_coding_agent.customize.resources",
    "pi_coding_agent.core.session", "pi_coding_agent.core.settings", "pi_coding_agent.customize.skills",
    "pi_coding_agent.customize.system_prompt", "pi_coding_agent.core.tools", "pi_tui",
)  # fmt: skip
"""The packages whose public names that Pi's root exports must be offered at our root too."""
OWN_NAMES = {"PI_COMPAT_VERSION", "ModelCatalog", "Settings"}
"""Root names that are not Pi's: our version pin and the equivalents of Pi's ``ModelRegistry``
and ``SettingsManager`` (different APIs, so not under Pi's names)."""


def test_importing_the_root_loads_the_root_alone() -> None:
    loaded = new_modules("import pi_coding_agent")
    assert [name for name in loaded if name != "__future__"] == ["pi_coding_agent"]


def test_a_session_name_loads_the_session_package_but_no_agent_or_transport() -> None:
    loaded = set(new_modules("from pi_coding_agent import SessionManager, build_session_context"))
    assert {"pi_coding_agent.core.session", "pi_coding_agent.core.session._manager"} <= loaded
    heavy = {
        "httpx",
        "httpcore",
        "asyncio",
        "pi_agent._loop",
        "pi_coding_agent.runtime.agent_session",
        "pi_coding_agent.core.tools",
    }
    assert sorted(heavy & loaded) == []


def test_the_names_pi_users_import_are_the_subpackages_objects() -> None:
    from pi_coding_agent import (
        AgentSession,
        SessionManager,
        build_context_entries,
        build_session_context,
        convert_to_llm,
        create_agent_session,
        session_entry_to_context_messages,
    )
    from pi_coding_agent.core import messages, session
    from pi_coding_agent.runtime import agent_session

    assert SessionManager is session.SessionManager and AgentSession is agent_session.AgentSession
    assert build_session_context is session.build_session_context
    assert build_context_entries is session.build_context_entries
    assert session_entry_to_context_messages is session.session_entry_to_context_messages
    assert convert_to_llm is messages.convert_to_llm
    assert create_agent_session is agent_session.create_agent_session


def test_every_root_name_resolves_and_dir_lists_it() -> None:
    for name in pi_coding_agent.__all__:
        assert getattr(pi_coding_agent, name) is not None, name
    assert set(pi_coding_agent.__all__) <= set(dir(pi_coding_agent))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pi_coding_agent.nope  # noqa: B018


def _snake(name: str) -> str:
    if not name[0].islower():
        return name
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


@pytest.mark.oracle
def test_root_names_are_pis_and_none_that_exists_here_is_missing() -> None:
    require_live_oracle()
    index = oracle_home() / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "index.d.ts"
    pi_names = set()
    for block in re.findall(r"export (?:type )?\{([^}]*)\}", index.read_text()):
        for item in block.split(","):
            words = item.replace("type ", "").split()
            if words:
                pi_names.add(_snake(words[-1]))
    ours = set(pi_coding_agent.__all__) - OWN_NAMES
    assert sorted(ours - pi_names) == []  # no invented names under Pi's banner
    public_here = {
        name
        for package in SUBPACKAGES
        for name in getattr(importlib.import_module(package), "__all__", ())
    }
    assert sorted((pi_names & public_here) - ours) == []  # built here, so offered at the root
