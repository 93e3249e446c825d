"""``mcp.json`` as Pi 1.6 reads it: merging, overrides, name rules, invalid entries, exposure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.core.mcp.config import (
    McpValueError,
    add_server_config,
    load_mcp_config,
    remove_server_config,
    resolve_env,
    resolve_headers,
    tool_exposure,
)
from pi_coding_agent.core.mcp.manager import mcp_tool_name
from pi_coding_agent.core.mcp.manager._naming import server_tool_names


def _write(path: Path, servers: dict[str, Any], **extra: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers, **extra}), encoding="utf-8")


def test_project_entries_replace_and_override_user_entries(tmp_path: Path) -> None:
    agent, work = tmp_path / "agent", tmp_path / "work"
    _write(agent / "mcp.json", {
        "a": {"command": "a-server", "env": {"K": "v"}},
        "b": {"url": "https://b.example/mcp", "headers": {"Authorization": "Bearer x"}},
        "c": {"command": "c"},
    })  # fmt: skip
    _write(work / ".pi" / "mcp.json", {
        "a": {"enabled": False, "exposure": "direct"},
        "b": {"command": "local-b"},
        "d": {"enabled": False},
        "c": {"enabled": True, "args": ["x"]},
    })  # fmt: skip
    config = load_mcp_config(agent, work, project_trusted=True)
    servers = {entry.name: entry for entry in config.servers}
    assert list(servers) == ["a", "b", "c"]
    assert servers["a"].config == {
        "command": "a-server",
        "env": {"K": "v"},
        "enabled": False,
        "exposure": "direct",
    }
    assert servers["a"].scope == "global" and servers["a"].override == str(work / ".pi" / "mcp.json")
    assert servers["b"].config == {"command": "local-b"} and servers["b"].scope == "project"
    project = work / ".pi" / "mcp.json"
    assert config.errors == [
        f'{project}: server "d" needs "command" or "url", or a global server to override',
        f'{project}: server "c": an override can only set enabled, exposure, toolExposure',
    ]
    untrusted = load_mcp_config(agent, work, project_trusted=False)
    assert untrusted.servers[0].config == {"command": "a-server", "env": {"K": "v"}}


@pytest.mark.parametrize(
    ("name", "entry", "error"),
    [
        ("bad name", {"command": "x"}, 'invalid server name "bad name" (use letters, digits, "_" and "-")'),
        ("s", [], 'server "s" must be an object'),
        (
            "s",
            {"type": "sse", "url": "http://x/sse"},
            'server "s": legacy SSE transport is not supported; use the streamable HTTP URL',
        ),
        ("s", {"args": []}, 'server "s" needs either "command" (stdio) or "url" (streamable HTTP)'),
        ("s", {"command": "x", "args": "y"}, 'server "s": args must be an array of strings'),
        ("s", {"command": "x", "enabled": "no"}, 'server "s": enabled must be a boolean'),
        ("s", {"command": "x", "timeout": 0}, 'server "s": timeout must be a positive number of seconds'),
        ("s", {"url": "ftp://x"}, 'server "s": url must be an http or https URL'),
        (
            "s",
            {"command": "x", "exposure": "loud"},
            'server "s": exposure must be one of "codemode", "deferred", "direct", "hidden"',
        ),
        (
            "s",
            {"command": "x", "toolExposure": {"t": 1}},
            'server "s": toolExposure "t" must be one of "codemode", "deferred", "direct", "hidden"',
        ),
    ],
)
def test_invalid_entries_are_reported_and_skipped(tmp_path: Path, name: str, entry: Any, error: str) -> None:
    _write(tmp_path / "mcp.json", {name: entry, "good": {"command": "ok"}})
    config = load_mcp_config(tmp_path, tmp_path, project_trusted=False)
    assert config.errors == [f"{tmp_path / 'mcp.json'}: {error}"]
    assert [entry.name for entry in config.servers] == ["good"]


def test_file_level_problems(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text("{ nope", encoding="utf-8")
    assert (
        load_mcp_config(tmp_path, tmp_path, project_trusted=False)
        .errors[0]
        .startswith(f"{tmp_path / 'mcp.json'}: invalid JSON at line 1")
    )
    _write(
        tmp_path / "mcp.json", {"a-b": {"command": "x"}, "a_b": {"command": "y"}}, autoEnableCodemode="yes"
    )
    config = load_mcp_config(tmp_path, tmp_path, project_trusted=False)
    assert config.errors == [
        f"{tmp_path / 'mcp.json'}: autoEnableCodemode must be a boolean",
        f'{tmp_path / "mcp.json"}: server "a_b" conflicts with "a-b"',
    ]


def test_tool_exposure_exact_names_win_then_first_pattern() -> None:
    config = {
        "exposure": "deferred",
        "toolExposure": {"get_*": "codemode", "get_one": "direct", "g*": "hidden"},
    }
    assert tool_exposure(config, "get_one") == "direct"
    assert tool_exposure(config, "get_two") == "codemode"
    assert tool_exposure(config, "go") == "hidden"
    assert tool_exposure(config, "other") == "deferred"
    assert tool_exposure({}, "x") == "codemode"
    _alias = {"command": "x", "exposure": "codemode-deferred"}
    from pi_coding_agent.core.mcp.config import validate_server

    assert validate_server("s", _alias) == {"command": "x", "exposure": "codemode"}


def test_tool_names_sanitized_and_hashed_on_collision() -> None:
    assert mcp_tool_name("dev-radius", "get.item") == "mcp__dev_radius__get_item"
    long = mcp_tool_name("s", "x" * 80)
    assert len(long) == 64 and long[-9] == "_"
    names = server_tool_names("s", ["a-b", "a_b", "c"], {})
    assert names["c"] == "mcp__s__c"
    assert names["a-b"] != names["a_b"] and all(
        len(names[t]) == len("mcp__s__a_b") + 9 for t in ("a-b", "a_b")
    )


def test_values_from_environment_and_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TOKEN", "t0k")
    monkeypatch.delenv("MCP_MISSING", raising=False)
    assert resolve_headers("s", {"Authorization": "Bearer ${MCP_TOKEN}", "X": "!printf hi"}) == {
        "Authorization": "Bearer t0k", "X": "hi",
    }  # fmt: skip
    with pytest.raises(McpValueError, match='MCP server "s" env "K" from environment variable: MCP_MISSING'):
        resolve_env("s", {"K": "${MCP_MISSING}"})
    with pytest.raises(McpValueError, match="from shell command: exit 3"):
        resolve_env("s", {"K": "!exit 3"})


def test_add_and_remove_keep_the_rest_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n\t"other": 1,\n\t"mcpServers": {"a": {"command": "x"}}\n}\n', encoding="utf-8")
    assert add_server_config(str(path), "b", {"url": "https://b/mcp"}) is False
    assert add_server_config(str(path), "a", {"command": "y"}) is True
    assert path.read_text(encoding="utf-8") == (
        '{\n\t"other": 1,\n\t"mcpServers": {\n\t\t"a": {\n\t\t\t"command": "y"\n\t\t},\n'
        '\t\t"b": {\n\t\t\t"url": "https://b/mcp"\n\t\t}\n\t}\n}\n'
    )
    assert remove_server_config(str(path), "a") is True
    assert remove_server_config(str(path), "a") is False
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "other": 1,
        "mcpServers": {"b": {"url": "https://b/mcp"}},
    }
