"""CLI options as seen by the provider: system prompt, context files, tools, keys, images, trust."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import ANTHROPIC_MODEL, OPENAI_MODEL, Sandbox, run_ours
from tests.support.scripted_provider import ScriptedProvider

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _system_prompt(request: dict[str, Any]) -> str:
    body = request["body"]
    if "system" in body:  # anthropic
        return "".join(block["text"] for block in body["system"])
    first = body["messages"][0]
    assert first["role"] in ("system", "developer")
    return str(first["content"])


def _one_request(tmp_path: Path, *args: str, setup: Any = None, **env: str) -> tuple[dict[str, Any], Sandbox, Any]:
    with ScriptedProvider([{"text": "ok"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        if setup is not None:
            setup(sandbox)
        result = run_ours(sandbox, *args, **env)
        assert result.returncode == 0, result.stderr
        assert len(provider.requests) == 1
        return provider.requests[0], sandbox, result


def test_default_system_prompt_has_tools_cwd_and_context_files(tmp_path: Path) -> None:
    def setup(box: Sandbox) -> None:
        (box.agent_dir / "AGENTS.md").write_text("Global rule: be kind.", encoding="utf-8")
        (box.work / "AGENTS.md").write_text("Project rule: run make test.", encoding="utf-8")

    request, sandbox, _ = _one_request(tmp_path, "--model", OPENAI_MODEL, "-p", "hi", setup=setup)
    prompt = _system_prompt(request)
    for tool in ("read", "bash", "edit", "write"):
        assert f"- {tool}: " in prompt
    assert prompt.endswith(f"<cwd>\n{sandbox.work}\n</cwd>")
    assert prompt.index("Global rule: be kind.") < prompt.index("Project rule: run make test.")
    assert str(sandbox.work / "AGENTS.md") in prompt


def test_no_context_files_custom_and_appended_prompts(tmp_path: Path) -> None:
    def setup(box: Sandbox) -> None:
        (box.work / "AGENTS.md").write_text("Project rule.", encoding="utf-8")
        (box.work / "extra.md").write_text("Appended from a file.", encoding="utf-8")

    request, sandbox, _ = _one_request(
        tmp_path,
        "--model",
        ANTHROPIC_MODEL,
        "--no-context-files",
        "--system-prompt",
        "You are a terse assistant.",
        "--append-system-prompt",
        "extra.md",
        "--append-system-prompt",
        "Literal addition.",
        "-p",
        "hi",
        setup=setup,
    )
    prompt = _system_prompt(request)
    assert prompt == (
        "You are a terse assistant.\n\n<addendum>\nAppended from a file.\n\nLiteral addition.\n</addendum>\n\n"
        f"<cwd>\n{sandbox.work}\n</cwd>"
    )


def test_tool_selection(tmp_path: Path) -> None:
    request, _, result = _one_request(
        tmp_path, "--model", OPENAI_MODEL, "--tools", "read,grep,ls,bogus", "-xt", "ls", "-p", "hi"
    )
    assert sorted(tool["function"]["name"] for tool in request["body"]["tools"]) == ["grep", "read"]
    assert 'Unknown tool "bogus"' in result.stderr
    none, _, _ = _one_request(tmp_path / "none", "--model", OPENAI_MODEL, "--no-tools", "-p", "hi")
    assert "tools" not in none["body"] or not none["body"]["tools"]


def test_api_key_flag_wins(tmp_path: Path) -> None:
    def setup(box: Sandbox) -> None:
        (box.agent_dir / "auth.json").write_text(
            json.dumps({"scripted-openai": {"type": "api_key", "key": "from-auth-json"}}), encoding="utf-8"
        )

    stored, _, _ = _one_request(tmp_path / "a", "--model", OPENAI_MODEL, "-p", "hi", setup=setup)
    assert stored["headers"]["authorization"] == "Bearer from-auth-json"
    flagged, _, _ = _one_request(
        tmp_path / "b", "--model", OPENAI_MODEL, "--api-key", "from-flag", "-p", "hi", setup=setup
    )
    assert flagged["headers"]["authorization"] == "Bearer from-flag"
    anthropic, _, _ = _one_request(tmp_path / "c", "--model", ANTHROPIC_MODEL, "--api-key", "k-flag", "-p", "hi")
    assert anthropic["headers"]["x-api-key"] == "k-flag"


def test_image_files_and_blocked_images(tmp_path: Path) -> None:
    def setup(box: Sandbox) -> None:
        (box.work / "dot.png").write_bytes(PNG)
        models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
        models["providers"]["scripted-anthropic"]["models"][0]["input"] = ["text", "image"]
        (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")

    request, sandbox, _ = _one_request(tmp_path / "a", "--model", ANTHROPIC_MODEL, "-p", "@dot.png", "what is it?",
                                       setup=setup)
    content = request["body"]["messages"][0]["content"]
    assert [block["type"] for block in content] == ["text", "image"]
    assert content[0]["text"] == f'<file name="{sandbox.work / "dot.png"}"></file>\nwhat is it?'

    def blocked(box: Sandbox) -> None:
        setup(box)
        (box.agent_dir / "settings.json").write_text(
            json.dumps({"retry": {"enabled": False}, "images": {"blockImages": True}}), encoding="utf-8"
        )

    request, _, _ = _one_request(tmp_path / "b", "--model", ANTHROPIC_MODEL, "-p", "@dot.png", "x", setup=blocked)
    content = request["body"]["messages"][0]["content"]
    assert [block["type"] for block in content] == ["text", "text"]
    assert content[1]["text"] == "Image reading is disabled."


def test_project_settings_need_trust(tmp_path: Path) -> None:
    def setup(box: Sandbox) -> None:
        (box.work / ".pi").mkdir()
        (box.work / ".pi" / "settings.json").write_text(
            json.dumps({"defaultProvider": "scripted-anthropic", "defaultModel": "scripted-claude"}), encoding="utf-8"
        )
        (box.agent_dir / "settings.json").write_text(
            json.dumps({"retry": {"enabled": False}, "defaultProvider": "scripted-openai",
                        "defaultModel": "scripted-model"}),
            encoding="utf-8",
        )

    untrusted, _, _ = _one_request(tmp_path / "a", "-p", "hi", setup=setup)
    assert untrusted["path"] == "/v1/chat/completions"
    trusted, _, _ = _one_request(tmp_path / "b", "--approve", "-p", "hi", setup=setup)
    assert trusted["path"].startswith("/v1/messages")


def test_name_fork_and_session_id(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "one"}, {"text": "two"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        first = run_ours(sandbox, "--model", OPENAI_MODEL, "--session-id", "my-session.1", "--name", "Demo\nrun",
                         "-p", "hello")
        assert first.returncode == 0, first.stderr
        (path,) = sandbox.session_files()
        assert path.name.endswith("_my-session.1.jsonl")
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert lines[0]["id"] == "my-session.1"
        assert {"type": "session_info", "name": "Demo run"}.items() <= next(
            line for line in lines if line["type"] == "session_info"
        ).items()
        again = run_ours(sandbox, "--session-id", "my-session.1", "-p", "more")
        assert again.returncode == 0 and "No project session found" not in again.stderr
        forked = run_ours(sandbox, "--fork", "my-session.1", "-p", "branch off")
        assert forked.returncode == 0, forked.stderr
        bad = run_ours(sandbox, "--session-id", "-bad-", "-p", "x")
        assert bad.returncode == 1 and "Session id must be non-empty" in bad.stderr
        conflict = run_ours(sandbox, "--fork", "my-session.1", "--no-session", "-p", "x")
        assert conflict.returncode == 1 and "--fork cannot be combined with --no-session" in conflict.stderr
    files = sandbox.session_files()
    assert len(files) == 2
    fork_file = next(f for f in files if f != path)
    header = json.loads(fork_file.read_text(encoding="utf-8").splitlines()[0])
    assert header["parentSession"] == str(path)


def test_models_scope_picks_the_starting_model(tmp_path: Path) -> None:
    scoped, _, _ = _one_request(tmp_path / "a", "--models", "scripted-anthropic/*", "-p", "hi")
    assert scoped["path"].startswith("/v1/messages")

    def saved_default_in_scope(box: Sandbox) -> None:
        (box.agent_dir / "settings.json").write_text(
            json.dumps({"retry": {"enabled": False}, "enabledModels": ["scripted-*"],
                        "defaultProvider": "scripted-openai", "defaultModel": "scripted-model"}),
            encoding="utf-8",
        )

    chosen, _, _ = _one_request(tmp_path / "b", "-p", "hi", setup=saved_default_in_scope)
    assert chosen["path"] == "/v1/chat/completions"


def test_no_session_json_header_and_empty_prompt(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "ok"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        header_only = run_ours(sandbox, "--mode", "json", "--no-session", "--model", OPENAI_MODEL)
        nothing = run_ours(sandbox, "--no-session", "--model", OPENAI_MODEL, "-p")
    assert header_only.returncode == 0 and nothing.returncode == 0
    (header,) = header_only.json_lines()
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == str(sandbox.work)
    assert nothing.stdout == ""
    assert provider.requests == [] and sandbox.session_files() == []


def test_reader_closing_the_pipe_does_not_break_the_run(tmp_path: Path) -> None:
    import subprocess

    script = [{"text": "a long answer " * 50, "chunk_delay": 0.002}]
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        process = subprocess.Popen(
            [str(Path(__file__).resolve().parents[3] / ".venv" / "bin" / "pi"), "--mode", "json", "--model",
             OPENAI_MODEL, "hi"],
            cwd=sandbox.work, env=sandbox.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()  # like `| head -1`
        stderr = process.stderr.read()
        process.wait(timeout=30)
    assert json.loads(first)["type"] == "session"
    assert process.returncode == 0, stderr
    assert b"Traceback" not in stderr and b"BrokenPipe" not in stderr
    (path,) = sandbox.session_files()
    roles = [json.loads(line)["message"]["role"] for line in path.read_text(encoding="utf-8").splitlines()
             if json.loads(line)["type"] == "message"]
    assert roles == ["system", "user", "assistant"]
