#!/usr/bin/env python3
"""Differential-testing adapter: the Python twin of ``../shared/oracle/oracle``.

    .venv/bin/python tools/conformance.py [--current] SUBCOMMAND < input.json > output.json

``--current``: the answer is to be compared with Pi 1.6's (``oracle`` run with
``PI_ORACLE_HOME`` at Pi 1.6); model references then name Pi 1.6's built-in models.

Reads the same JSON as the oracle subcommand and prints the same shape. Exit codes follow the
oracle: 0 with the result; 1 with ``{"error": {"name", "message"}}`` when the implementation
itself rejected the input (a comparable outcome); 2 for unusable input; 3 when the subcommand
is not built yet (the error message names the issue it waits for).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

# conformance_cmds, and the repository root for the test support the commands share (tests.support)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tests.support import deep_json

# subcommand -> (module under tools/conformance_cmds, issue that builds it)
SUBCOMMANDS: dict[str, tuple[str, int]] = {
    "convert-to-llm": ("conformance_cmds.convert_to_llm", 4),
    "session-context": ("conformance_cmds.session_context", 4),
    "session-migrate": ("conformance_cmds.session_migrate", 4),
    "payload": ("conformance_cmds.payload", 5),
    "parse-stream": ("conformance_cmds.parse_stream", 5),
    "agent-events": ("conformance_cmds.agent_events", 3),
}

NOT_BUILT_EXIT = 3


def _emit(value: Any) -> None:
    # Without recursion: a long session's tree nests thousands of levels deep.
    sys.stdout.write(deep_json.dumps(value) + "\n")


def _module(subcommand: str) -> ModuleType | None:
    """The subcommand's module, or ``None`` while it is not built yet."""
    module_name, _ = SUBCOMMANDS[subcommand]
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        return None


def answer(subcommand: str, request: Any, current: bool = False) -> tuple[int, Any]:
    """(exit code, answer) for ``request`` in this process: what ``main`` returns and prints
    (``current``: as compared with Pi 1.6, ``--current``).

    The tests run most cases through this (a process per case costs far more than the case);
    a few per subcommand also go through the command line to show it answers the same.
    """
    module = _module(subcommand)
    if module is None:
        issue = SUBCOMMANDS[subcommand][1]
        return NOT_BUILT_EXIT, {"error": {"name": "NotBuilt", "message": f"{subcommand} waits for issue #{issue}"}}
    from conformance_cmds._llm import CURRENT_PI

    token = CURRENT_PI.set(current)
    try:
        return 0, module.run(request)
    except module.Rejected as error:  # the implementation refused the input, as Pi would
        return 1, {"error": {"name": error.name, "message": str(error)}}
    finally:
        CURRENT_PI.reset(token)


def main(argv: list[str]) -> int:
    current = argv[:1] == ["--current"]
    argv = argv[1:] if current else argv
    if len(argv) != 1 or argv[0] not in SUBCOMMANDS:
        print(f"usage: conformance.py [--current] {{{','.join(SUBCOMMANDS)}}} < input.json", file=sys.stderr)
        return 2
    request = None
    if _module(argv[0]) is not None:
        try:
            request = json.load(sys.stdin)
        except json.JSONDecodeError as error:
            print(f"conformance: input is not JSON: {error}", file=sys.stderr)
            return 2
    code, result = answer(argv[0], request, current)
    _emit(result)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
