"""The system messages ours writes, read by both Pis.

Ours records its prompt as Pi 1.6's named sections and its tools as declarations: a full system
message at a session's first run, then patches when the prompt or tools change. Pi 1.6 resuming
such a file sends its own prompt, not ours plus its own; Pi 0.85 keeps them out of the model's
messages; the JSON and RPC streams carry the system message where Pi 1.6's do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider


def _system_text(body: dict[str, Any]) -> str:
    return "\n\n".join(str(m["content"]) for m in body["messages"] if m["role"] in ("system", "developer"))


def _system_entries(session: Path) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "system"]


def _skill(sandbox: Sandbox, name: str) -> None:
    folder = sandbox.agent_dir / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Does {name}.\n---\nSteps.\n", encoding="utf-8"
    )


def test_ours_patches_what_changed_and_pi_16_resumes_with_its_own_prompt(tmp_path: Path) -> None:
    """Ours: a full declaration first, then (context file, skill and appended prompt changed)
    one patch of exactly those sections, whose replay is the prompt sent. Pi 1.6 resuming the
    file sends the prompt and tools it sends in a session of its own, once."""
    oracle.require_live_oracle(current=True)
    with ScriptedProvider([{"text": "ok"}] * 10) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        (sandbox.work / "AGENTS.md").write_text("Rule one.", encoding="utf-8")
        assert run_ours(sandbox, "-p", "--model", OPENAI_MODEL, "first").returncode == 0
        (sandbox.work / "AGENTS.md").write_text("Rule two.", encoding="utf-8")
        _skill(sandbox, "deploy")
        again = run_ours(
            sandbox, "-p", "-c", "--model", OPENAI_MODEL, "--append-system-prompt", "Be brief.", "second"
        )
        assert again.returncode == 0, again.stderr
        (session,) = sandbox.session_files()
        first, patch = _system_entries(session)
        assert list(first["sections"]) == ["preamble", "tools", "rules", "docs", "project_context", "cwd"]
        assert [t["name"] for t in first["toolsAdded"]] == ["read", "bash", "edit", "write"]
        assert first["content"] == "" and "toolsRemoved" not in first
        assert sorted(patch["sections"]) == ["addendum", "project_context", "skills"]
        assert "toolsAdded" not in patch and "toolsRemoved" not in patch
        replayed = {**first["sections"], **patch["sections"]}
        assert _system_text(provider.requests[1]["body"]) == "\n\n".join(replayed.values())
        assert "Rule two." in replayed["project_context"] and "<name>deploy</name>" in replayed["skills"]

        resumed = run_pi(sandbox, "-p", "-c", "--model", OPENAI_MODEL, "third", current=True)
        fresh = sandbox.root / "fresh.jsonl"
        own = run_pi(sandbox, "-p", "--session", str(fresh), "--model", OPENAI_MODEL, "fresh", current=True)
        assert resumed.returncode == 0 and own.returncode == 0, resumed.stderr + own.stderr
        pi_resumed, pi_own = provider.requests[2]["body"], provider.requests[3]["body"]
        # Pi's patch takes every section to its own (the appended text was not given this time,
        # so it is removed); sections patched in later stay where they were added.
        *_, pi_patch = _system_entries(session)
        pi_sections = {k: v for k, v in {**replayed, **pi_patch["sections"]}.items() if v is not None}
        (own_first,) = _system_entries(fresh)
        assert pi_sections == own_first["sections"]
        assert _system_text(pi_resumed) == "\n\n".join(pi_sections.values())
        assert len(_system_text(pi_resumed)) == len(_system_text(pi_own))
        assert pi_resumed["tools"] == pi_own["tools"]


def test_pi_085_keeps_our_system_messages_out_of_the_model_messages(tmp_path: Path) -> None:
    """Pi 0.85 opens our file (it keeps the system messages in its context, as with Pi 1.6's
    files) and its ``convertToLlm`` leaves them out: the model sees what ours sends."""
    with ScriptedProvider([{"text": "ok"}] * 4) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        assert run_ours(sandbox, "-p", "--model", OPENAI_MODEL, "first").returncode == 0
        (session,) = sandbox.session_files()
        code, answer = oracle.run_oracle("session-context", {"jsonl": session.read_text(encoding="utf-8")})
        assert code == 0, answer
        roles = [m["role"] for m in answer["context"]["messages"]]
        assert roles == ["system", "user", "assistant"]
        code, converted = oracle.run_oracle("convert-to-llm", {"messages": answer["context"]["messages"]})
        assert code == 0, converted
        assert [m["role"] for m in converted] == ["user", "assistant"]


def _opening(lines: list[dict[str, Any]]) -> list[Any]:
    """The events up to the user's message: types, roles, and of the system message its keys,
    section names and tool names."""
    view: list[Any] = []
    for event in lines:
        message = event.get("message") or {}
        if event.get("type") == "response" or event.get("type") == "session":
            continue
        if message.get("role") == "system":
            view.append(
                (
                    event["type"],
                    sorted(message),
                    list(message["sections"]),
                    [t["name"] for t in message["toolsAdded"]],
                )
            )
        else:
            view.append((event["type"], message.get("role")))
        if message.get("role") == "user":
            return view
    return view


def test_json_and_rpc_streams_start_with_the_system_message_as_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    openings: dict[str, list[Any]] = {}
    for runner in ("pi", "ours"):
        with ScriptedProvider([{"text": "ok"}] * 4) as provider:
            sandbox = Sandbox.create(tmp_path / runner, provider.base_url)
            for mode, stdin in (
                ("json", None),
                ("rpc", json.dumps({"id": "p", "type": "prompt", "message": "hi"}) + "\n"),
            ):
                args = (
                    "--mode",
                    mode,
                    "--no-session",
                    "--model",
                    OPENAI_MODEL,
                    *(("hi",) if mode == "json" else ()),
                )
                done = (
                    run_pi(sandbox, *args, stdin=stdin, current=True)
                    if runner == "pi"
                    else run_ours(sandbox, *args, stdin=stdin)
                )
                assert done.returncode == 0, done.stderr
                openings[f"{runner} {mode}"] = _opening(done.json_lines())
    assert openings["ours json"] == openings["pi json"]
    assert openings["ours rpc"] == openings["pi rpc"]
    assert openings["ours json"][2][0] == "message_start" and openings["ours json"][2][1][1] == "role"
