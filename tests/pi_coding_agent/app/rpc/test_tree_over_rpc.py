"""Tree navigation, branch summaries and labels changed over our RPC (``navigate_tree`` and
``set_label``, our additions), then read back by the live Pi oracle: Pi must build the same
context, see the same labels, the same leaf and the same tree as our ``get_*`` answers."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.app.rpc._support import our_pi
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, oracle_context, scrub
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

SCRIPT = [
    {"text": "A first answer."},
    {"tool_calls": [{"id": "call_1", "name": "write", "arguments": {"path": "notes.txt", "content": "hi\n"}}]},
    {"text": "I wrote notes.txt."},
    {"text": "A third answer, on the new branch."},
]
SUMMARY = "## Goal\nWrite notes.txt (abandoned)."


def _shape(nodes: list[dict[str, Any]], key: str) -> list[Any]:
    """(id, label, children) of a tree, from Pi's oracle nodes (``key="id"``) or RPC nodes (``"entry"``)."""
    out = []
    pending: list[tuple[dict[str, Any], list[Any]]] = [(node, out) for node in reversed(nodes)]
    while pending:
        node, siblings = pending.pop()
        entry_id = node["id"] if key == "id" else node["entry"]["id"]
        children: list[Any] = []
        siblings.append((entry_id, node.get("label"), children))
        pending.extend((child, children) for child in reversed(node["children"]))
    return out


async def _run(box: Sandbox) -> dict[str, Any]:
    client = RpcClient([str(our_pi())], args=["--model", OPENAI_MODEL], cwd=box.work, env=box.env())
    async with client:
        await client.prompt_and_wait("A first question")
        await client.prompt_and_wait("Write notes.txt")
        first, second = await client.get_fork_messages()
        entries = (await client.get_entries())["entries"]
        answer = next(e for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant")
        navigation = await client.navigate_tree(answer["id"], summarize=True, label="before writing",
                                                custom_instructions="Be short")
        await client.set_label(first["entryId"], "start")
        await client.set_label(second["entryId"], "gone")
        await client.set_label(second["entryId"], None)
        await client.prompt_and_wait("A third question")
        state = await client.get_state()
        answers = {
            "navigation": navigation,
            "messages": await client.get_messages(),
            "tree": await client.get_tree(),
            "state": state,
            "back": await client.navigate_tree(first["entryId"]),
        }
        answers["fork"] = await client.fork(second["entryId"])
        answers["fork_state"] = await client.get_state()
        answers["fork_messages"] = await client.get_messages()
        return answers


def test_summaries_and_labels_read_the_same_by_pi(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    with ScriptedProvider(SCRIPT, summary=SUMMARY, sequential=True) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        answers = asyncio.run(_run(box))
    navigation = answers["navigation"]
    assert navigation["cancelled"] is False and "summaryEntryId" in navigation and "editorText" not in navigation
    assert answers["back"]["editorText"] == "A first question"

    session_file = Path(answers["state"]["sessionFile"])
    fork_file = Path(answers["fork_state"]["sessionFile"])
    with ThreadPoolExecutor(max_workers=2) as pool:  # two oracle processes side by side
        pi, forked = pool.map(oracle_context, [session_file, fork_file])
    # Pi builds the same context from the file as we did over RPC (before navigating back).
    assert navigation["summaryEntryId"] in pi["contextEntryIds"]
    roles = [m["role"] for m in pi["context"]["messages"]]
    assert roles == ["system", "user", "assistant", "branchSummary", "user", "assistant"]
    ours = scrub(answers["messages"], {})
    assert scrub(pi["context"]["messages"], {}) == ours
    summary = pi["context"]["messages"][3]
    assert summary["summary"].endswith(f"{SUMMARY}\n\n<modified-files>\nnotes.txt\n</modified-files>")
    entries = {e["id"]: e for e in pi["entries"]}
    summary_entry = entries[navigation["summaryEntryId"]]
    assert summary_entry["details"] == {"readFiles": [], "modifiedFiles": ["notes.txt"]}
    assert summary_entry["fromHook"] is False and summary_entry["usage"]["totalTokens"] == 15
    # Same tree and labels, and the same leaf as ours when the file was last written.
    assert _shape(pi["tree"], "id") == _shape(answers["tree"]["tree"], "entry")
    labels = {entry_id: label for entry_id, label, _ in _flatten(_shape(pi["tree"], "id")) if label}
    assert sorted(labels.values()) == ["before writing", "start"]
    assert pi["leafId"] == answers["tree"]["leafId"]

    assert forked["header"]["parentSession"] == str(session_file)
    assert scrub(forked["context"]["messages"], {}) == scrub(answers["fork_messages"], {})
    assert [m["role"] for m in forked["context"]["messages"]] == ["system", "user", "assistant"]


def _flatten(shape: list[Any]) -> list[Any]:
    out, pending = [], list(shape)
    while pending:
        node = pending.pop()
        out.append(node)
        pending.extend(node[2])
    return out
