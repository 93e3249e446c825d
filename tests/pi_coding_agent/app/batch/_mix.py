"""The task mix of the scale tests: answers, tool calls, repository edits, failures, timeouts
and budgets, each with the result it must end with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.app.batch._support import MODEL, Scripts


@dataclass
class Expected:
    status: str
    answer: str | None
    turns: int
    tool_calls: int
    diff_has: str | None = None


def build_mix(count: int, work: Path, repo: Path, scripts: Scripts) -> tuple[list[dict[str, Any]], dict[str, Expected]]:
    """Tasks (their scripts added to ``scripts``), and what each must end with."""
    tasks: list[dict[str, Any]] = []
    expected: dict[str, Expected] = {}
    for index in range(count):
        task_id = f"t{index:04d}"
        kind = index % 10
        task: dict[str, Any] = {"id": task_id, "prompt": f"[task:{task_id}] work", "model": MODEL}
        if kind in (0, 1, 2, 3):
            scripts.by_task[task_id] = [{"text": f"answer {index}"}]
            expected[task_id] = Expected("ok", f"answer {index}", 1, 0)
        elif kind == 4:
            call = {"id": "call_r", "name": "read", "arguments": {"path": "shared.txt"}}
            scripts.by_task[task_id] = [{"tool_calls": [call]}, {"text": f"read {index}"}]
            expected[task_id] = Expected("ok", f"read {index}", 2, 1)
        elif kind == 5:
            call = {"id": "call_b", "name": "bash", "arguments": {"command": f"echo {index}"}}
            scripts.by_task[task_id] = [{"tool_calls": [call]}, {"text": f"ran {index}"}]
            expected[task_id] = Expected("ok", f"ran {index}", 2, 1)
        elif kind == 6:
            call = {"id": "call_w", "name": "write", "arguments": {"path": f"out/{task_id}.txt", "content": f"{index}\n"}}
            scripts.by_task[task_id] = [{"tool_calls": [call]}, {"text": f"wrote {index}"}]
            task["repo"] = str(repo)
            expected[task_id] = Expected("ok", f"wrote {index}", 2, 1, diff_has=f"+++ b/out/{task_id}.txt\n@@ -0,0 +1 @@\n+{index}\n")
        elif kind == 7:
            # Enough failures for every attempt (the provider counts them per task, across runs:
            # a task cut off by a kill after its failure came back starts again and must fail again).
            failure = {"status": 500, "body": {"error": {"message": f"boom {index}"}}}
            scripts.by_task[task_id] = [{"fail": [failure] * 5, "text": "x"}]
            expected[task_id] = Expected("error", None, 1, 0)
        elif kind == 8:
            scripts.by_task[task_id] = [{"text": "this answer is far too slow to finish in time", "chunk_delay": 0.25}]
            task["timeout"] = 0.4
            expected[task_id] = Expected("timeout", None, 1, 0)
        else:
            call = {"id": "call_l", "name": "ls", "arguments": {}}
            scripts.by_task[task_id] = [{"tool_calls": [call]}, {"tool_calls": [call]}, {"text": "unreachable"}]
            task["budget"] = {"tokens": 25}
            expected[task_id] = Expected("budget", None, 3, 2)
        tasks.append(task)
    (work / "shared.txt").write_text("shared\n")
    return tasks, expected


def check_result(result: dict[str, Any], want: Expected) -> None:
    assert (result["status"], result["turns"], result["toolCalls"]) == (want.status, want.turns, want.tool_calls), result
    if want.answer is not None:
        assert result["answer"] == want.answer, result
    if want.status == "error":
        assert f"boom {int(result['id'][1:])}" in result["error"], result
    if want.diff_has is not None:
        assert want.diff_has in (result["diff"] or ""), result
    assert result["sessionFile"] and Path(result["sessionFile"]).is_file(), result
