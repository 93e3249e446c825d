"""Anthropic message threads, ours against Pi 1.6's CLI on the same scripted provider on
127.0.0.1 (the model's ``compat.supportsMessageThreads`` turns them on away from
api.anthropic.com): the second prompt continues the first reply's thread with only the new
messages, a ``continue`` the server cannot serve is resent as a new thread, and an endpoint that
does not know the field gets the request again without it, for the rest of the session. Both
send the same bodies and beta headers, and record the same diagnostic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider, Turn

pytestmark = pytest.mark.oracle

MODELS = {
    "providers": {
        "threads": {
            "baseUrl": "%s",
            "api": "anthropic-messages",
            "apiKey": "scripted-key",
            "compat": {"supportsMessageThreads": True},
            "models": [{"id": "claude-threads", "contextWindow": 64000, "maxTokens": 4096}],
        }
    }
}
THREAD_GONE = {
    "status": 400,
    "body": {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "previous message not found",
            "details": {"error_code": "thread_not_found"},
        },
    },
}
FIELD_UNKNOWN = {
    "status": 400,
    "body": {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "thread: Extra inputs are not permitted"},
    },
}


def _comparable(request: dict[str, Any]) -> dict[str, Any]:
    body = dict(request["body"])
    if "system" in body:
        body["system"] = [{**block, "text": "<system prompt>"} for block in body["system"]]
    if "tools" in body:
        body["tools"] = _without_descriptions(body["tools"])
    return {"beta": request["headers"].get("anthropic-beta"), "body": body}


def _without_descriptions(value: Any) -> Any:
    """Tools with every ``description`` blanked: ours words its tools in its own prose."""
    if isinstance(value, list):
        return [_without_descriptions(item) for item in value]
    if isinstance(value, dict):
        return {
            key: "<description>" if key == "description" else _without_descriptions(item)
            for key, item in value.items()
        }
    return value


def _run_both(
    tmp_path: Path, turns: list[Turn], *more: str
) -> dict[str, tuple[list[dict[str, Any]], list[Any]]]:
    """Each CLI's requests (comparable form) and the diagnostics of its assistant messages."""
    oracle.require_live_oracle(current=True)
    seen: dict[str, tuple[list[dict[str, Any]], list[Any]]] = {}
    for runner in ("pi", "ours"):
        with ScriptedProvider(turns, sequential=True) as provider:
            sandbox = Sandbox.create(tmp_path / runner, provider.base_url)
            models = json.dumps(MODELS).replace("%s", provider.base_url)
            (sandbox.agent_dir / "models.json").write_text(models, encoding="utf-8")
            args = (
                "--model",
                "threads/claude-threads",
                "--tools",
                "read",
                "-p",
                "First question?",
                "Second question?",
                *more,
            )
            done = run_pi(sandbox, *args, current=True) if runner == "pi" else run_ours(sandbox, *args)
            assert done.returncode == 0, done.stderr
            (session,) = sandbox.session_files()
            entries = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
            diagnostics = [
                [
                    {"type": d["type"], "details": d.get("details"), "error": d.get("error")}
                    for d in m.get("diagnostics", [])
                ]
                for entry in entries
                if entry["type"] == "message" and (m := entry["message"])["role"] == "assistant"
            ]
            seen[runner] = ([_comparable(request) for request in provider.requests], diagnostics)
    return seen


def test_each_prompt_continues_the_last_reply_and_a_lost_thread_is_opened_anew_as_pi_1_6(
    tmp_path: Path,
) -> None:
    turns: list[Turn] = [
        {"text": "First answer."},
        {"text": "Second answer."},
        {"text": "Third.", "fail": [THREAD_GONE]},
    ]
    seen = _run_both(tmp_path, turns, "Third question?")
    pi_requests, pi_diagnostics = seen["pi"]
    assert [r["body"]["thread"] for r in pi_requests] == [
        {"type": "create"},
        {"type": "continue", "previous_message_id": "msg_scripted"},
        {"type": "continue", "previous_message_id": "msg_scripted"},
        {"type": "create"},
    ]
    assert "message-threads-2026-08-12" in pi_requests[0]["beta"].split(",")
    continued = pi_requests[1]["body"]
    assert "system" not in continued and "tools" not in continued and len(continued["messages"]) == 1
    assert len(pi_requests[3]["body"]["messages"]) == 5 and "system" in pi_requests[3]["body"]
    assert pi_diagnostics[2] == [
        {
            "type": "anthropic_thread_fallback",
            "details": {"reason": "thread_not_found"},
            "error": pi_diagnostics[2][0]["error"],
        }
    ]
    assert seen["ours"] == seen["pi"]


def test_an_endpoint_without_threads_gets_plain_requests_for_the_rest_of_the_session(tmp_path: Path) -> None:
    seen = _run_both(
        tmp_path, [{"text": "First answer.", "fail": [FIELD_UNKNOWN]}, {"text": "Second answer."}]
    )
    pi_requests, pi_diagnostics = seen["pi"]
    assert [r["body"].get("thread") for r in pi_requests] == [{"type": "create"}, None, None]
    assert all("message-threads-2026-08-12" in r["beta"].split(",") for r in pi_requests)
    assert pi_diagnostics[0][0]["details"] == {"reason": "400"}
    assert seen["ours"] == seen["pi"]
