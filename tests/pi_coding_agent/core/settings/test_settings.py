"""settings.json loading, merging, defaults, bad files and project trust, with real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_coding_agent.core.settings import (
    Settings,
    deep_merge,
    needs_project_trust,
    resolve_project_trust,
    stored_trust_decision,
)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    agent = tmp_path / "agent"
    project = tmp_path / "project"
    agent.mkdir()
    (project / ".pi").mkdir(parents=True)
    return agent, project


def _write(path: Path, value: object) -> None:
    path.write_text(json.dumps(value), encoding="utf-8")


def test_defaults_without_any_file(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path / "nowhere", tmp_path / "agent")
    assert settings.issues == []
    assert settings.default_provider is None
    assert settings.default_model is None
    assert settings.default_thinking_level is None
    assert settings.retry.enabled is True
    assert settings.retry.max_retries == 3
    assert settings.retry.base_delay_ms == 2000
    assert settings.provider_retry.max_retry_delay_ms == 60_000
    assert settings.provider_retry.timeout_ms is None
    assert settings.compaction.enabled is True
    assert settings.compaction.reserve_tokens == 16384
    assert settings.compaction.keep_recent_tokens == 20000
    assert settings.block_images is False
    assert settings.image_auto_resize is True
    assert settings.shell_path is None
    assert settings.shell_command_prefix is None
    assert settings.session_dir is None
    assert settings.default_tools is None
    assert settings.steering_mode == "one-at-a-time"
    assert settings.follow_up_mode == "one-at-a-time"
    assert settings.http_idle_timeout_ms == 300_000
    assert settings.transport == "auto"
    assert settings.default_project_trust == "ask"


def test_project_overrides_global_and_objects_merge_deeply(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    _write(
        agent / "settings.json",
        {
            "defaultProvider": "anthropic",
            "defaultModel": "claude",
            "retry": {"enabled": True, "maxRetries": 5},
            "images": {"blockImages": False},
            "defaultTools": ["read", "bash"],
        },
    )
    _write(
        project / ".pi" / "settings.json",
        {"defaultModel": "other", "retry": {"baseDelayMs": 10}, "images": {"blockImages": True}, "defaultTools": ["ls"]},
    )
    settings = Settings.load(project, agent)
    assert settings.issues == []
    assert settings.default_provider == "anthropic"
    assert settings.default_model == "other"
    assert settings.retry.max_retries == 5
    assert settings.retry.base_delay_ms == 10
    assert settings.retry.enabled is True
    assert settings.block_images is True
    # Arrays are replaced, not concatenated.
    assert settings.default_tools == ["ls"]


def test_untrusted_project_file_is_not_read(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    _write(agent / "settings.json", {"defaultModel": "global"})
    _write(project / ".pi" / "settings.json", {"defaultModel": "project"})
    assert Settings.load(project, agent, project_trusted=False).default_model == "global"
    assert Settings.load(project, agent, project_trusted=True).default_model == "project"


def test_invalid_json_is_reported_with_line_and_column_and_file_is_untouched(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    bad = '{\n  "defaultProvider": "x",\n  "retry": {\n    "enabled": false,\n  }\n}\n'
    (agent / "settings.json").write_text(bad, encoding="utf-8")
    _write(project / ".pi" / "settings.json", {"defaultModel": "project-model"})
    settings = Settings.load(project, agent)
    assert len(settings.issues) == 1
    issue = settings.issues[0]
    assert issue.scope == "global"
    assert issue.path == agent / "settings.json"
    text = str(issue)
    assert str(agent / "settings.json") in text
    assert "line 5 column 3" in text
    # The broken file contributes nothing, the valid one still applies.
    assert settings.default_provider is None
    assert settings.default_model == "project-model"
    assert (agent / "settings.json").read_text(encoding="utf-8") == bad


def test_non_object_and_bom_and_empty_files(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    (agent / "settings.json").write_text("[1, 2]", encoding="utf-8")
    settings = Settings.load(project, agent)
    assert "expected a JSON object, found an array" in str(settings.issues[0])

    (agent / "settings.json").write_bytes(b'\xef\xbb\xbf{"defaultModel": "bom"}')
    assert Settings.load(project, agent).default_model == "bom"

    (agent / "settings.json").write_text("  \n", encoding="utf-8")
    empty = Settings.load(project, agent)
    assert empty.issues == [] and empty.default_model is None


def test_wrong_types_fall_back_to_defaults_and_are_reported(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    _write(agent / "settings.json", {"retry": {"maxRetries": "three", "enabled": 1}, "images": {"blockImages": "yes"}})
    settings = Settings.load(project, agent)
    assert settings.retry.max_retries == 3
    assert settings.retry.enabled is True
    assert settings.block_images is False
    messages = " | ".join(str(issue) for issue in settings.issues)
    assert "retry.maxRetries" in messages
    assert "retry.enabled" in messages
    assert "images.blockImages" in messages
    assert str(agent / "settings.json") in messages


def test_legacy_keys_are_migrated(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    _write(agent / "settings.json", {"queueMode": "all", "websockets": True, "retry": {"maxDelayMs": 5000}})
    settings = Settings.load(project, agent)
    assert settings.steering_mode == "all"
    assert settings.transport == "websocket"
    assert settings.provider_retry.max_retry_delay_ms == 5000


def test_paths_in_settings_are_tilde_expanded(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    agent, project = dirs
    monkeypatch.setenv("HOME", str(agent.parent))
    _write(agent / "settings.json", {"sessionDir": "~/sessions", "shellPath": "~/bin/zsh", "shellCommandPrefix": "set -e"})
    settings = Settings.load(project, agent)
    assert settings.session_dir == str(agent.parent / "sessions")
    assert settings.shell_path == str(agent.parent / "bin" / "zsh")
    assert settings.shell_command_prefix == "set -e"


def test_http_idle_timeout_forms(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    for value, expected in (("disabled", 0), ("1500", 1500), (2500, 2500), (-1, 300_000)):
        _write(agent / "settings.json", {"httpIdleTimeoutMs": value})
        assert Settings.load(project, agent).http_idle_timeout_ms == expected


def test_response_timeout_forms(dirs: tuple[Path, Path]) -> None:
    """``responseTimeoutMs`` (ours: the deadline for one whole answer) is read like Pi's other
    timeouts; unset or bad (reported), the one-hour default applies."""
    agent, project = dirs
    assert Settings.load(project, agent).response_timeout_ms == 3_600_000
    for value, expected in (("disabled", 0), ("90000", 90_000), (600_000, 600_000), (0, 0)):
        _write(agent / "settings.json", {"responseTimeoutMs": value})
        assert Settings.load(project, agent).response_timeout_ms == expected
    _write(agent / "settings.json", {"responseTimeoutMs": "later"})
    settings = Settings.load(project, agent)
    assert settings.response_timeout_ms == 3_600_000
    assert [issue.message for issue in settings.issues] == ["responseTimeoutMs is not a valid timeout ('later')"]


def test_websocket_connect_timeout_forms(dirs: tuple[Path, Path]) -> None:
    """Read as Pi reads ``websocketConnectTimeoutMs``; a bad value is reported and left unset
    (the transport's 15 s default then applies)."""
    agent, project = dirs
    assert Settings.load(project, agent).websocket_connect_timeout_ms is None
    for value, expected in (("disabled", 0), (" 750 ", 750), (1200.9, 1200), (0, 0)):
        _write(agent / "settings.json", {"websocketConnectTimeoutMs": value})
        assert Settings.load(project, agent).websocket_connect_timeout_ms == expected
    for bad in (-5, "soon", True):
        _write(agent / "settings.json", {"websocketConnectTimeoutMs": bad})
        settings = Settings.load(project, agent)
        assert settings.websocket_connect_timeout_ms is None
        assert [issue.message for issue in settings.issues] == [
            f"websocketConnectTimeoutMs is not a valid timeout ({bad!r})"
        ]


def test_model_thinking_levels(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    _write(agent / "settings.json", {"modelThinkingLevels": {"openai/gpt-5": "high"}, "defaultThinkingLevel": "low"})
    settings = Settings.load(project, agent)
    assert settings.model_thinking_level("openai", "gpt-5") == "high"
    assert settings.model_thinking_level("openai", "other") is None
    assert settings.default_thinking_level == "low"


def test_default_project_trust_is_global_only(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    _write(project / ".pi" / "settings.json", {"defaultProjectTrust": "always"})
    assert Settings.load(project, agent).default_project_trust == "ask"
    _write(agent / "settings.json", {"defaultProjectTrust": "never"})
    assert Settings.load(project, agent).default_project_trust == "never"


def test_deep_merge_does_not_mutate() -> None:
    base = {"a": {"b": 1, "c": 2}, "d": [1]}
    merged = deep_merge(base, {"a": {"c": 3}, "d": [2]})
    assert merged == {"a": {"b": 1, "c": 3}, "d": [2]}
    assert base == {"a": {"b": 1, "c": 2}, "d": [1]}


def test_project_trust(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    agent = tmp_path / "agent"
    project = tmp_path / "work" / "project"
    (project / "sub").mkdir(parents=True)
    # Nothing that needs trust: trusted.
    assert not needs_project_trust(project)
    assert resolve_project_trust(project, agent, override=None, default_trust="ask") is True
    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text("{}", encoding="utf-8")
    assert needs_project_trust(project)
    assert resolve_project_trust(project, agent, override=None, default_trust="ask") is False
    assert resolve_project_trust(project, agent, override=None, default_trust="always") is True
    assert resolve_project_trust(project, agent, override=True, default_trust="never") is True
    # A decision on an ancestor applies to the project.
    agent.mkdir()
    _write(agent / "trust.json", {str((tmp_path / "work").resolve()): True})
    assert stored_trust_decision(agent, project) is True
    assert resolve_project_trust(project, agent, override=None, default_trust="never") is True
    _write(agent / "trust.json", {str((tmp_path / "work").resolve()): True, str(project.resolve()): False})
    assert resolve_project_trust(project, agent, override=None, default_trust="always") is False
    assert resolve_project_trust(project, agent, override=True, default_trust="never") is True


def test_agents_skills_in_an_ancestor_needs_trust(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home" / ".agents" / "skills").mkdir(parents=True)
    project = tmp_path / "home" / "code" / "proj"
    project.mkdir(parents=True)
    # The user's own ~/.agents/skills does not count.
    assert not needs_project_trust(project)
    (tmp_path / "home" / "code" / ".agents" / "skills").mkdir(parents=True)
    assert needs_project_trust(project)


def test_compaction_model_overrides_pi_1_6(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    _write(agent / "settings.json", {
        "compaction": {
            "reserveTokens": 9000,
            "modelOverrides": {
                "anthropic/claude-x": {"keepRecentTokens": 5000},
                "openai/bad": {"reserveTokens": -1, "keepRecentTokens": 1.5},
                "openai/not-object": 3,
            },
        }
    })
    _write(project / ".pi" / "settings.json", {"compaction": {"modelOverrides": {"openai/gpt": {"reserveTokens": 0}}}})
    settings = Settings.load(project, agent)
    claude = settings.compaction_for("anthropic", "claude-x")
    assert (claude.reserve_tokens, claude.keep_recent_tokens) == (9000, 5000)
    gpt = settings.compaction_for("openai", "gpt")  # project and user overrides merge before the lookup
    assert (gpt.reserve_tokens, gpt.keep_recent_tokens) == (0, 20000)
    other = settings.compaction_for("openai", "other")
    assert (other.reserve_tokens, other.keep_recent_tokens) == (9000, 20000)
    assert settings.issues == []
    bad = settings.compaction_for("openai", "bad")
    assert (bad.reserve_tokens, bad.keep_recent_tokens) == (9000, 20000)
    settings.compaction_for("openai", "not-object")
    assert [issue.message for issue in settings.issues] == [
        'compaction.modelOverrides["openai/bad"].reserveTokens is not a non-negative integer',
        'compaction.modelOverrides["openai/bad"].keepRecentTokens is not a non-negative integer',
        'compaction.modelOverrides["openai/not-object"] is not an object',
    ]


def test_writing_a_setting_keeps_pi_1_6_keys(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    written_by_pi = {
        "$schema": "https://pi.dev/schemas/settings.schema.json",
        "defaultTools": ["+grep"],
        "cacheWarming": "streaming",
        "codemode": {"mode": "only", "inlineBudget": 0},
        "compaction": {"enabled": True, "modelOverrides": {"a/b": {"reserveTokens": 1}}},
        "fullscreenWheelScrollLines": "auto",
        "extensions": ["-builtin:mcp"],
    }
    _write(agent / "settings.json", written_by_pi)
    settings = Settings.load(project, agent)
    settings.set_global(("compaction", "enabled"), False)
    settings.set_global(("defaultThinkingLevel",), "max")
    on_disk = json.loads((agent / "settings.json").read_text(encoding="utf-8"))
    expected = {**written_by_pi, "defaultThinkingLevel": "max"}
    expected["compaction"] = {"enabled": False, "modelOverrides": {"a/b": {"reserveTokens": 1}}}
    assert on_disk == expected


def test_default_tools_layers(dirs: tuple[Path, Path]) -> None:
    agent, project = dirs
    _write(agent / "settings.json", {"defaultTools": ["+grep"]})
    _write(project / ".pi" / "settings.json", {"defaultTools": ["-bash"]})
    assert Settings.load(project, agent).default_tools == ["read", "edit", "write", "grep"]
    assert Settings.load(project, agent, project_trusted=False).default_tools == ["read", "bash", "edit", "write", "grep"]
    _write(project / ".pi" / "settings.json", {"defaultTools": ["ls", "+find"]})
    assert Settings.load(project, agent).default_tools == ["ls", "find"]
