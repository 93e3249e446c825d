#!/usr/bin/env python3
"""Regenerate our own session-context / session-migrate / convert-to-llm oracle cases.

    .venv/bin/python -m tests.pi_coding_agent.core.session.gen_cases [NAME-PART ...]

Each input below is written to ``tests/conformance/cases/<sub>/NAME.json`` and the live
oracle's answer (the real Pi 0.85) to ``NAME.out.json``. Never edit an answer by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.support.oracle import REPO, oracle_dir

CASES = REPO / "tests" / "conformance" / "cases"
H3 = {
    "type": "session",
    "version": 3,
    "id": "019a0000-0000-7000-8000-00000000000a",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "cwd": "/home/dev/project",
}
USAGE = {
    "input": 10,
    "output": 2,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 12,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def ts(second: int) -> str:
    return f"2026-01-01T00:{second // 60:02d}:{second % 60:02d}.000Z"


def msg(entry_id: str, parent: str | None, second: int, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": ts(second),
        "message": message,
    }


def u(text: str, stamp: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": stamp}


def a(text: str, stamp: int, provider: str = "anthropic", model: str = "claude-sonnet-4-5") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "anthropic-messages",
        "provider": provider,
        "model": model,
        "usage": USAGE,
        "stopReason": "stop",
        "timestamp": stamp,
    }


def entry(kind: str, entry_id: str, parent: str | None, second: int, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": ts(second), **fields}


def jsonl(rows: list[Any]) -> str:
    return "".join(
        (row if isinstance(row, str) else json.dumps(row, separators=(",", ":"), ensure_ascii=False)) + "\n"
        for row in rows
    )


def session_context_cases() -> dict[str, dict[str, Any]]:
    linear = [
        H3,
        msg("m1", None, 1, u("one", 1)),
        msg("m2", "m1", 2, a("two", 2)),
        msg("m3", "m2", 3, u("three", 3)),
        msg("m4", "m3", 4, a("four", 4, "openai", "gpt-5")),
    ]
    cases: dict[str, dict[str, Any]] = {}
    cases["older_compaction_inside_kept_range"] = {
        "jsonl": jsonl(
            [
                *linear,
                entry("compaction", "c1", "m4", 5, summary="first", firstKeptEntryId="m3", tokensBefore=100),
                msg("m5", "c1", 6, u("five", 6)),
                msg("m6", "m5", 7, a("six", 7)),
                entry(
                    "compaction",
                    "c2",
                    "m6",
                    8,
                    summary="second",
                    firstKeptEntryId="m4",
                    tokensBefore=200,
                    details={"readFiles": ["a"], "modifiedFiles": []},
                    usage=USAGE,
                    fromHook=False,
                ),
                msg("m7", "c2", 9, u("seven", 9)),
            ]
        )
    }
    cases["compaction_without_first_kept"] = {
        "jsonl": jsonl(
            [
                *linear,
                entry(
                    "compaction",
                    "c1",
                    "m4",
                    5,
                    summary="s",
                    tokensBefore=1,
                    fromHook=True,
                    details={"any": 1},
                ),
                msg("m5", "c1", 6, u("after", 6)),
            ]
        )
    }
    cases["compaction_first_kept_not_on_path"] = {
        "jsonl": jsonl(
            [
                *linear,
                entry("compaction", "c1", "m4", 5, summary="s", firstKeptEntryId="nowhere", tokensBefore=1),
                entry("thinking_level_change", "t1", "c1", 6, thinkingLevel="xhigh"),
            ]
        )
    }
    cases["labels_set_clear_last_wins"] = {
        "jsonl": jsonl(
            [
                *linear,
                entry("label", "l1", "m4", 5, targetId="m1", label="a"),
                entry("label", "l2", "l1", 6, targetId="m1", label="b"),
                entry("label", "l3", "l2", 7, targetId="m2", label="x"),
                entry("label", "l4", "l3", 8, targetId="m2"),
                entry("label", "l5", "l4", 9, targetId="m3", label="keep"),
                entry("label", "l6", "l5", 10, targetId="m3", label=""),
                entry("label", "l7", "l6", 11, targetId="m4", label="last"),
            ]
        )
    }
    cases["session_info_latest_and_cleared"] = {
        "jsonl": jsonl(
            [
                *linear,
                entry("session_info", "s1", "m4", 5, name="Named"),
                entry("session_info", "s2", "m2", 6, name="  "),
            ]
        )
    }
    cases["session_info_other_branch_wins"] = {
        "jsonl": jsonl(
            [
                *linear,
                entry("session_info", "s1", "m4", 5, name="Main"),
                entry("session_info", "s2", "m2", 6, name=" Side "),
            ]
        ),
        "leafId": "m4",
    }
    cases["custom_entries_and_messages"] = {
        "jsonl": jsonl(
            [
                *linear,
                {
                    "type": "custom",
                    "customType": "state",
                    "data": {"n": 1},
                    "id": "x1",
                    "parentId": "m4",
                    "timestamp": ts(5),
                },
                {"type": "custom", "customType": "nodata", "id": "x2", "parentId": "x1", "timestamp": ts(6)},
                {
                    "type": "custom_message",
                    "customType": "ext",
                    "content": [
                        {"type": "text", "text": "t"},
                        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                    ],
                    "display": False,
                    "id": "x3",
                    "parentId": "x2",
                    "timestamp": ts(7),
                },
                {
                    "type": "custom_message",
                    "customType": "ext",
                    "content": None,
                    "display": True,
                    "details": {"d": 2},
                    "id": "x4",
                    "parentId": "x3",
                    "timestamp": ts(8),
                },
            ]
        )
    }
    cases["branch_summaries_empty_and_root"] = {
        "jsonl": jsonl(
            [
                *linear,
                entry(
                    "branch_summary",
                    "b1",
                    "m2",
                    5,
                    fromId="m4",
                    summary="went away",
                    details={"f": 1},
                    fromHook=False,
                ),
                entry("branch_summary", "b2", "b1", 6, fromId="b1", summary=""),
                entry("branch_summary", "b3", None, 7, fromId="b2", summary="from root"),
            ]
        )
    }
    cases["multiple_roots_after_reset"] = {
        "jsonl": jsonl(
            [
                *linear,
                msg("r2", None, 5, u("new root", 5)),
                msg("r3", "r2", 6, a("reply", 6)),
            ]
        )
    }
    cases["multiple_roots_leaf_on_first"] = {**cases["multiple_roots_after_reset"], "leafId": "m2"}
    cases["orphans_and_self_parent"] = {
        "jsonl": jsonl(
            [
                *linear,
                msg("o1", "gone", 5, u("orphan", 5)),
                msg("o2", "o1", 6, a("orphan child", 6)),
                msg("o3", "o3", 7, u("self", 7)),
                msg("o4", "m4", 8, u("back on main", 8)),
            ]
        ),
        "leafId": "o2",
    }
    cases["leaf_reset_to_null"] = {"jsonl": jsonl(linear), "leafId": None}
    cases["leaf_moved_to_middle"] = {"jsonl": jsonl(linear), "leafId": "m2"}
    cases["v2_hook_message_context"] = {
        "jsonl": jsonl(
            [
                {**H3, "version": 2},
                msg("m1", None, 1, u("hi", 1)),
                msg(
                    "m2",
                    "m1",
                    2,
                    {
                        "role": "hookMessage",
                        "customType": "git",
                        "content": "clean",
                        "display": True,
                        "details": {"b": "main"},
                        "timestamp": 2,
                    },
                ),
                msg("m3", "m2", 3, a("ok", 3)),
            ]
        )
    }
    cases["malformed_lines_and_torn_tail"] = {
        "jsonl": jsonl(
            [
                H3,
                msg("m1", None, 1, u("one", 1)),
                "{broken",
                "",
                "   ",
                "null",
                msg("m2", "m1", 2, a("two", 2)),
            ]
        )
        + '{"type":"message","id":"m3","parentId":"m2","timestamp":"x","message":{"role":"us'
    }
    cases["complete_last_line_without_newline"] = {
        "jsonl": jsonl([H3, msg("m1", None, 1, u("one", 1))])
        + json.dumps(msg("m2", "m1", 2, a("two", 2)), separators=(",", ":"))
    }
    cases["null_and_missing_content"] = {
        "jsonl": jsonl(
            [
                H3,
                msg("m1", None, 1, {"role": "user", "content": None, "timestamp": 1}),
                msg(
                    "m2",
                    "m1",
                    2,
                    {
                        "role": "assistant",
                        "api": "x",
                        "provider": "p",
                        "model": "m",
                        "usage": USAGE,
                        "stopReason": "stop",
                        "timestamp": 2,
                    },
                ),
                msg(
                    "m3",
                    "m2",
                    3,
                    {
                        "role": "toolResult",
                        "toolCallId": "c",
                        "toolName": "t",
                        "content": None,
                        "isError": True,
                        "timestamp": 3,
                    },
                ),
            ]
        )
    }
    cases["unknown_entry_type_and_extra_keys"] = {
        "jsonl": jsonl(
            [
                H3,
                msg("m1", None, 1, {**u("one", 1), "extraKey": {"kept": True}}),
                {**entry("future_entry", "f1", "m1", 2, payload=[1, 2]), "more": "x"},
                {
                    **entry("compaction", "c1", "f1", 3, summary="s", firstKeptEntryId="m1", tokensBefore=5),
                    "retainedTail": [u("tail", 9)],
                },
                {**msg("m2", "c1", 4, a("two", 4)), "entryExtra": 1},
            ]
        )
    }
    cases["bash_and_thinking_changes"] = {
        "jsonl": jsonl(
            [
                H3,
                entry("model_change", "mc", None, 1, provider="google", modelId="gemini-2.5-pro"),
                entry("thinking_level_change", "t1", "mc", 2, thinkingLevel="low"),
                msg("m1", "t1", 3, u("run it", 3)),
                msg(
                    "b1",
                    "m1",
                    4,
                    {
                        "role": "bashExecution",
                        "command": "ls",
                        "output": "a\nb",
                        "exitCode": 0,
                        "cancelled": False,
                        "truncated": False,
                        "timestamp": 4,
                        "excludeFromContext": True,
                    },
                ),
                msg(
                    "b2",
                    "b1",
                    5,
                    {
                        "role": "bashExecution",
                        "command": "sleep 9",
                        "output": "",
                        "cancelled": True,
                        "truncated": False,
                        "timestamp": 5,
                    },
                ),
                entry("thinking_level_change", "t2", "b2", 6, thinkingLevel="max"),
            ]
        )
    }
    cases["duplicate_ids_last_wins"] = {
        "jsonl": jsonl(
            [
                *linear,
                msg("m2", "m1", 5, a("second two", 5)),
                msg("m5", "m2", 6, u("five", 6)),
            ]
        )
    }
    cases["header_after_garbage_and_second_header"] = {
        "jsonl": jsonl(
            [
                "garbage",
                "",
                H3,
                msg("m1", None, 1, u("one", 1)),
                {**H3, "id": "other"},
                msg("m2", "m1", 2, a("two", 2)),
            ]
        )
    }
    cases["falsy_first_line_then_header"] = {"jsonl": jsonl(["0", H3, msg("m1", None, 1, u("one", 1))])}
    cases["lenient_messages_last_writers_without_fields"] = {
        "jsonl": jsonl(
            [
                H3,
                msg("m1", None, 1, u("hi", 1)),
                msg("m2", "m1", 2, {**a("old usage", 2), "usage": {"input": 3, "output": 4}}),
                entry("thinking_level_change", "t1", "m2", 3, thinkingLevel="high"),
                msg("m3", "t1", 4, {"role": "bashExecution", "command": "ls", "output": "", "timestamp": 4}),
                msg("m4", "m3", 5, {"role": "custom", "customType": "x", "content": "c", "timestamp": 5}),
                msg(
                    "m5",
                    "m4",
                    6,
                    {k: v for k, v in a("no api", 6).items() if k != "api"} | {"stopReason": "injected"},
                ),
                entry("model_change", "c1", "m5", 7, provider="openai"),
                entry("thinking_level_change", "t2", "c1", 8),
            ]
        )
    }
    cases["entry_without_id_is_the_leaf"] = {
        "jsonl": jsonl(
            [
                H3,
                msg("m1", None, 1, u("hi", 1)),
                msg("m2", "m1", 2, a("there", 2)),
                {"type": "message", "message": u("no id, no parent", 3)},
            ]
        )
    }
    cases["header_missing_cwd"] = {
        "jsonl": jsonl([{k: v for k, v in H3.items() if k != "cwd"}, msg("m1", None, 1, u("one", 1))])
    }
    # An empty file gets a fresh header (new id and time): not comparable, tested in test_manager.
    return cases


def session_migrate_cases() -> dict[str, dict[str, Any]]:
    v1 = {"type": "session", "id": "legacy", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/old"}
    return {
        "v1_compaction_index_points_forward": {
            "jsonl": jsonl(
                [
                    v1,
                    {
                        "type": "compaction",
                        "timestamp": ts(1),
                        "summary": "s",
                        "firstKeptEntryIndex": 3,
                        "tokensBefore": 1,
                    },
                    {"type": "message", "timestamp": ts(2), "message": u("a", 2)},
                    {"type": "message", "timestamp": ts(3), "message": u("b", 3)},
                ]
            )
        },
        "v1_compaction_index_at_header": {
            "jsonl": jsonl(
                [
                    v1,
                    {"type": "message", "timestamp": ts(1), "message": u("a", 1)},
                    {
                        "type": "compaction",
                        "timestamp": ts(2),
                        "summary": "s",
                        "firstKeptEntryIndex": 0,
                        "tokensBefore": 1,
                    },
                ]
            )
        },
        "v1_with_malformed_lines": {
            "jsonl": jsonl(
                [
                    v1,
                    "{oops",
                    {"type": "message", "timestamp": ts(1), "message": u("a", 1)},
                    "",
                    {
                        "type": "compaction",
                        "timestamp": ts(2),
                        "summary": "s",
                        "firstKeptEntryIndex": 1,
                        "tokensBefore": 1,
                    },
                    {
                        "type": "message",
                        "timestamp": ts(3),
                        "message": {
                            "role": "hookMessage",
                            "customType": "h",
                            "content": "c",
                            "display": True,
                            "timestamp": 3,
                        },
                    },
                ]
            )
        },
        "v2_nested_hook_roles": {
            "jsonl": jsonl(
                [
                    {**v1, "version": 2},
                    msg("a1", None, 1, u("x", 1)),
                    msg(
                        "a2",
                        "a1",
                        2,
                        {
                            "role": "hookMessage",
                            "customType": "h",
                            "content": [{"type": "text", "text": "t"}],
                            "display": False,
                            "details": {"role": "hookMessage"},
                            "timestamp": 2,
                        },
                    ),
                    entry("custom", "a3", "a2", 3, customType="hookMessage", data={"role": "hookMessage"}),
                ]
            )
        },
        "v1_unicode_and_escapes": {
            "jsonl": jsonl(
                [
                    v1,
                    {
                        "type": "message",
                        "timestamp": ts(1),
                        "message": u('héllo \u2028 \u2029 \t "q" \\ 你好 🎉', 1),
                    },
                ]
            )
        },
        "no_header": {"jsonl": jsonl([{"type": "message", "timestamp": ts(1), "message": u("a", 1)}])},
    }


def convert_cases() -> dict[str, Any]:
    return {
        "custom_variants": [
            {"role": "custom", "customType": "a", "content": "", "display": True, "timestamp": 1},
            {"role": "custom", "customType": "b", "content": [], "display": False, "timestamp": 2},
            {
                "role": "custom",
                "customType": "c",
                "content": [{"type": "image", "data": "AA==", "mimeType": "image/jpeg"}],
                "display": True,
                "details": None,
                "timestamp": 3,
            },
        ],
        "bash_edge_cases": [
            {
                "role": "bashExecution",
                "command": "a`b",
                "output": "x\n",
                "exitCode": -1,
                "cancelled": False,
                "truncated": True,
                "timestamp": 1,
            },
            {
                "role": "bashExecution",
                "command": "",
                "output": "",
                "exitCode": 0,
                "cancelled": False,
                "truncated": True,
                "fullOutputPath": "/tmp/full.log",
                "timestamp": 2,
                "excludeFromContext": False,
            },
            {
                "role": "bashExecution",
                "command": "c",
                "output": "o",
                "cancelled": True,
                "truncated": True,
                "fullOutputPath": "/f",
                "timestamp": 3,
            },
        ],
        "lenient_messages_and_roleless_items": [
            {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 2, "timestamp": 1},
            {"role": "custom", "customType": "n", "content": "hidden?", "timestamp": 2},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "injected"}],
                "provider": "p",
                "model": "m",
                "stopReason": "injected",
                "timestamp": 3,
            },
            {"role": "user", "content": "no timestamp"},
            {
                "role": "toolResult",
                "toolCallId": "c",
                "toolName": "t",
                "content": [],
                "isError": None,
                "timestamp": 5,
            },
            {"role": {}, "content": "object role", "timestamp": 6},
            {"role": [], "content": "array role", "timestamp": 7},
            {"content": "no role", "timestamp": 8},
            {"role": "robot", "content": "unknown role", "timestamp": 9},
            {"role": "bashExecution", "command": "x", "output": "", "cancelled": None, "timestamp": 10},
        ],
        "summaries_with_empty_text": [
            {"role": "branchSummary", "summary": "", "fromId": "root", "timestamp": 1},
            {"role": "compactionSummary", "summary": "", "tokensBefore": 0, "timestamp": 2},
            {
                "role": "user",
                "content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}],
                "timestamp": 3,
            },
        ],
    }


def main(argv: list[str]) -> None:
    """Record every case, or (with arguments) those whose names contain one of them."""
    folder = oracle_dir()
    assert folder is not None, "the oracle is needed to answer the cases"
    groups = {
        "session-context": session_context_cases(),
        "session-migrate": session_migrate_cases(),
        "convert-to-llm": convert_cases(),
    }
    for sub, cases in groups.items():
        (CASES / sub).mkdir(parents=True, exist_ok=True)
        for name, request in cases.items():
            if argv and not any(word in name for word in argv):
                continue
            done = subprocess.run(
                [str(folder / "oracle"), sub],
                input=json.dumps(request).encode(),
                capture_output=True,
                check=False,
            )
            if done.returncode > 1:
                raise RuntimeError(f"{sub}/{name}: {done.stderr.decode()}")
            (CASES / sub / f"{name}.json").write_text(
                json.dumps(request, indent=2, ensure_ascii=False) + "\n"
            )
            (CASES / sub / f"{name}.out.json").write_bytes(done.stdout)
            print(sub, name, done.returncode)


if __name__ == "__main__":
    main(sys.argv[1:])
