"""``pi -p`` with Azure OpenAI (an API key in the environment) and with ChatGPT's Codex backend
(a signed-in ``openai-codex`` credential in ``auth.json``), each against a Responses server on
127.0.0.1: a tool-call turn, the tool's result, the answer. Pi's own CLI runs the same task
against the same server, and the requests both send are compared: Pi 0.85 for Azure, Pi 1.6 for
Codex (whose models take the system messages in place, tools as ``additional_tools`` items, and,
for 1.6's default model, the thinking level in ``configuration_update`` items, as ours now do)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import Completed, Sandbox, run_ours, run_pi
from tests.support.responses_server import (
    Frame,
    ResponsesServer,
    ResponsesWebSocketServer,
    Seen,
    chatgpt_token,
)

pytestmark = pytest.mark.oracle

TURNS = [
    {"tool_call": {"call_id": "call_read_1", "name": "read", "arguments": {"path": "notes.txt"}}},
    {"text": "The notes say: ship it."},
]


def _token() -> str:
    return chatgpt_token("acct-e2e")


def _sandbox(tmp_path: Path, name: str) -> Sandbox:
    sandbox = Sandbox.create(
        tmp_path / name, "http://127.0.0.1:9", {"retry": {"enabled": False}, "transport": "sse"}
    )
    (sandbox.work / "notes.txt").write_text("ship it\n", encoding="utf-8")
    return sandbox


def _comparable(seen: Seen | Frame) -> dict[str, Any]:
    """The body without what differs per run by design (session ids) or per program (the system
    prompt and the tools' descriptions are each program's own prose): tools by name."""
    left_out = ("prompt_cache_key",)
    body = {key: value for key, value in seen.body.items() if key not in left_out}
    body["tools"] = sorted(tool["name"] for tool in body.get("tools", []))
    body["input"] = [item for item in body["input"] if item.get("role") not in ("system", "developer")]
    return body


def _answered(done: Completed) -> None:
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The notes say: ship it."


def test_azure_openai_task_matches_pi(tmp_path: Path) -> None:
    ours_box, pis_box = _sandbox(tmp_path, "ours"), _sandbox(tmp_path, "pi")
    with ResponsesServer(TURNS) as server:
        env = {
            "AZURE_OPENAI_API_KEY": "azure-e2e-key",
            "AZURE_OPENAI_BASE_URL": server.url + "/openai/v1",
            "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-5.4=team-54",
        }
        args = ("--model", "azure-openai-responses/gpt-5.4", "-p", "Read notes.txt and tell me what it says.")
        _answered(run_ours(ours_box, *args, **env))
        ours = list(server.requests)
        _answered(run_pi(pis_box, *args, **env))
        theirs = server.requests[len(ours) :]
    assert len(ours) == len(theirs) == 2
    for seen in ours:
        assert (seen.path, seen.query) == ("/openai/v1/responses", {"api-version": "v1"})
        assert seen.headers["api-key"] == "azure-e2e-key" and seen.body["model"] == "team-54"
    output = next(item for item in ours[1].body["input"] if item.get("type") == "function_call_output")
    assert output["call_id"] == "call_read_1" and "ship it" in json.dumps(output["output"])
    assert [_comparable(seen) for seen in ours] == [_comparable(seen) for seen in theirs]


def _codex_sandbox(tmp_path: Path, name: str, server_url: str, transport: str = "sse") -> Sandbox:
    sandbox = _sandbox(tmp_path, name)
    (sandbox.agent_dir / "settings.json").write_text(
        json.dumps({"retry": {"enabled": False}, "transport": transport}), encoding="utf-8"
    )
    models = json.loads((sandbox.agent_dir / "models.json").read_text(encoding="utf-8"))
    models["providers"]["openai-codex"] = {"baseUrl": server_url}
    (sandbox.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    credential = {
        "type": "oauth",
        "access": _token(),
        "refresh": "rt-e2e",
        "expires": 4_102_444_800_000,
        "accountId": "acct-e2e",
    }
    auth = sandbox.agent_dir / "auth.json"
    auth.write_text(json.dumps({"openai-codex": credential}, indent=2), encoding="utf-8")
    auth.chmod(0o600)
    return sandbox


def test_codex_subscription_task_matches_pi(tmp_path: Path) -> None:
    with ResponsesServer(TURNS, terminal="response.done") as server:
        ours_box = _codex_sandbox(tmp_path, "ours", server.url)
        pis_box = _codex_sandbox(tmp_path, "pi", server.url)
        args = ("--model", "openai-codex/gpt-5.6-sol", "-p", "Read notes.txt and tell me what it says.")
        _answered(run_ours(ours_box, *args))
        ours = list(server.requests)
        _answered(run_pi(pis_box, *args, current=True))
        theirs = server.requests[len(ours) :]
    assert len(ours) == len(theirs) == 2
    for seen in [*ours, *theirs]:
        headers = seen.headers
        assert seen.path == "/codex/responses" and headers["chatgpt-account-id"] == "acct-e2e"
        assert headers["authorization"] == f"Bearer {_token()}" and headers["originator"] == "pi"
        assert headers["session-id"] == seen.body["prompt_cache_key"]
    assert {seen.headers.get("content-encoding") for seen in [*ours, *theirs]} == {"zstd"}
    assert [_comparable(seen) for seen in ours] == [_comparable(seen) for seen in theirs]
    assert ours[0].body["max_output_tokens"] == theirs[0].body["max_output_tokens"] > 0
    _same_user_agent_but_runtime(ours[0].headers["user-agent"], theirs[0].headers["user-agent"])


def _same_user_agent_but_runtime(ours: str, theirs: str) -> None:
    """Pi 1.6's ``pi/1.6.0 (linux; node/v22...; x64)``; ours names Python where Pi names Node
    (docs/pi-1.6/models.md, "User-Agent")."""
    our_parts, their_parts = ours.split("; "), theirs.split("; ")
    assert len(our_parts) == len(their_parts) == 3, (ours, theirs)
    assert (our_parts[0], our_parts[2]) == (their_parts[0], their_parts[2])
    assert our_parts[1].startswith("python/") and their_parts[1].startswith("node/")


def _efforts(seen: Seen) -> list[Any]:
    """The ``configuration_update`` efforts of a request's input, and its ``reasoning.effort``."""
    updates = [item for item in seen.body["input"] if item.get("type") == "configuration_update"]
    return [*(item["reasoning"]["effort"] for item in updates), seen.body.get("reasoning", {}).get("effort")]


def test_codex_thinking_level_changed_on_continue_matches_pi(tmp_path: Path) -> None:
    """Pi 1.6's default Codex model takes its effort mid-conversation: a task at ``high``, then
    the session continued at ``low``. The effort each answer was made with is kept in the session
    (``providerThinkingLevel``) and replayed as ``configuration_update`` items before it, the new
    one goes last, and ``reasoning.effort`` stays ``medium``, as Pi 1.6 sends them."""
    requests: dict[str, list[Seen]] = {}
    with ResponsesServer(TURNS, terminal="response.done") as server:
        for name in ("ours", "pi"):
            box = _codex_sandbox(tmp_path, name, server.url)
            before = len(server.requests)
            for step in (
                ("--thinking", "high", "-p", "Read notes.txt and tell me what it says."),
                ("--continue", "--thinking", "low", "-p", "And now?"),
            ):
                args = ("--model", "openai-codex/gpt-6.2-sol", *step)
                _answered(run_pi(box, *args, current=True) if name == "pi" else run_ours(box, *args))
            requests[name] = server.requests[before:]
    ours, theirs = requests["ours"], requests["pi"]
    assert len(ours) == len(theirs) == 3
    # The first answer is replayed after its item in the second request; both before the new level.
    expected = [["high", "medium"], ["high", "high", "medium"], ["high", "high", "low", "medium"]]
    assert [_efforts(seen) for seen in theirs] == expected
    assert [_efforts(seen) for seen in ours] == [_efforts(seen) for seen in theirs]
    assert [_comparable(seen) for seen in ours] == [_comparable(seen) for seen in theirs]


def test_codex_over_websocket_matches_pi(tmp_path: Path) -> None:
    """Pi's default transport: one socket for the run, the second turn sent as a delta."""
    with ResponsesWebSocketServer(TURNS, terminal="response.done") as server:
        ours_box = _codex_sandbox(tmp_path, "ours", server.url, "auto")
        pis_box = _codex_sandbox(tmp_path, "pi", server.url, "auto")
        args = ("--model", "openai-codex/gpt-5.6-sol", "-p", "Read notes.txt and tell me what it says.")
        _answered(run_ours(ours_box, *args))
        ours, our_connections = list(server.frames), server.connections
        _answered(run_pi(pis_box, *args, current=True))
        theirs = server.frames[len(ours) :]
    assert our_connections == 1 and server.connections == 2
    assert len(ours) == len(theirs) == 2
    assert ours[1].body["previous_response_id"] == theirs[1].body["previous_response_id"] == "resp_1"
    assert [_comparable(frame) for frame in ours] == [_comparable(frame) for frame in theirs]
    # Node's WebSocket adds the fetch standard's request headers (accept, accept-language,
    # accept-encoding, sec-fetch-mode, pragma, cache-control), as its HTTP stack does for every
    # request; Pi sets none of them (docs/providers/openai-codex.md).
    node_only = {"accept", "accept-language", "accept-encoding", "sec-fetch-mode", "pragma", "cache-control"}
    # The user-agent names each runtime, compared below.
    volatile = {"host", "sec-websocket-key", "session-id", "x-client-request-id", "user-agent", *node_only}

    def handshake(frame: Frame) -> dict[str, str]:
        return {name: value.lower() for name, value in frame.headers.items() if name not in volatile}

    assert handshake(ours[0]) == handshake(theirs[0])
    _same_user_agent_but_runtime(ours[0].headers["user-agent"], theirs[0].headers["user-agent"])


def _transport_failures(done: Completed) -> list[dict[str, Any]]:
    """The ``provider_transport_failure`` errors on the assistant messages of a ``--mode json`` run."""
    assert done.returncode == 0, done.stderr
    events = done.json_lines()
    ends = [event["message"] for event in events if event.get("type") == "message_end"]
    assert ends[-1]["content"][-1]["text"] == "The notes say: ship it."
    return [
        {key: value for key, value in diagnostic["error"].items() if key != "stack"}
        for message in ends
        if message.get("role") == "assistant"
        for diagnostic in message.get("diagnostics") or []
        if diagnostic.get("type") == "provider_transport_failure"
    ]


def test_codex_websocket_connect_timeout_setting_matches_pi(tmp_path: Path) -> None:
    """``websocketConnectTimeoutMs`` in settings.json reaches the Codex transport: a server that
    accepts TCP but never completes the handshake; both give the socket up after the setting's
    limit (the diagnostic names it), close that connection and send the request over SSE."""
    with ResponsesServer(TURNS, terminal="response.done", hold_upgrades=True) as server:
        boxes = []
        for name in ("ours", "pi"):
            box = _codex_sandbox(tmp_path, name, server.url, "auto")
            settings = json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))
            settings["websocketConnectTimeoutMs"] = 300
            (box.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
            boxes.append(box)
        args = ("--model", "openai-codex/gpt-5.6-sol", "--mode", "json", "-p", "Read notes.txt and tell me what it says.")
        our_run = run_ours(boxes[0], *args)
        ours = (server.held, list(server.requests))
        pi_run = run_pi(boxes[1], *args, current=True)
        pis = (server.held - ours[0], server.requests[len(ours[1]) :])
        for _ in range(200):  # the held connections are closed by now or soon (bounded wait)
            if server.released >= server.held:
                break
            time.sleep(0.05)
    expected = [{"name": "Error", "message": "WebSocket connect timeout after 300ms"}]
    assert _transport_failures(our_run) == _transport_failures(pi_run) == expected
    # One socket attempt per run (the session stays on SSE after it), both closed by the client.
    assert ours[0] == pis[0] == 1 and server.released == 2
    assert len(ours[1]) == len(pis[1]) == 2
    assert [_comparable(seen) for seen in ours[1]] == [_comparable(seen) for seen in pis[1]]
