"""Bad input through the real CLI: one line on stderr that says what to do, exit 1, no damage."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours
from tests.support.scripted_provider import ScriptedProvider


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def _existing_session(sandbox: Sandbox) -> tuple[Path, bytes]:
    with ScriptedProvider([{"text": "first"}]) as provider:
        models = json.loads((sandbox.agent_dir / "models.json").read_text(encoding="utf-8"))
        for entry in models["providers"].values():
            entry["baseUrl"] = entry["baseUrl"].replace("http://127.0.0.1:9", provider.base_url)
        (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
        assert run_ours(sandbox, "--model", OPENAI_MODEL, "-p", "hello").returncode == 0
    (path,) = sandbox.session_files()
    return path, path.read_bytes()


def test_unknown_model(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    path, before = _existing_session(sandbox)
    result = run_ours(sandbox, "-c", "--model", "no-such-model", "-p", "hi")
    assert result.returncode == 1
    assert _one_line(result.stderr) == (
        'Error: Model "no-such-model" not found. Use --list-models to see available models.'
    )
    assert result.stdout == ""
    assert path.read_bytes() == before


def test_unknown_provider(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    result = run_ours(sandbox, "--provider", "nobody", "--model", "x", "-p", "hi")
    assert result.returncode == 1
    assert "Unknown provider \"nobody\"" in _one_line(result.stderr)
    assert sandbox.session_files() == []


def test_missing_api_key(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    models = json.loads((sandbox.agent_dir / "models.json").read_text(encoding="utf-8"))
    del models["providers"]["scripted-openai"]["apiKey"]
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    result = run_ours(sandbox, "--model", OPENAI_MODEL, "-p", "hi")
    assert result.returncode == 1
    line = _one_line(result.stderr)
    assert line.startswith("No API key found for scripted-openai:")
    assert "--api-key" in line and "auth.json" in line
    assert sandbox.session_files() == []
    # Anthropic names its environment variable.
    anthropic = run_ours(sandbox, "--model", "anthropic/claude-sonnet-4-5", "-p", "hi")
    assert anthropic.returncode == 1
    assert "ANTHROPIC_API_KEY" in _one_line(anthropic.stderr)


def test_no_models_at_all(tmp_path: Path) -> None:
    # The embedded model is the fallback unless settings turn it off (tests/.../test_local_fallback.py).
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9", settings={"localModelFallback": False})
    (sandbox.agent_dir / "models.json").unlink()
    result = run_ours(sandbox, "-p", "hi")
    assert result.returncode == 1
    assert _one_line(result.stderr).startswith("Error: No models available: set a provider API key")


def test_unreadable_and_invalid_session_files(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    directory = sandbox.work / "dir.jsonl"
    directory.mkdir()
    result = run_ours(sandbox, "--session", str(directory), "-p", "hi")
    assert result.returncode == 1
    assert _one_line(result.stderr) == (
        f"Error: Session file {directory} is not a regular file (a directory); refusing to read it"
    )

    invalid = sandbox.work / "notes.jsonl"
    invalid.write_text("this is not a session\n", encoding="utf-8")
    result = run_ours(sandbox, "--session", str(invalid), "-p", "hi")
    assert result.returncode == 1
    line = _one_line(result.stderr)
    assert line.startswith(f"Error: Session file is not a valid pi session: {invalid}")
    assert "pass another file" in line
    assert invalid.read_text(encoding="utf-8") == "this is not a session\n"

    missing = run_ours(sandbox, "--session", "0123abcd", "-p", "hi")
    assert missing.returncode == 1
    assert "No session found matching '0123abcd'" in _one_line(missing.stderr)


def test_provider_down(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    path, before = _existing_session(sandbox)
    # Point the provider at a port where nothing listens.
    models = json.loads((sandbox.agent_dir / "models.json").read_text(encoding="utf-8"))
    for entry in models["providers"].values():
        entry["baseUrl"] = "http://127.0.0.1:9/v1"
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    result = run_ours(sandbox, "-c", "-p", "are you there?")
    assert result.returncode == 1
    line = _one_line(result.stderr)
    assert "could not reach http://127.0.0.1:9/v1" in line and "server is running" in line
    assert result.stdout == ""
    after = path.read_bytes()
    # The file is only appended to (the prompt and the failed answer), as Pi does.
    assert after.startswith(before)
    added = [json.loads(line) for line in after[len(before):].decode().splitlines()]
    assert [entry["message"]["role"] for entry in added] == ["user", "assistant"]
    assert added[1]["message"]["stopReason"] == "error"


def test_rpc_interactive_and_unknown_flags(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    rpc = run_ours(sandbox, "--mode", "rpc", "@notes.txt")
    assert rpc.returncode == 1 and _one_line(rpc.stderr) == "Error: @file arguments are not supported in RPC mode"
    flag = run_ours(sandbox, "--frobnicate", "-p", "x")
    assert flag.returncode == 1 and _one_line(flag.stderr) == "Error: Unknown option: --frobnicate (see pi --help)"
    short = run_ours(sandbox, "-z")
    assert short.returncode == 1 and _one_line(short.stderr) == "Error: Unknown option: -z"
    resume = run_ours(sandbox, "-r", "-p", "x")
    assert resume.returncode == 1 and "--resume needs a terminal to pick a session in" in _one_line(resume.stderr)
    missing_file = run_ours(sandbox, "--model", OPENAI_MODEL, "-p", "@nope.txt", "hi")
    assert missing_file.returncode == 1
    assert _one_line(missing_file.stderr) == f"Error: File not found: {sandbox.work / 'nope.txt'}"


def test_broken_settings_file_is_reported_and_kept(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "fine"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        broken = '{"retry": {"enabled": false,}}'
        (sandbox.agent_dir / "settings.json").write_text(broken, encoding="utf-8")
        result = run_ours(sandbox, "--model", OPENAI_MODEL, "-p", "hi")
    assert result.returncode == 0
    assert result.stdout == "fine\n"
    line = _one_line(result.stderr)
    assert line.startswith(f"Warning: Invalid settings file {sandbox.agent_dir / 'settings.json'}")
    assert "line 1 column 29" in line
    assert (sandbox.agent_dir / "settings.json").read_text(encoding="utf-8") == broken


def test_sigterm_aborts_the_run_and_kills_tool_processes(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    marker = "61.4321"
    script = [{"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": f"sleep {marker}"}}]},
              {"text": "never reached"}]
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        process = subprocess.Popen(
            [str(Path(__file__).resolve().parents[3] / ".venv" / "bin" / "pi"), "--mode", "json", "--model",
             OPENAI_MODEL, "sleep please"],
            cwd=sandbox.work, env=sandbox.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )
        assert process.stdout is not None
        for line in process.stdout:
            if json.loads(line)["type"] == "tool_execution_start":
                break
        deadline = time.monotonic() + 10
        while not _sleepers(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _sleepers(marker), "the tool's command never started"
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=15)
    assert process.returncode == 143
    assert time.monotonic() - started < 5
    assert _sleepers(marker) == []
    events = [json.loads(line) for line in rest.splitlines()]
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert end["isError"] is True and "aborted" in end["result"]["content"][0]["text"].lower()
    assert events[-1]["type"] == "agent_settled"
    assert len(provider.requests) == 1
    lines = [json.loads(line) for line in sandbox.session_files()[0].read_text(encoding="utf-8").splitlines()]
    assert [line["message"]["role"] for line in lines if line["type"] == "message"][:4] == [
        "system",
        "user", "assistant", "toolResult"
    ]
    assert os.path.exists(sandbox.session_files()[0])


def _sleepers(marker: str) -> list[str]:
    import subprocess

    listing = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True).stdout
    return [line for line in listing.splitlines() if f"sleep {marker}" in line and "ps -eo" not in line]


def test_tool_arguments_nested_5000_levels_get_an_error_result_and_the_answer_goes_on(tmp_path: Path) -> None:
    """Pi reads any depth; Python's serializers do not, and such arguments used to fail the
    whole answer with a recursion error. Now the call gets a clear error result, the model
    answers after it, and the session records both."""
    deep = '{"path": "notes.txt", "extra": ' + "[" * 5000 + "]" * 5000 + "}"
    script = [
        {"tool_calls": [{"id": "call_1", "name": "read", "arguments_json": deep}]},
        {"text": "answered after the error"},
    ]
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        (sandbox.work / "notes.txt").write_text("never read", encoding="utf-8")
        result = run_ours(sandbox, "--model", OPENAI_MODEL, "-p", "read it")
        sent_back = provider.requests[-1]["body"]["messages"]
    assert result.returncode == 0, result.stderr
    assert result.stdout == "answered after the error\n" and result.stderr == ""
    (path,) = sandbox.session_files()
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    messages = [entry["message"] for entry in entries if entry.get("type") == "message"]
    [call] = [block for block in messages[2]["content"] if block["type"] == "toolCall"]
    # Recorded as Pi 1.6 records unreadable arguments: empty arguments and an argumentsError.
    assert call["arguments"] == {}
    assert call["argumentsError"].startswith("JSON nested too deeply to read\n\nReceived arguments:\n")
    assert messages[3]["role"] == "toolResult" and messages[3]["isError"] is True
    assert messages[3]["content"][0]["text"].startswith('Invalid arguments for tool "read": JSON nested too deeply')
    assert any(m.get("role") == "tool" and "nested too deeply" in str(m.get("content")) for m in sent_back)
