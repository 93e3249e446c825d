"""Fixtures of the AgentSession tests (helpers in ``_support``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_ai.faux import FauxModelSpec, FauxProvider, register_faux_provider
from tests.pi_coding_agent.runtime.agent_session._support import API, Env, models_json


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    handle = register_faux_provider(api=API, provider="faux", models=[FauxModelSpec(id="faux-1")])
    yield handle
    handle.unregister()


@pytest.fixture
def env(tmp_path: Path) -> Env:
    agent_dir = tmp_path / "agent"
    work = tmp_path / "work"
    agent_dir.mkdir()
    work.mkdir()
    (agent_dir / "models.json").write_text(json.dumps(models_json()), encoding="utf-8")
    return Env(tmp_path, agent_dir, work, tmp_path / "sessions")


