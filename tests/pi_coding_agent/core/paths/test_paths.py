"""``pi_coding_agent.core.paths``: the one agent-dir resolution, and Pi's tilde/resolve rules."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from pi_coding_agent.core.paths import expand_tilde, get_agent_dir, resolve_path
from tests.support.oracle import REPO


def test_agent_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    assert get_agent_dir() == str(tmp_path / ".pi" / "agent")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/custom")
    assert get_agent_dir() == str(tmp_path / "custom")
    assert get_agent_dir({"PI_CODING_AGENT_DIR": "/elsewhere"}) == "/elsewhere"
    assert get_agent_dir({}) == str(tmp_path / ".pi" / "agent")


def test_tilde_and_file_urls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert expand_tilde("~") == str(tmp_path)
    assert expand_tilde("~/a/b") == str(tmp_path / "a" / "b")
    assert expand_tilde("~other/x") == "~other/x"
    assert expand_tilde("a/~") == "a/~"
    assert expand_tilde("file:///tmp/with%20space") == "/tmp/with space"


def test_resolve_path_is_nodes_path_resolve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_path("x/../y", "/base") == "/base/y"
    assert resolve_path("/abs/./z/") == "/abs/z"
    assert resolve_path("//double//slash") == "/double/slash"
    assert resolve_path("rel", "~/proj") == str(tmp_path / "proj" / "rel")
    monkeypatch.chdir(tmp_path)
    assert resolve_path("here") == os.path.join(str(tmp_path), "here")


def test_every_layer_asks_the_same_function() -> None:
    """Sessions, settings users and the CLI resolve the agent dir here: the environment
    variable is named in this module only."""
    from pi_coding_agent.core import session

    assert session.get_agent_dir is get_agent_dir
    naming = [
        str(path.relative_to(REPO))
        for path in (REPO / "src").rglob("*.py")
        if re.search(r"[\"']PI_CODING_AGENT_DIR[\"']", path.read_text(encoding="utf-8"))
    ]
    assert naming == ["src/pi_coding_agent/core/paths/__init__.py"]
