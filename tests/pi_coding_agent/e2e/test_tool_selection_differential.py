"""Which tools a run starts with, ours against Pi 1.6 itself: ``defaultTools`` (user and project
files), ``--tools`` with ``+name`` / ``-name`` entries and ``*`` patterns, ``--exclude-tools``,
``--no-tools`` and ``--no-builtin-tools``.

The table goes through both libraries on the same settings files (Pi 1.6's ``createAgentSession``
in one node process, ``tests/support/pi_current_tools.mjs``; ours in this one); a few cases also go
through both command lines, where the tools are read from the request the provider received
(with ``--no-mcp`` and ``-e builtin:<name>``, which we accept as Pi 1.6 does, a name it does not
know refused in its words).
Pi 1.6 also has ``powershell``, which we do not
(``docs/pi-1.6/settings-and-cli.md``): they are left out of Pi's answers before comparing. Pi's
library loads no built-in extensions, so it has no ``codemode`` or ``tool_search`` (its CLI has): the library table
leaves them out of both answers, and the command-line cases below compare them.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_coding_agent.core.auth import AuthStorage
from pi_coding_agent.core.model_registry import ModelCatalog
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.core.settings import NoTools, Settings
from pi_coding_agent.runtime.agent_session import CreateAgentSessionOptions, create_agent_session
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support.oracle import run_current_library
from tests.support.scripted_provider import ScriptedProvider

DRIVER = Path(__file__).resolve().parents[2] / "support" / "pi_current_tools.mjs"
PI_ONLY_TOOLS = {"powershell", "codemode", "tool_search"}


@dataclass(frozen=True)
class Case:
    settings: dict[str, Any] = field(default_factory=dict)
    project: dict[str, Any] | None = None
    tools: list[str] | None = None
    exclude_tools: list[str] | None = None
    no_tools: NoTools | None = None


CASES = [
    Case(),
    Case(settings={"defaultTools": ["+grep"]}),
    Case(settings={"defaultTools": ["+grep"]}, project={"defaultTools": ["-bash", "+ls"]}),
    Case(settings={"defaultTools": ["+grep"]}, project={"defaultTools": ["find"]}),
    Case(settings={"defaultTools": ["grep"]}, project={"defaultTools": ["+ls", "-grep"]}),
    Case(project={"defaultTools": ["-write"]}),
    Case(settings={"defaultTools": ["ls", "+grep", "-ls", "+read"]}),
    Case(settings={"defaultTools": []}),
    Case(settings={"defaultTools": "grep"}),
    Case(settings={"defaultTools": ["grep", 7, "re*"]}),
    Case(settings={"defaultTools": ["+nope", "-", "+"]}),
    Case(tools=["+grep", "-read", "+read"]),
    Case(tools=["-grep", "+find"], settings={"defaultTools": ["grep", "ls"]}),
    Case(tools=["grep", "read"], settings={"defaultTools": ["+ls"]}),
    Case(tools=["re*"]),
    Case(tools=["*"]),
    Case(tools=["?rep", "l*s", "f*d*"]),
    Case(tools=[]),
    Case(exclude_tools=["*e*"]),
    Case(exclude_tools=["gr*", "bash"], settings={"defaultTools": ["+grep"]}),
    Case(exclude_tools=["r.ad", "[rb]*"]),
    Case(tools=["+grep"], no_tools="builtin"),
    Case(tools=["+grep"], no_tools="all"),
    Case(tools=["grep"], no_tools="all"),
    Case(no_tools="all", settings={"defaultTools": ["+grep"]}),
    Case(tools=["re*", "-bash"]),
    Case(tools=["+gr*"]),
]


def _folders(root: Path, case: Case) -> tuple[Path, Path]:
    agent_dir, work = root / "agent", root / "work"
    (work / ".pi").mkdir(parents=True)
    agent_dir.mkdir()
    (agent_dir / "settings.json").write_text(json.dumps(case.settings), encoding="utf-8")
    if case.project is not None:
        (work / ".pi" / "settings.json").write_text(json.dumps(case.project), encoding="utf-8")
    return agent_dir, work


def _ours(agent_dir: Path, work: Path, case: Case) -> dict[str, Any]:
    catalog = ModelCatalog.load(agent_dir, AuthStorage.load(agent_dir / "auth.json"))
    options = CreateAgentSessionOptions(
        cwd=str(work),
        agent_dir=agent_dir,
        settings=Settings.load(work, agent_dir),
        catalog=catalog,
        session_manager=SessionManager.in_memory(str(work)),
        tools=case.tools,
        exclude_tools=case.exclude_tools,
        no_tools=case.no_tools,
    )
    try:
        return {"tools": create_agent_session(options).session.active_tool_names()}
    except ValueError as error:
        return {"error": str(error)}


def test_tool_selection_matches_pi_1_6_library(tmp_path: Path) -> None:
    folders = [_folders(tmp_path / str(index), case) for index, case in enumerate(CASES)]
    request = [
        {
            "cwd": str(work),
            "agentDir": str(agent_dir),
            "tools": case.tools,
            "excludeTools": case.exclude_tools,
            "noTools": case.no_tools,
        }
        for case, (agent_dir, work) in zip(CASES, folders, strict=True)
    ]
    theirs = run_current_library(DRIVER, request)
    ours = [_ours(agent_dir, work, case) for case, (agent_dir, work) in zip(CASES, folders, strict=True)]
    for answer in theirs:
        if "tools" in answer:
            answer["tools"] = [name for name in answer["tools"] if name not in PI_ONLY_TOOLS]
    for answer in ours:
        if "tools" in answer:
            answer["tools"] = [name for name in answer["tools"] if name not in ("codemode", "tool_search")]
    assert [(case, answer) for case, answer in zip(CASES, ours, strict=True)] == list(
        zip(CASES, theirs, strict=True)
    )
    assert {"tools": ["read", "bash", "edit", "write", "grep"]} in ours  # the table is not all empty


CLI_CASES: list[tuple[dict[str, Any], dict[str, Any] | None, tuple[str, ...]]] = [
    ({"defaultTools": ["+grep"]}, {"defaultTools": ["-bash", "+ls"]}, ()),
    ({}, None, ("--no-builtin-tools", "--tools", "re*,*s", "--exclude-tools", "r*d")),
    ({}, None, ("-t", "read,+grep")),
    ({"extensions": ["-builtin:mcp"]}, None, ("--no-mcp", "-e", "builtin:codemode", "--tools", "+grep")),
    ({}, None, ("-e", "builtin:nope")),
    ({"defaultTools": ["+codemode"]}, None, ()),
    ({}, None, ("--tools", "code*,read")),
    ({"defaultTools": ["+codemode"]}, None, ("--exclude-tools", "c*")),
    ({"defaultTools": ["+codemode"]}, None, ("--no-extensions",)),
    ({"defaultTools": ["+codemode"]}, None, ("--no-extensions", "-e", "builtin:codemode")),
    ({"defaultTools": ["+codemode"], "extensions": ["-builtin:codemode"]}, None, ()),
    ({"defaultTools": ["+codemode"], "extensions": ["-builtin:codemode"]}, {"extensions": ["+builtin:codemode"]}, ()),
]


def _cli_run(tmp_path: Path, index: int, program: str) -> tuple[int, list[str] | None, str]:
    settings, project, args = CLI_CASES[index]
    with ScriptedProvider([{"text": "ok"}]) as provider:
        sandbox = Sandbox.create(
            tmp_path / f"{program}-{index}", provider.base_url, {**settings, "retry": {"enabled": False}}
        )
        if project is not None:
            (sandbox.work / ".pi").mkdir()
            (sandbox.work / ".pi" / "settings.json").write_text(json.dumps(project), encoding="utf-8")
        full = ("--model", OPENAI_MODEL, "--approve", *args, "-p", "hi")
        done = run_pi(sandbox, *full, current=True) if program == "pi" else run_ours(sandbox, *full)
        requests = provider.requests
        tools = (
            [tool["function"]["name"] for tool in requests[0]["body"].get("tools", [])] if requests else None
        )
        errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
        return done.returncode, tools, "\n".join(errors)


def test_tool_flags_match_pi_1_6_cli(tmp_path: Path) -> None:
    jobs = [(index, program) for index in range(len(CLI_CASES)) for program in ("pi", "ours")]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = dict(zip(jobs, pool.map(lambda job: _cli_run(tmp_path, *job), jobs), strict=True))
    for index in range(len(CLI_CASES)):
        assert answers[index, "ours"] == answers[index, "pi"], CLI_CASES[index]
    assert answers[0, "ours"][1] == ["read", "edit", "write", "grep", "ls"]
    assert answers[2, "ours"][0] == 1
    assert answers[4, "ours"][0] == 1
    assert answers[5, "ours"][1] == ["read", "bash", "edit", "write", "codemode"]
    assert answers[8, "ours"][1] == ["read", "bash", "edit", "write"]
