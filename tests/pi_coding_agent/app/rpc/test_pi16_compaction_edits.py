"""A manual compaction summarizes the edited context, as Pi 1.6 does.

One session file, written here line by line, holds four turns and two ``context_edit``
entries: one hides the second question, one replaces the third answer. Ours and Pi 1.6's CLI
(``pi-cli-current``) each resume a copy against the same scripted provider on 127.0.0.1 and
compact it through RPC. Both summary requests must carry the same conversation: the hidden
question left out, the replaced answer in its replacement words, the original words nowhere;
and the compaction results (kept entry, ``tokensBefore``) and the context after it must match.
The summary prompt's instructions are our own words (docs/pi-1.6/tools-and-compaction.md), so
only the ``<conversation>`` part of the request is compared.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.app.rpc._support import (
    MODEL_ARGS,
    first_difference,
    make_sandbox,
    normalize,
    our_pi,
    pi_cli,
    without_pending_elsewhere,
)
from tests.pi_coding_agent.app.rpc.python_driver import run_scenario
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider

SETTINGS: dict[str, Any] = {
    "retry": {"enabled": False},
    "compaction": {"enabled": False, "keepRecentTokens": 8},
}
SUMMARY = "Summary of the edited talk."
HIDDEN = "HIDDEN-QUESTION about the launch codes"
ORIGINAL = "ORIGINAL-ANSWER " + "with many words " * 40
REPLACEMENT = "REPLACED answer, short"


def _user(text: str, at: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": at}


def _assistant(text: str, at: int, tokens: int) -> dict[str, Any]:
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "openai-completions",
        "provider": "scripted-openai",
        "model": "scripted-model",
        "usage": {
            "input": tokens,
            "output": 10,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": tokens + 10,
            "cost": zero,
        },
        "stopReason": "stop",
        "timestamp": at,
    }


def _session_lines(cwd: Path) -> list[dict[str, Any]]:
    """Turns 1-4; edits (after turn 3) hide question 2 and replace answer 3; turn 4 answers
    after the edits, so its usage stands for the edited context in both Pis."""
    stamp = "2026-12-01T10:00:0{}.000Z"
    messages = [
        ("u1", _user("First question", 1)),
        ("a1", _assistant("First answer", 2, 100)),
        ("u2", _user(HIDDEN, 3)),
        ("a2", _assistant("Second answer", 4, 120)),
        ("u3", _user("Third question", 5)),
        ("a3", _assistant(ORIGINAL, 6, 300)),
    ]
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "edit-session", "timestamp": stamp.format(0), "cwd": str(cwd)}
    ]
    parent = None
    for entry_id, message in messages:
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": stamp.format(1),
                "message": message,
            }
        )
        parent = entry_id
    lines.append(
        {
            "type": "context_edit",
            "id": "e1",
            "parentId": parent,
            "timestamp": stamp.format(2),
            "targetId": "u2",
            "replacement": None,
        }
    )
    lines.append(
        {
            "type": "context_edit",
            "id": "e2",
            "parentId": "e1",
            "timestamp": stamp.format(3),
            "targetId": "a3",
            "replacement": {"content": [{"type": "text", "text": REPLACEMENT}]},
        }
    )
    lines.append(
        {
            "type": "message",
            "id": "u4",
            "parentId": "e2",
            "timestamp": stamp.format(4),
            "message": _user("Fourth question", 7),
        }
    )
    lines.append(
        {
            "type": "message",
            "id": "a4",
            "parentId": "u4",
            "timestamp": stamp.format(5),
            "message": _assistant("Fourth answer", 8, 200),
        }
    )
    return lines


STEPS: list[dict[str, Any]] = [{"call": "compact"}, {"call": "getMessages"}]

_CONVERSATION = re.compile(r"<conversation>\n?(.*?)\n?</conversation>|# Conversation\n(.*?)\n\n# Instructions", re.S)
"""The transcript inside a full summary's prompt, or a split turn's (docs/pi-1.6/tools-and-compaction.md)."""


def _conversation(body: dict[str, Any]) -> str:
    """The transcript part of a summary request's prompt."""
    user = next(m for m in body["messages"] if m.get("role") == "user")
    content = user["content"]
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    found = _CONVERSATION.search(text)
    assert found is not None, text[:400]
    return found.group(1) if found.group(1) is not None else found.group(2)


def _run(tmp_path: Path, name: str, command: list[str]) -> tuple[dict[str, Any], list[str]]:
    with ScriptedProvider([], summary=SUMMARY) as provider:
        box = make_sandbox(tmp_path / name, provider.base_url, SETTINGS)
        session = box.root / "edited.jsonl"
        session.write_text(
            "".join(json.dumps(line) + "\n" for line in _session_lines(box.work)), encoding="utf-8"
        )
        client = RpcClient(
            command, args=[*MODEL_ARGS, "--session", str(session)], cwd=box.work, env=box.env()
        )

        async def run() -> dict[str, Any]:
            async with client:
                return await run_scenario(client, STEPS)

        log = asyncio.run(run())
        summaries = [
            _conversation(r["body"])
            for r in provider.requests
            if ScriptedProvider._is_summary_request(r["body"])
        ]
    return normalize(without_pending_elsewhere(log), box.root, pi16=True), summaries


def test_compaction_summarizes_the_edited_context_like_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    ours, our_summaries = _run(tmp_path, "ours", [str(our_pi())])
    pis, pi_summaries = _run(tmp_path, "pi16", [str(pi_cli(current=True))])
    assert our_summaries == pi_summaries, first_difference(
        [{"text": t} for t in our_summaries], [{"text": t} for t in pi_summaries]
    )
    # The cut walks back over the two edits to the third answer, inside the third turn: its
    # beginning is summarized on its own (a split turn) in both Pis.
    assert len(our_summaries) == 2
    transcript = "\n".join(our_summaries)
    assert "First question" in transcript and REPLACEMENT in transcript
    assert HIDDEN not in transcript and "ORIGINAL-ANSWER" not in transcript
    assert ours["results"] == pis["results"], first_difference(ours["results"], pis["results"])
    compacted = next(r for r in ours["results"] if r.get("call") == "compact")["result"]
    assert compacted["summary"].startswith(SUMMARY)
