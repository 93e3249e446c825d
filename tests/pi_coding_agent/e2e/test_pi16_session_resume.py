"""A session written by Pi 1.6 (system messages, context edits, a usage entry, a retain-none
compaction, branches, a second root) resumed by ours and by Pi 1.6: the same context at every
entry taken as the leaf, and, resumed at a leaf, the same prompt patches, tools and messages.

The file is the one ``tools/gen_pi16_sessions.py`` made with Pi 1.6 itself (its CLI against the
scripted provider, then its ``SessionManager``), recorded in ``tests/conformance/cases``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

REPO = Path(__file__).resolve().parents[3]
CASE = Path(__file__).resolve().parents[2] / "conformance" / "cases" / "session-context" / "pi16_second_root.json"
CWD_PLACEHOLDER = "/home/user/project"
DOCS_PLACEHOLDER = "/opt/pi-1.6/node_modules/@earendil-works/pi-coding-agent"


def _lines() -> list[str]:
    return list(json.loads(CASE.read_text(encoding="utf-8"))["jsonl"].splitlines())


def test_every_leaf_builds_the_context_pi_16_builds(tmp_path: Path) -> None:
    """Pi 1.6's own ``buildSessionContext`` at every entry as the leaf (one Node process, through
    ``tools/pi16_session_driver.mjs``), against ours through the conformance command."""
    oracle.require_live_oracle(current=True)
    sys.path.insert(0, str(REPO / "tools"))
    from gen_pi16_sessions import run_driver

    text = "\n".join(_lines()) + "\n"
    session = tmp_path / "session.jsonl"
    session.write_text(text, encoding="utf-8")
    pi = run_driver({"file": str(session), "contexts": True})
    assert isinstance(pi, dict) and len(pi) > 20
    for leaf, context in pi.items():
        _, ours = oracle.conformance_in_process("session-context", {"jsonl": text, "leafId": leaf})
        assert ours["context"] == context, leaf


def _with_leaf_last(lines: list[str], leaf_content: str) -> str:
    """The file with the entry whose message content is ``leaf_content`` moved to the end: Pi and
    ours resume at the last entry, and the tree does not depend on the order of lines."""
    header, entries = lines[0], lines[1:]
    (leaf,) = [line for line in entries if leaf_content in json.loads(line).get("message", {}).get("content", "")]
    return "\n".join([header, *(line for line in entries if line is not leaf), leaf]) + "\n"


def _text(content: Any) -> Any:
    """Message content as text: Pi 1.6 sends user text as a block list and an assistant's empty
    text as null where 0.85 and ours send strings (its wire format, not the session's content)."""
    if isinstance(content, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "".join(b["text"] for b in content)
    return "" if content is None else content


def _request_view(body: dict[str, Any]) -> dict[str, Any]:
    messages = body["messages"]
    return {
        "system": "\n\n".join(m["content"] for m in messages if m["role"] == "system"),
        "messages": [
            {k: (_text(v) if k == "content" else v) for k, v in m.items() if k in ("role", "content", "tool_calls", "tool_call_id")}
            for m in messages
            if m["role"] != "system"
        ],
        "tools": [t["function"]["name"] for t in body.get("tools", [])],
    }


def _replayed(session: Path) -> tuple[dict[str, str], list[str], list[dict[str, Any]]]:
    """Pi 1.6's context of the file as the run left it, its system messages replayed as pi-ai
    does (sections patched by name, tools added and removed): (sections, tool names, the last
    system message)."""
    code, answer = oracle.run_oracle("session-context", {"jsonl": session.read_text(encoding="utf-8")}, current=True)
    assert code == 0, answer
    sections: dict[str, str] = {}
    tools: dict[str, Any] = {}
    written = [m for m in answer["context"]["messages"] if m["role"] == "system"]
    for message in written:
        for name, text in (message.get("sections") or {}).items():
            if text is None:
                sections.pop(name, None)
            else:
                sections[name] = text
        for tool in message.get("toolsRemoved", []):
            tools.pop(tool["name"], None)
        tools.update({tool["name"]: tool for tool in message.get("toolsAdded", [])})
    return sections, list(tools), written


# Changes since the file was written, which both resume with: a context file, an appended
# prompt and a tool added on top of the restored ones.
RESUME_ARGS = ("--append-system-prompt", "Answer briefly.", "--tools", "+grep")


@pytest.mark.parametrize("leaf", ["after the compaction", "after the edits", "another way"])
def test_resumed_at_a_leaf_ours_patches_the_prompt_as_pi_16(tmp_path: Path, leaf: str) -> None:
    """Both resume the branch, restore its tools (with ``+grep``) and write one system message
    patching the sections that changed (the appended prompt, the context file; ours also every
    section in our own wording) and the tools; the request then carries what the file replays to,
    read by Pi 1.6 itself. The section names, their order and the fact sections agree with Pi's."""
    oracle.require_live_oracle(current=True)
    docs = str(oracle.current_home() / "node_modules" / "@earendil-works" / "pi-coding-agent")
    runs = []
    for runner in ("pi", "ours"):
        with ScriptedProvider([{"text": "ok"}] * 20) as provider:
            sandbox = Sandbox.create(tmp_path / runner, provider.base_url)
            (sandbox.work / "AGENTS.md").write_text("Run the tests before answering.", encoding="utf-8")
            text = _with_leaf_last(_lines(), leaf).replace(CWD_PLACEHOLDER, str(sandbox.work))
            session = sandbox.root / "session.jsonl"
            session.write_text(text.replace(DOCS_PLACEHOLDER, docs), encoding="utf-8")
            args = ("-p", "--model", OPENAI_MODEL, "--session", str(session), *RESUME_ARGS, "next")
            done = run_pi(sandbox, *args, current=True) if runner == "pi" else run_ours(sandbox, *args)
            assert done.returncode == 0, done.stderr
            body = json.dumps(provider.requests[0]["body"]).replace(json.dumps(str(sandbox.work))[1:-1], "<work>")
            sections, tools, written = _replayed(session)
            added = session.read_text(encoding="utf-8").count('"role":"system"') - text.count('"role":"system"')
            assert added == 1, runner
            runs.append((_request_view(json.loads(body)), sections, tools, written[-1]))
    (pi, pi_sections, pi_tools, pi_patch), (ours, sections, tools, patch) = runs
    assert ours["system"] == "\n\n".join(sections.values()).replace(str(tmp_path / "ours" / "work"), "<work>")
    assert list(sections) == list(pi_sections)
    for name in ("addendum", "cwd"):
        assert sections[name] == pi_sections[name].replace(str(tmp_path / "pi"), str(tmp_path / "ours"))
    assert "Run the tests before answering." in sections["project_context"]
    assert set(pi_patch["sections"]) <= set(patch["sections"])
    assert ours["tools"] == tools == pi_tools == pi["tools"]
    assert "grep" in tools
    assert {t["name"] for t in patch.get("toolsAdded", [])} == set(tools)  # our own declarations
    assert ours["messages"] == pi["messages"]


def test_session_stats_count_usage_entries_as_pi_16(tmp_path: Path) -> None:
    """``get_session_stats`` over RPC: the cache-warming ``usage`` entry is in the totals."""
    oracle.require_live_oracle(current=True)
    answers = []
    for runner in ("pi", "ours"):
        with ScriptedProvider([]) as provider:
            sandbox = Sandbox.create(tmp_path / runner, provider.base_url)
            session = sandbox.root / "session.jsonl"
            text = "\n".join(_lines()) + "\n"
            session.write_text(text.replace(CWD_PLACEHOLDER, str(sandbox.work)), encoding="utf-8")
            args = ("--mode", "rpc", "--model", OPENAI_MODEL, "--session", str(session))
            stdin = json.dumps({"id": "s", "type": "get_session_stats"}) + "\n"
            done = run_pi(sandbox, *args, stdin=stdin, current=True) if runner == "pi" else run_ours(sandbox, *args, stdin=stdin)
            (answer,) = [line for line in done.json_lines() if line.get("id") == "s"]
            answers.append(answer["data"])
    pi, ours = answers
    assert pi["tokens"]["cacheRead"] >= 50000  # the usage entry is counted
    assert ours["tokens"] == pi["tokens"]
    assert ours["cost"] == pytest.approx(pi["cost"])
