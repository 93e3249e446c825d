"""Later system messages sent in place, by ours and by Pi 1.6, for a model whose models.json compat
says it takes them (``supportsMidConvoSystemMessages``, ``supportsMidConvoToolAdditions``), and for
an Anthropic model that also takes tool changes (``supportsMidConvoToolChanges``).

Each CLI runs its own session against the scripted provider: a first prompt, a resume with
``--append-system-prompt`` (a section patch), a resume that also adds ``grep`` (a tool addition).
The request bodies must have the same shape: the first system message is the whole prompt,
later ones stand where they were written, as the update text Pi 1.6 renders, new tools as a
``{"role": "system", "tools": [...]}`` message before it. The prompt's own words differ (ours
are our own), so the leading prompt, the updated sections and the tools are compared by name,
and the patch of the appended prompt (a fact) word for word.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import (
    ANTHROPIC_MODEL,
    OPENAI_MODEL,
    Completed,
    Sandbox,
    run_ours,
    run_pi,
)
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

_UPDATE = re.compile(r'^(Updated|Removed) system prompt section "([^"]+)"', re.MULTILINE)
_COMPAT = {"supportsMidConvoSystemMessages": True, "supportsMidConvoToolAdditions": True}


_ANTHROPIC_COMPAT = {"supportsMidConvoSystemMessages": True, "supportsMidConvoToolChanges": True}


def _with_mid_conversation_compat(sandbox: Sandbox, provider: str = "scripted-openai", compat: Any = None) -> None:
    path = sandbox.agent_dir / "models.json"
    models = json.loads(path.read_text(encoding="utf-8"))
    models["providers"][provider].setdefault("compat", {}).update(compat or _COMPAT)
    path.write_text(json.dumps(models), encoding="utf-8")


def _shape(body: dict[str, Any]) -> list[Any]:
    """The messages with the leading prompt reduced to a marker and tool lists to their names."""
    shaped: list[Any] = []
    for index, message in enumerate(body["messages"]):
        if "tools" in message:
            shaped.append(
                {"role": message["role"], "tools": [t["function"]["name"] for t in message["tools"]]}
            )
        elif index == 0 and message["role"] in ("system", "developer"):
            shaped.append({"role": message["role"], "content": "<the prompt>"})
        elif message["role"] in ("system", "developer"):
            shaped.append({"role": message["role"], "updates": _UPDATE.findall(message["content"])})
        else:
            shaped.append({"role": message["role"], "content": _text(message.get("content"))})
    return shaped


def _text(content: Any) -> Any:
    """Pi 1.6 sends user text as blocks; the text is what is compared."""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content


def _three_runs(sandbox: Sandbox, run: Any, session: Path, model: str = OPENAI_MODEL, **kw: Any) -> None:
    args = ("-p", "--session", str(session), "--model", model)
    runs: list[Completed] = [
        run(sandbox, *args, "first", **kw),
        run(sandbox, *args, "--append-system-prompt", "Be brief.", "second", **kw),
        run(sandbox, *args, "--append-system-prompt", "Be brief.", "--tools", "+grep", "third", **kw),
    ]
    for done in runs:
        assert done.returncode == 0, done.stderr


def test_later_system_messages_go_in_place_as_pi_16_sends_them(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    with ScriptedProvider([{"text": "ok"}] * 6) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        _with_mid_conversation_compat(sandbox)
        _three_runs(sandbox, run_ours, sandbox.root / "ours.jsonl")
        _three_runs(sandbox, run_pi, sandbox.root / "pi.jsonl", current=True)
        ours = [request["body"] for request in provider.requests[:3]]
        pi = [request["body"] for request in provider.requests[3:6]]

    assert [_shape(body) for body in ours] == [_shape(body) for body in pi]
    third = _shape(ours[2])
    assert third[3] == {"role": "system", "updates": [("Updated", "addendum")]}
    assert third[6:8] == [
        {"role": "system", "tools": ["grep"]},
        {"role": "system", "updates": [("Updated", "tools"), ("Updated", "rules")]},
    ]
    # A patch of a section whose text is a fact (the appended prompt) is sent word for word alike.
    assert ours[2]["messages"][3] == pi[2]["messages"][3]
    # The request's own tool list keeps the tools declared first; grep is declared in place only.
    assert [t["function"]["name"] for t in ours[2]["tools"]] == [
        t["function"]["name"] for t in pi[2]["tools"]
    ]
    assert "grep" not in [t["function"]["name"] for t in ours[2]["tools"]]
    # The leading prompt is the whole first declaration, in each one's own words.
    assert ours[2]["messages"][0] == ours[0]["messages"][0]
    assert pi[2]["messages"][0] == pi[0]["messages"][0]


def _anthropic_shape(body: dict[str, Any]) -> list[Any]:
    """Anthropic's messages with system messages as their update names and tool changes."""
    shaped: list[Any] = []
    for message in body["messages"]:
        if message["role"] != "system":
            shaped.append({"role": message["role"], "content": _text(message["content"])})
            continue
        blocks: list[Any] = []
        for block in message["content"]:
            if block["type"] == "text":
                blocks.append(_UPDATE.findall(block["text"]))
            elif block["type"] == "tool_addition":
                blocks.append(("tool_addition", block["tool"]["definition"]["name"]))
            else:
                blocks.append((block["type"], block["tool"]["name"]))
        shaped.append({"role": "system", "blocks": blocks})
    return shaped


def test_anthropic_takes_system_messages_and_tool_changes_in_place_as_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    with ScriptedProvider([{"text": "ok"}] * 6) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        _with_mid_conversation_compat(sandbox, "scripted-anthropic", _ANTHROPIC_COMPAT)
        _three_runs(sandbox, run_ours, sandbox.root / "ours.jsonl", ANTHROPIC_MODEL)
        _three_runs(sandbox, run_pi, sandbox.root / "pi.jsonl", ANTHROPIC_MODEL, current=True)
        ours = provider.requests[:3]
        pi = provider.requests[3:6]

    assert [_anthropic_shape(r["body"]) for r in ours] == [_anthropic_shape(r["body"]) for r in pi]
    third = _anthropic_shape(ours[2]["body"])
    # The update before the second prompt waits for the next answer; the third run's update (its
    # sections and grep, declared by value) closes the request.
    assert third[3] == {"role": "system", "blocks": [[("Updated", "addendum")]]}
    assert third[-1] == {
        "role": "system",
        "blocks": [[("Updated", "tools"), ("Updated", "rules")], ("tool_addition", "grep")],
    }
    # A patch of a section whose text is a fact (the appended prompt) is sent word for word alike.
    assert ours[2]["body"]["messages"][3] == pi[2]["body"]["messages"][3]
    # The request's tool list stays the first declaration plus Pi 1.6's deferred placeholder.
    for request in (*ours, *pi):
        names = [tool["name"] for tool in request["body"]["tools"]]
        assert "grep" not in names and names[-1] == "__pi_deferred_placeholder__"
        assert "inline-tools-2026-09-15" in request["headers"]["anthropic-beta"]
    assert [t["name"] for t in ours[2]["body"]["tools"]] == [t["name"] for t in pi[2]["body"]["tools"]]
    # The prompt is the first declaration, in each one's own words, and stays the same.
    assert ours[2]["body"]["system"] == ours[0]["body"]["system"]
    assert pi[2]["body"]["system"] == pi[0]["body"]["system"]
