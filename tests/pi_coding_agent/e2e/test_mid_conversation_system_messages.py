"""Later system messages sent in place, by ours and by Pi 1.6, for a model whose models.json compat
says it takes them (``supportsMidConvoSystemMessages``, ``supportsMidConvoToolAdditions``).

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

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Completed, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

_UPDATE = re.compile(r'^(Updated|Removed) system prompt section "([^"]+)"', re.MULTILINE)
_COMPAT = {"supportsMidConvoSystemMessages": True, "supportsMidConvoToolAdditions": True}


def _with_mid_conversation_compat(sandbox: Sandbox) -> None:
    path = sandbox.agent_dir / "models.json"
    models = json.loads(path.read_text(encoding="utf-8"))
    models["providers"]["scripted-openai"]["compat"].update(_COMPAT)
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


def _three_runs(sandbox: Sandbox, run: Any, session: Path, **kw: Any) -> None:
    args = ("-p", "--session", str(session), "--model", OPENAI_MODEL)
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
