"""Importing pi_agent stays cheap: roles without the loop, nothing heavy for any name."""

from __future__ import annotations

import subprocess
import sys

import pi_agent

HEAVY = ("httpx", "httpcore", "anyio", "openai", "anthropic", "pydantic", "ssl")


def _loaded(code: str) -> set[str]:
    completed = subprocess.run([sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sys.modules))"],
                               capture_output=True, text=True, check=True)
    return set(completed.stdout.split())


def test_reading_messages_does_not_load_the_loop_or_asyncio() -> None:
    modules = _loaded("from pi_agent import CustomMessage, register_role, agent_message_from_dict, project_to_llm")
    assert "pi_agent._roles" in modules
    assert not {"asyncio", "pi_agent._loop", "pi_agent._agent"} & modules


def test_every_export_loads_without_asyncio_or_heavy_libraries() -> None:
    modules = _loaded("import pi_agent\n[getattr(pi_agent, name) for name in pi_agent.__all__]")
    assert "pi_agent._agent" in modules and "asyncio" not in modules
    assert sorted(m for m in modules if m.split(".")[0] in HEAVY) == []


def test_exports_are_complete() -> None:
    assert "Agent" in pi_agent.__all__ and "run_agent_loop" in pi_agent.__all__
    assert all(getattr(pi_agent, name) is not None for name in pi_agent.__all__)
    assert set(pi_agent.__all__) <= set(dir(pi_agent))
