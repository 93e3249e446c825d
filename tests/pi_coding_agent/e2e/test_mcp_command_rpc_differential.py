"""``/mcp`` outside the terminal UI, ours against Pi 1.6's CLI in RPC mode on the same
``mcp.json`` (a real stdio probe server, a missing command, a disabled server): the status
text, the usage warning, reconnecting (by name, the one failed server when none is named, a
missing or disabled one), ``/mcp login`` without OAuth servers, and ``get_commands``. Print mode
shows nothing for ``/mcp`` in both (the answer is a notice, which print mode drops).

Sentences that are ours (docs/mcp.md) are compared by their kind only; error details are
Node's in Pi and Python's here, so the indented error lines under a server are left out."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import pi_command
from tests.pi_coding_agent.e2e._harness import REPO, Sandbox, run_ours, run_pi

pytestmark = pytest.mark.usefixtures("forked_mcp_servers")  # several stdio starts of the probe

CONFIG = {
    "mcpServers": {
        "probe": {
            "command": sys.executable,
            "args": ["-m", "tests.support.mcp_server", "stdio"],
            "cwd": str(REPO),
            "exposure": "direct",
        },
        "off": {"command": "nothing-here", "enabled": False, "exposure": "deferred"},
        "broken": {"command": "/nonexistent/broken-server"},
    }
}
PROMPTS = [
    "/mcp",
    "/mcp bogus",
    "/mcp reconnect probe extra",
    "/mcp reconnect probe",
    "/mcp reconnect broken",
    "/mcp reconnect",
    "/mcp reconnect nope",
    "/mcp reconnect off",
    "/mcp login",
    "/mcp logout probe",
]
OURS_IN_OUR_WORDS = {
    "/mcp reconnect probe",
    "/mcp reconnect nope",
    "/mcp reconnect off",
    "/mcp login",
    "/mcp logout probe",
}


def _sandbox(root: Path, config: dict[str, Any] | None = CONFIG) -> Sandbox:
    sandbox = Sandbox.create(root, "http://127.0.0.1:9")
    if config is not None:
        (sandbox.agent_dir / "mcp.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return sandbox


def _rpc(
    root: Path, which: str, prompts: list[str] = PROMPTS, config: dict[str, Any] | None = CONFIG, *args: str
) -> tuple[list[list[tuple[str, str]]], list[dict[str, Any]]]:
    """Each prompt's notices as (kind, text), and ``get_commands``'s built-in entries."""
    sandbox = _sandbox(root, config)
    process = subprocess.Popen(pi_command(which, "--mode", "rpc", *args), cwd=sandbox.work, env=sandbox.env(),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    answers: list[list[tuple[str, str]]] = []

    def send(record: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(record) + "\n")
        process.stdin.flush()

    def until_response(ident: str) -> list[dict[str, Any]]:
        assert process.stdout is not None
        seen = []
        while True:
            line = process.stdout.readline()
            assert line, f"{which} exited"
            record = json.loads(line)
            if record.get("type") == "response" and record.get("id") == ident:
                return seen
            seen.append(record)
            if record.get("method") == "select":  # which server to reconnect: none
                send({"type": "extension_ui_response", "id": record["id"], "cancelled": True})

    try:
        for index, prompt in enumerate(prompts):
            send({"id": str(index), "type": "prompt", "message": prompt})
            records = until_response(str(index))
            answers.append([
                (str(r.get("notifyType") or r["method"]), str(r.get("message") or r.get("title")))
                for r in records
                if r.get("type") == "extension_ui_request" and r["method"] in ("notify", "select")
                and not str(r.get("message", "")).startswith("MCP servers need attention")
            ])  # fmt: skip
        send({"id": "commands", "type": "get_commands"})
        assert process.stdout is not None
        while (record := json.loads(process.stdout.readline())).get("id") != "commands":
            pass
        builtin = [c for c in record["data"]["commands"] if c["sourceInfo"].get("source") == "builtin"]
    finally:
        process.stdin.close()
        process.wait(timeout=60)
    return answers, builtin


def _without_error_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.startswith("    "))


def test_mcp_command_outside_the_tui_matches_pi_1_6(tmp_path: Path) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        theirs, ours = pool.map(lambda which: _rpc(tmp_path / which, which), ("pi16", "ours"))
    (their_answers, their_commands), (our_answers, our_commands) = theirs, ours
    assert their_answers[0] == [("info", their_answers[0][0][1])]
    assert _without_error_lines(their_answers[0][0][1]) == (
        "probe: connected, 11 tools (direct)\noff: disabled (deferred)\nbroken: failed (codemode)"
    )
    for prompt, mine, pi in zip(PROMPTS, our_answers, their_answers, strict=True):
        if prompt in OURS_IN_OUR_WORDS:  # the kind, and the state in parentheses if any
            assert [(k, re.findall(r"\(.*\)", t)) for k, t in mine] == [
                (k, re.findall(r"\(.*\)", t)) for k, t in pi
            ], prompt
        elif prompt == "/mcp":
            assert [(k, _without_error_lines(t)) for k, t in mine] == [
                (k, _without_error_lines(t)) for k, t in pi
            ]
        else:
            assert [(k, t.split(": ", 1)[0] if "failed to connect" in t else t) for k, t in mine] == [
                (k, t.split(": ", 1)[0] if "failed to connect" in t else t) for k, t in pi
            ], prompt
    assert [c["name"] for c in our_commands] == [c["name"] for c in their_commands] == ["llama", "mcp"]
    assert our_commands[1]["sourceInfo"] == their_commands[1]["sourceInfo"]


def test_mcp_command_in_print_mode_shows_nothing_as_in_pi_1_6(tmp_path: Path) -> None:
    answers = {}
    for which in ("pi16", "ours"):
        sandbox = _sandbox(tmp_path / which)
        run = (
            run_pi(sandbox, "-p", "/mcp", current=True)
            if which == "pi16"
            else run_ours(sandbox, "-p", "/mcp")
        )
        answers[which] = (run.returncode, run.stdout)
    assert answers["ours"] == answers["pi16"] == (0, "")


def test_mcp_command_without_servers_and_with_no_mcp(tmp_path: Path) -> None:
    """Without ``mcp.json`` ``/mcp`` still answers (with the file to add servers to); with
    ``--no-mcp`` there is no ``/mcp`` command, in both."""
    prompts = ["/mcp", "/mcp reconnect", "/mcp reconnect nope", "/mcp a b c"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        theirs, ours = pool.map(lambda which: _rpc(tmp_path / which, which, prompts, None), ("pi16", "ours"))
    assert [[kind for kind, _ in notes] for notes in ours[0]] == [
        [kind for kind, _ in notes] for notes in theirs[0]
    ]
    assert [[kind for kind, _ in notes] for notes in ours[0]] == [["info"], ["info"], ["error"], ["warning"]]
    for (_, text), which in ((ours[0][0][0], "ours"), (theirs[0][0][0], "pi16")):
        assert f"{tmp_path / which}/home/.pi/agent/mcp.json or .pi/mcp.json." in text
    assert [c["name"] for c in ours[1]] == [c["name"] for c in theirs[1]] == ["llama", "mcp"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        theirs, ours = pool.map(
            lambda which: _rpc(tmp_path / f"{which}-off", which, [], CONFIG, "--no-mcp"), ("pi16", "ours")
        )
    assert [c["name"] for c in ours[1]] == [c["name"] for c in theirs[1]] == ["llama"]
