#!/usr/bin/env python3
"""Record ``payload`` cases for system messages inside a context, answered by both Pis.

    .venv/bin/python tools/gen_mid_convo_cases.py [NAME ...]

Each case is a transcript with a leading system message (prompt sections and tools), a later
section patch, a later tool addition and (in the ``removal`` variant) a later removal with free
content, given to a Chat Completions model with or without the compat flags
``supportsMidConvoSystemMessages`` / ``supportsMidConvoToolAdditions``. The input goes to
``tests/conformance/cases/payload/NAME.json`` with Pi 0.85's answer beside it (0.85 drops system
messages) and Pi 1.6's answer to ``tests/conformance/cases/pi-1.6/payload/NAME.out.json``, which
is the reference (``tests/conformance/test_oracle_cases.py``; docs/pi-1.6/sessions.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.oracle import run_oracle
from tests.support.pi16 import answer_path

CASES_DIR = Path(__file__).resolve().parent.parent / "tests" / "conformance" / "cases" / "payload"
_T0 = 1760000000000
_USAGE = {
    "input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}  # fmt: skip


def _tool(name: str, description: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    return {"name": name, "description": description, "parameters": schema}


def _assistant(text: str, at: int, api: str) -> dict[str, Any]:
    return {
        "role": "assistant", "content": [{"type": "text", "text": text}], "api": api,
        "provider": "midprov", "model": "mid-model", "usage": _USAGE, "stopReason": "stop", "timestamp": _T0 + at,
    }  # fmt: skip


def transcript(removal: bool, api: str = "openai-completions") -> list[dict[str, Any]]:
    """Declaration, chat, a section patch (one updated, one removed), chat, a tool addition;
    with ``removal`` also free content and a removed tool."""
    messages: list[dict[str, Any]] = [
        {
            "role": "system", "content": "",
            "sections": {"preamble": "You are a helper.", "cwd": "Current working directory: /w"},
            "toolsAdded": [_tool("read", "Read a file."), _tool("bash", "Run a command.")], "timestamp": _T0,
        },
        {"role": "user", "content": "hi", "timestamp": _T0 + 1},
        _assistant("hello", 2, api),
        {"role": "system", "content": "", "sections": {"addendum": "Be brief.", "cwd": None}, "timestamp": _T0 + 3},
        {"role": "user", "content": "next", "timestamp": _T0 + 4},
        _assistant("ok", 5, api),
        {"role": "system", "content": "", "toolsAdded": [_tool("grep", "Search files.")], "timestamp": _T0 + 6},
        {"role": "user", "content": "search", "timestamp": _T0 + 7},
    ]  # fmt: skip
    if removal:
        messages += [
            _assistant("done", 8, api),
            {
                "role": "system",
                "content": "Extra note.",
                "toolsRemoved": [{"name": "bash"}],
                "timestamp": _T0 + 9,
            },
            {"role": "user", "content": "again", "timestamp": _T0 + 10},
        ]
    return messages


def _model(compat: dict[str, Any], reasoning: bool = False, api: str = "openai-completions") -> dict[str, Any]:
    return {
        "id": "mid-model", "name": "Mid", "api": api, "provider": "midprov",
        "baseUrl": "http://127.0.0.1:9/v1", "reasoning": reasoning, "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 100000, "maxTokens": 1000, "compat": compat,
    }  # fmt: skip


_CODEX_TOKEN = (  # a ChatGPT token's shape: only its account id is read
    "eyJhbGciOiAiUlMyNTYiLCAidHlwIjogIkpXVCJ9.eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOiB7ImNoYXRncHRfYWNjb3VudF9p"
    "ZCI6ICJhY2N0LTRmMmEifSwgImV4cCI6IDE3NjAwMDM2MDB9.c2lnbmF0dXJl"
)
_MID = {"supportsMidConvoSystemMessages": True}
_ADD = {**_MID, "supportsMidConvoToolAdditions": True}
CASES: dict[str, tuple[Any, bool]] = {
    "completions_mid_convo_system_in_place": (_model(_ADD), False),
    "completions_mid_convo_system_tools_folded": (_model(_MID), False),
    "completions_mid_convo_tool_removal_folds_tools": (_model(_ADD), True),
    "completions_mid_convo_developer_role": (
        _model({**_ADD, "supportsDeveloperRole": True}, reasoning=True),
        True,
    ),
    "completions_system_messages_folded_without_compat": (_model({}), True),
    "anthropic_mid_convo_system_in_place": (_model(_MID, api="anthropic-messages"), True),
    "anthropic_mid_convo_tool_changes_in_place": (
        _model({**_MID, "supportsMidConvoToolChanges": True}, api="anthropic-messages"),
        True,
    ),
    "anthropic_mid_convo_tool_changes_additions": (
        _model({**_MID, "supportsMidConvoToolChanges": True}, api="anthropic-messages"),
        False,
    ),
    "anthropic_system_messages_folded_without_compat": (_model({}, api="anthropic-messages"), True),
    "mistral_mid_convo_system_in_place": (_model(_MID, api="mistral-conversations"), True),
    "responses_mid_convo_system_in_place": (_model(_MID, api="openai-responses"), True),
    "responses_mid_convo_additional_tools": (
        _model({**_MID, "supportsAdditionalTools": True}, reasoning=True, api="openai-responses"),
        True,
    ),
    "responses_mid_convo_tool_search": (_model({**_MID, "supportsToolSearch": True}, api="openai-responses"), True),
    "responses_system_messages_folded_without_compat": (_model({}, api="openai-responses"), True),
    "azure_mid_convo_additional_tools": (
        _model({**_MID, "supportsAdditionalTools": True}, api="azure-openai-responses"),
        True,
    ),
    "codex_mid_convo_additional_tools": (
        _model({**_MID, "supportsAdditionalTools": True}, reasoning=True, api="openai-codex-responses"),
        True,
    ),
}
"""Case name -> (model, the removal variant)."""


def main() -> None:
    only = set(sys.argv[1:])
    for name, (model, removal) in CASES.items():
        if only and name not in only:
            continue
        api = model["api"]
        request = {"api": api, "model": model, "context": {"messages": transcript(removal, api)}}
        request["options"] = {"apiKey": _CODEX_TOKEN, "transport": "sse"} if "codex" in api else {"apiKey": "k"}
        answers = {}
        for current in (False, True):
            code, answer = run_oracle("payload", request, current=current)
            assert code == 0, (name, current, answer)
            answers[current] = answer
        (CASES_DIR / f"{name}.json").write_text(json.dumps(request, indent=2) + "\n", encoding="utf-8")
        (CASES_DIR / f"{name}.out.json").write_text(
            json.dumps(answers[False], indent=2) + "\n", encoding="utf-8"
        )
        answer_path("payload", name).write_text(json.dumps(answers[True], indent=2) + "\n", encoding="utf-8")
        print(name)


if __name__ == "__main__":
    main()
