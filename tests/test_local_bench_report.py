"""What ``bench/local_tasks.py`` prints per task: wall time and tokens (prefill, decode, cached),
read from each run's ``--mode json`` events (issue 27 item 7)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import local_tasks


def _message_end(text: str, usage: dict[str, int]) -> str:
    content = (
        [{"type": "text", "text": text}]
        if text
        else [{"type": "toolCall", "id": "c", "name": "read", "arguments": {}}]
    )
    return json.dumps(
        {"type": "message_end", "message": {"role": "assistant", "content": content, "usage": usage}}
    )


def test_usage_is_summed_over_the_turns_apart_for_prefill_decode_and_cached() -> None:
    jsonl = "\n".join(
        [
            json.dumps(
                {"type": "message_end", "message": {"role": "user", "content": "Fix it", "usage": {}}}
            ),
            _message_end("", {"input": 1371, "output": 40, "cacheRead": 0}),
            "not json",
            _message_end("Fixed add.", {"input": 120, "output": 12, "cacheRead": 1380}),
        ]
    )
    assert local_tasks._answer_and_usage(jsonl) == ("Fixed add.", 52, 1491, 1380, 2)


def test_the_table_shows_each_tasks_wall_time_and_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    outcomes = [
        local_tasks.Outcome("ours", "fix-bug", True, 41.5, 52, 1491, 1380, 2),
        local_tasks.Outcome("pi", "fix-bug", False, 63.0, 80, 2900, 0, 3),
    ]
    local_tasks._print_table(outcomes, ["ours", "pi"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["task", *["solved", "wall", "s", "prefill", "decode", "cached", "tok/s"] * 2]
    assert lines[2].split() == [
        "fix-bug",
        "yes",
        "41.5",
        "1491",
        "52",
        "1380",
        "1.3",
        "no",
        "63.0",
        "2900",
        "80",
        "0",
        "1.3",
    ]
    assert lines[3] == "ours: 1/1 solved, 42 s wall, tokens: 1491 prefill, 52 decode (1.3/s), 1380 cached"
