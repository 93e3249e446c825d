"""The RPC protocol of our ``pi --mode rpc`` itself: framing, id correlation, bad input, the
extension UI sub-protocol, and the process lifetime (end of input, signals)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_ai import AbortController
from pi_coding_agent.app.rpc import LineSplitter, RpcClient, RpcServer, serialize_line
from tests.pi_coding_agent.app.rpc._support import our_pi
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox
from tests.support.scripted_provider import ScriptedProvider

SEPARATORS = "line\u2028separator\u2029paragraph"


# ---------------------------------------------------------------------- framing


def test_records_end_at_lf_only() -> None:
    splitter = LineSplitter()
    first = json.dumps({"type": "prompt", "message": SEPARATORS}, ensure_ascii=False).encode()
    assert splitter.feed(first[:7]) == []
    assert splitter.feed(first[7:] + b"\r\n" + b'{"type":"abort"}\n{"type":"x","t":"a\rb"}') == [
        first,
        b'{"type":"abort"}',
    ]
    assert splitter.finish() == [b'{"type":"x","t":"a\rb"}']
    assert splitter.finish() == []


def test_a_character_cut_between_reads_survives() -> None:
    splitter = LineSplitter()
    data = '{"message":"héllo ✓"}\n'.encode()
    cut = data.index("✓".encode()) + 1
    assert splitter.feed(data[:cut]) == []
    assert [json.loads(line) for line in splitter.feed(data[cut:])] == [{"message": "héllo ✓"}]


def test_output_keeps_unicode_separators_inside_strings() -> None:
    line = serialize_line({"text": SEPARATORS})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert "\u2028".encode() in line and json.loads(line) == {"text": SEPARATORS}


async def test_unpaired_surrogates_are_read_and_written_escaped() -> None:
    """JSON.parse accepts a lone surrogate escape and JSON.stringify writes it back escaped
    (msgspec alone refuses both)."""
    assert serialize_line({"name": "odd \ud800 name"}) == b'{"name":"odd \\ud800 name"}\n'
    server, output = _server()
    server.handle_line(b'{"type": "frobnicate", "id": "x\\udc00"}')
    assert _lines(output) == [
        {"id": "x\udc00", "type": "response", "command": "frobnicate", "success": False,
         "error": "Unknown command: frobnicate"}
    ]


# ---------------------------------------------------------------------- in-process server


class _Runtime:
    """Enough of a runtime for the extension UI tests (no session is touched)."""

    def __init__(self) -> None:
        self.ui: Any = None

    def bind_ui(self, ui: Any, mode: str) -> None:
        self.ui, self.mode = ui, mode

    def subscribe(self, listener: Any) -> Any:
        return lambda: None

    def on_extension_error(self, listener: Any) -> None:
        """No extensions are loaded here."""


def _server() -> tuple[RpcServer, io.BytesIO]:
    output = io.BytesIO()
    return RpcServer(_Runtime(), output), output  # type: ignore[arg-type]


def _lines(output: io.BytesIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.getvalue().splitlines()]


async def _flush() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_extension_dialogs_wait_for_their_response() -> None:
    server, output = _server()
    assert server.runtime.mode == "rpc" and server.runtime.ui is server.ui  # type: ignore[attr-defined]
    choice = asyncio.create_task(server.ui.select("Allow?", ["Allow", "Block"], timeout_ms=10_000))
    confirm = asyncio.create_task(server.ui.confirm("Clear?", "All lost."))
    text = asyncio.create_task(server.ui.input("Name", "type here"))
    edited = asyncio.create_task(server.ui.editor("Edit", "line 1\nline 2"))
    await _flush()
    requests = _lines(output)
    assert [r["method"] for r in requests] == ["select", "confirm", "input", "editor"]
    assert {k: v for k, v in requests[0].items() if k != "id"} == {
        "type": "extension_ui_request", "method": "select", "title": "Allow?", "options": ["Allow", "Block"],
        "timeout": 10_000,
    }
    assert "timeout" not in requests[1] and requests[2]["placeholder"] == "type here"
    assert requests[3]["prefill"] == "line 1\nline 2"
    for request, answer in zip(requests, ({"value": "Block"}, {"confirmed": True}, {"cancelled": True},
                                          {"value": "edited"}), strict=True):
        server.handle_line(json.dumps({"type": "extension_ui_response", "id": request["id"], **answer}).encode())
    assert await choice == "Block" and await confirm is True and await text is None and await edited == "edited"
    assert server.ui.pending_requests == 0


async def test_dialog_defaults_on_timeout_abort_and_late_answers() -> None:
    server, output = _server()
    assert await server.ui.select("Slow?", ["a"], timeout_ms=20) is None
    assert await server.ui.confirm("Slow?", "no answer", timeout_ms=20) is False
    controller = AbortController()
    pending = asyncio.create_task(server.ui.input("Abort me"))
    pending_confirm = asyncio.create_task(server.ui.confirm("Abort me", "too", signal=controller.signal))
    await _flush()
    controller.abort()
    assert await pending_confirm is False
    first = _lines(output)[0]
    server.handle_line(json.dumps({"type": "extension_ui_response", "id": first["id"], "value": "late"}).encode())
    pending.cancel()
    aborted_before = AbortController()
    aborted_before.abort()
    assert await server.ui.select("never asked", ["x"], signal=aborted_before.signal) is None
    assert all(r["title"] != "never asked" for r in _lines(output))


async def test_fire_and_forget_requests() -> None:
    server, output = _server()
    server.ui.notify("Blocked", "warning")
    server.ui.notify("Plain")
    server.ui.set_status("ext", "Turn 3")
    server.ui.set_status("ext", None)
    server.ui.set_widget("ext", ["a", "b"], "belowEditor")
    server.ui.set_widget("ext", None)
    server.ui.set_title("pi - project")
    server.ui.set_editor_text("draft")
    assert server.ui.get_editor_text() == ""
    await _flush()
    shapes = [{k: v for k, v in r.items() if k not in ("id", "type")} for r in _lines(output)]
    assert shapes == [
        {"method": "notify", "message": "Blocked", "notifyType": "warning"},
        {"method": "notify", "message": "Plain"},
        {"method": "setStatus", "statusKey": "ext", "statusText": "Turn 3"},
        {"method": "setStatus", "statusKey": "ext"},
        {"method": "setWidget", "widgetKey": "ext", "widgetLines": ["a", "b"], "widgetPlacement": "belowEditor"},
        {"method": "setWidget", "widgetKey": "ext"},
        {"method": "setTitle", "title": "pi - project"},
        {"method": "set_editor_text", "text": "draft"},
    ]
    assert len({r["id"] for r in _lines(output)}) == 8


# ---------------------------------------------------------------------- the real process


async def _client(box: Sandbox, *args: str) -> RpcClient:
    client = RpcClient([str(our_pi())], args=["--model", OPENAI_MODEL, *args], cwd=box.work, env=box.env())
    await client.start()
    return client


async def test_bad_lines_and_fields_get_clear_answers(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "unused"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        client = await _client(box, "--tools", "read,nope")
        seen: list[dict[str, Any]] = []
        client.on_message(seen.append)
        try:
            await client.write_raw("{not json")
            await client.write_raw('["a list"]')
            answers = [
                await client.send({"type": "prompt"}),
                await client.send({"type": "set_thinking_level", "level": "ultra"}),
                await client.send({"type": "set_auto_retry", "enabled": "yes"}),
                await client.send({"type": "bash", "command": 42}),
                await client.send({"type": "frobnicate"}),
            ]
            state = await client.get_state()
        finally:
            code = await client.stop()
    errors = [a["error"] for a in answers]
    assert errors == [
        "prompt: missing required field 'message' (a string)",
        "set_thinking_level: field 'level' must be one of off, minimal, low, medium, high, xhigh, max",
        "set_auto_retry: field 'enabled' must be true or false",
        "bash: field 'command' must be a string",
        "Unknown command: frobnicate",
    ]
    assert [a["id"] for a in answers] == ["req_1", "req_2", "req_3", "req_4", "req_5"]
    assert [a["command"] for a in answers] == ["prompt", "set_thinking_level", "set_auto_retry", "bash", "frobnicate"]
    parse_errors = [m for m in seen if m.get("command") == "parse"]
    assert len(parse_errors) == 2 and all(not e["success"] and "id" not in e for e in parse_errors)
    # V8's JSON.parse message, as Pi's (the scenario of test_differential.py compares them).
    assert parse_errors[0]["error"] == (
        "Failed to parse command: Expected property name or '}' in JSON at position 1 (line 1 column 2)"
    )
    assert parse_errors[1]["error"] == 'Failed to parse command: expected a JSON object with a string "type"'
    assert state["messageCount"] == 0 and code == 0
    # The warning about the unknown tool went to stderr; stdout held only protocol.
    assert 'Unknown tool "nope"' in client.stderr


def test_stdout_is_protocol_only_and_crlf_and_separators_work(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": f"echo: {SEPARATORS}"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        commands = (
            json.dumps({"id": "a", "type": "prompt", "message": SEPARATORS}, ensure_ascii=False) + "\r\n"
        ).encode()
        process = subprocess.Popen(
            [str(our_pi()), "--mode", "rpc", "--model", OPENAI_MODEL, "--tools", "nope"],
            cwd=box.work, env=box.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(commands)
        process.stdin.flush()
        lines = []
        while True:
            line = process.stdout.readline()
            assert line, process.stderr.read() if process.stderr else ""
            lines.append(line)
            if json.loads(line).get("type") == "agent_settled":
                break
        process.stdin.close()
        assert process.wait(timeout=30) == 0
        stderr = process.stderr.read().decode() if process.stderr else ""
    decoded = [json.loads(line) for line in lines]
    assert all(isinstance(d, dict) and "type" in d for d in decoded)
    assert decoded[0] == {"id": "a", "type": "response", "command": "prompt", "success": True,
                          "data": {"disposition": "started"}}
    user = next(d for d in decoded if d["type"] == "message_end" and d["message"]["role"] == "user")
    assert user["message"]["content"][0]["text"] == SEPARATORS
    assert any("\u2028".encode() in line for line in lines)  # written raw, as JSON.stringify does
    assert "Unknown tool" in stderr


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signals_end_the_process_with_pi_s_status(tmp_path: Path, signum: int, status: int) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    process = subprocess.Popen(
        [str(our_pi()), "--mode", "rpc", "--model", OPENAI_MODEL],
        cwd=box.work, env=box.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b'{"id":"1","type":"get_state"}\n')
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["command"] == "get_state"
    os.kill(process.pid, signum)
    assert process.wait(timeout=30) == status
    process.stdin.close()


async def test_a_deep_tree_goes_over_the_wire(tmp_path: Path) -> None:
    """A linear session is a tree as deep as it is long: neither side may nest recursively."""
    from pi_ai import AssistantMessage, TextContent, Usage
    from pi_coding_agent.core.session import SessionManager

    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    manager = SessionManager.create(str(box.work), str(tmp_path / "sessions"))
    for index in range(1500):
        manager.append_message(
            AssistantMessage(content=[TextContent(text=f"answer {index}")], api="openai-completions",
                             provider="scripted-openai", model="scripted-model", usage=Usage(), stop_reason="stop",
                             timestamp=index)
        )
    path = manager.get_session_file()
    manager.close()
    assert path is not None
    client = await _client(box, "--session", path)
    try:
        answer = await client.get_tree()
    finally:
        await client.stop()
    depth, node = 0, answer["tree"][0]
    while node["children"]:
        depth, node = depth + 1, node["children"][0]
    assert depth == 1500 and node["entry"]["id"] == answer["leafId"]


def test_end_of_input_stops_a_run_and_records_it(tmp_path: Path) -> None:
    """Closing stdin ends the process (status 0); the answer being streamed is aborted and the
    aborted answer is still recorded in the session file."""
    with ScriptedProvider([{"text": "a slow answer " * 40, "chunk_delay": 0.05}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        process = subprocess.Popen(
            [str(our_pi()), "--mode", "rpc", "--model", OPENAI_MODEL],
            cwd=box.work, env=box.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b'{"type":"prompt","message":"go"}\n')
        process.stdin.flush()
        while json.loads(process.stdout.readline()).get("type") != "message_update":
            pass
        process.stdin.close()
        assert process.wait(timeout=30) == 0
        (session,) = box.session_files()
    messages = [json.loads(line).get("message", {}) for line in session.read_text(encoding="utf-8").splitlines()]
    assert [m.get("role") for m in messages if m] == ["system", "user", "assistant"]
    assert messages[-1]["stopReason"] == "aborted"


# ---------------------------------------------------------------------- nothing configured


def _unconfigured(tmp_path: Path, settings: str | None) -> tuple[dict[str, str], Path]:
    from tests.support.local_model import SMALL_MODEL, cache_env

    work, agent_dir = tmp_path / "work", tmp_path / "agent"
    work.mkdir()
    agent_dir.mkdir()
    if settings is not None:
        (agent_dir / "settings.json").write_text(settings, encoding="utf-8")
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "NODE_COMPILE_CACHE")}
    env = {**keep, **cache_env(), "HOME": str(tmp_path / "home"), "PI_CODING_AGENT_DIR": str(agent_dir),
           "PI_LOCAL_MODEL": SMALL_MODEL}
    return env, work


async def test_with_nothing_configured_the_embedded_model_serves(tmp_path: Path) -> None:
    """No key and no models.json: the embedded model (a difference from Pi, which starts on an
    ``unknown`` placeholder and refuses every prompt); its announcement goes to stderr only."""
    from tests.support.local_model import SMALL_MODEL, model_file, require_runtime

    require_runtime()
    model_file(SMALL_MODEL)
    env, work = _unconfigured(tmp_path, None)
    seen: list[dict[str, Any]] = []
    client = RpcClient([str(our_pi())], cwd=work, env=env)
    client.on_message(seen.append)
    async with client:
        state = await client.get_state()
        models = await client.get_available_models()
    assert (state["model"]["provider"], state["model"]["id"]) == ("local", SMALL_MODEL)
    assert {m["provider"] for m in models} == {"local"}
    assert [m.get("command") for m in seen] == ["get_state", "get_available_models"]
    assert f"no provider configured: embedded model local/{SMALL_MODEL} (offline)" in client.stderr


def test_with_the_fallback_off_nothing_is_served(tmp_path: Path) -> None:
    env, work = _unconfigured(tmp_path, '{"localModelFallback": false}')
    done = subprocess.run([str(our_pi()), "--mode", "rpc"], cwd=work, env=env, input=b'{"type":"get_state"}\n',
                          capture_output=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode().startswith("Error: No models available") and done.stderr.count(b"\n") == 1


async def test_the_client_answers_extension_dialogs_over_pipes() -> None:
    """``RpcClient.events()`` sees the dialogs; ``respond_to_ui`` answers them by id."""
    import sys

    agent = Path(__file__).with_name("ui_agent.py")
    client = RpcClient([sys.executable, str(agent)], env={"PYTHONPATH": os.pathsep.join(sys.path)})
    asked: list[str] = []
    async with client.events() as events:
        await client.start()
        try:
            async with asyncio.timeout(60):
                async for event in events:
                    assert event["type"] == "extension_ui_request"
                    asked.append(event["method"])
                    if event["method"] == "confirm":
                        assert event["timeout"] == 30_000 and event["message"] == "rm -rf build"
                        await client.respond_to_ui(event["id"], confirmed=True)
                    elif event["method"] == "select":
                        await client.respond_to_ui(event["id"], value=event["options"][1])
                    elif event["method"] == "input":
                        await client.respond_to_ui(event["id"], cancelled=True)
                    else:
                        assert event["message"] == "confirmed=True choice=b typed=None"
                        break
        finally:
            code = await client.stop()
    assert asked == ["confirm", "select", "input", "notify"] and code == 0, client.stderr
