"""What the conformance-case generators (``tools/gen_adapter_cases.py``,
``tools/gen_responses_google_cases.py``) share: recording a case with the live oracle, the
command-line loop, and the message and tool builders both write their inputs with.

A case is an input ``tests/conformance/cases/<subcommand>/NAME.json`` and the real Pi's answer
``NAME.out.json``, always produced by running the oracle, never edited by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tests.support.oracle import REPO, run_oracle

CASES = REPO / "tests" / "conformance" / "cases"

Case = tuple[str, str, dict[str, Any]]
"""(oracle subcommand, case name, input)."""


def record(subcommand: str, name: str, request: dict[str, Any]) -> int:
    """Run the oracle on ``request`` and write the input and Pi's answer; the oracle's exit code."""
    code, answer = run_oracle(subcommand, request)
    folder = CASES / subcommand
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(request, indent=2, ensure_ascii=False) + "\n")
    (folder / f"{name}.out.json").write_text(json.dumps(answer, indent=2, ensure_ascii=False) + "\n")
    return code


def record_all(cases: Iterable[Case], argv: list[str]) -> int:
    """A generator's ``main``: record every case whose name contains ``argv[0]`` (all without it)."""
    wanted = argv[0] if argv else ""
    for subcommand, name, request in cases:
        if wanted in name:
            code = record(subcommand, name, request)
            print(f"{subcommand}/{name}: exit {code}")
    return 0


BASH = {
    "name": "bash",
    "description": "Execute a bash command in the current working directory. Returns stdout and stderr.",
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "Bash command to execute"},
            "timeout": {"type": "number", "description": "Timeout in seconds (optional)"},
        },
        "required": ["command"],
    },
}


def user(content: Any, ts: int = 1760000000000) -> dict[str, Any]:
    return {"role": "user", "content": content, "timestamp": ts}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def call(call_id: str, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments, **extra}
