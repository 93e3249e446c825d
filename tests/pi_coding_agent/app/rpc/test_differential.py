"""Differential: the scenario of ``scenario.py`` (every RPC command) against our ``pi --mode rpc``,
Pi 0.85's and Pi 1.6's, each with its own copy of the same scripted provider on 127.0.0.1.

Driven by Pi's own ``RpcClient`` (Node, through a shim ``CLI_PATH``: 1.6's for ours and Pi 1.6,
0.85's for Pi 0.85) and by our Python ``RpcClient``. We speak 1.6's protocol: answers and event
sequences must equal Pi 1.6's after ``_support.normalize`` (less what other parts of issue 24
bring, ``PENDING_ELSEWHERE``), and Pi 0.85's once 1.6's additive fields are left out
(``as_pi085``); the settings the commands wrote and the session files (read by the live oracle)
must agree with 0.85's too.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.app.rpc import scenario
from tests.pi_coding_agent.app.rpc._support import (
    BUILT_IN_EXTENSIONS,
    MODEL_ARGS,
    as_pi085,
    first_difference,
    has_embedded_models,
    is_pi16_only,
    make_sandbox,
    normalize,
    our_pi,
    pi_cli,
    run_pi_client,
    tool_durations_checked,
    without_embedded_models,
    without_pending_elsewhere,
    without_system_messages,
)
from tests.pi_coding_agent.app.rpc.python_driver import run_scenario
from tests.pi_coding_agent.e2e._harness import Sandbox, oracle_context, scrub
from tests.support import oracle
from tests.support.scripted_provider import ScriptedProvider


def _provider() -> ScriptedProvider:
    return ScriptedProvider(scenario.SCRIPT, summary=scenario.SUMMARY, sequential=True)


def _compare(
    ours: dict[str, Any], theirs: dict[str, Any], ours_box: Sandbox, pi_box: Sandbox, *, read_files: bool
) -> None:
    """Equal answers and output; equal settings files; with ``read_files``, every session file
    read by the live oracle (slow: one Node process per file) gives the same context."""
    assert has_embedded_models(ours) and not has_embedded_models(theirs)
    ours, theirs = _sizes_folded(ours), _sizes_folded(theirs)
    mine, pis = normalize(without_embedded_models(ours), ours_box.root), normalize(theirs, pi_box.root)
    assert mine["results"] == pis["results"], first_difference(mine["results"], pis["results"])
    assert mine["stream"] == pis["stream"], first_difference(mine["stream"], pis["stream"])
    assert mine["toolUpdates"] == pis["toolUpdates"]
    assert mine["toolUpdates"]["call_bash"]["last"]["content"] == [{"type": "text", "text": "a\nb\n"}]
    settings = [json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8")) for box in (ours_box, pi_box)]
    assert settings[0] == settings[1]
    if read_files:
        # Pi reads our files as we read Pi's (one oracle process per file is slow, so only
        # ours go through the oracle).
        assert as_pi085(without_system_messages(_read_by_pi(ours_box))) == _read_by_us(pi_box)
    exported = [sorted(p.name[:11] for p in box.work.glob("pi-session-*.html")) for box in (ours_box, pi_box)]
    assert exported[0] == exported[1] == ["pi-session-"]
    assert all((box.work / "exported.html").read_text(encoding="utf-8").lower().startswith("<!doctype html>")
               for box in (ours_box, pi_box))  # the outputPath, relative to the working directory


def _bash_logs(value: Any) -> Any:
    """A user command's full-output file is ours in a private ``<tmp>/pi-<uid>/`` folder
    (docs/security.md); the folder is not compared."""
    text = re.sub(r'/(?:[^"/]+/)*pi-bash-', "<tmp>/pi-bash-", json.dumps(value))
    return json.loads(text)


def _sizes_folded(value: Any) -> Any:
    """The scenario compacts right after an aborted answer, whose length (and so the context's
    estimated size) depends on when the abort arrived: ``tokensBefore`` and
    ``estimatedTokensAfter`` are only checked to be positive (their values are compared with
    Pi's by the e2e compaction differentials)."""
    if isinstance(value, dict):
        folded = {key: _sizes_folded(item) for key, item in value.items()}
        for key in ("tokensBefore", "estimatedTokensAfter"):
            if isinstance(folded.get(key), int) and "summary" in folded:
                assert folded[key] > 0, folded
                folded[key] = "<positive>"
        return folded
    if isinstance(value, list):
        return [_sizes_folded(item) for item in value]
    return value


def _summary(box: Sandbox, name: str | None, entries: list[dict[str, Any]], context: dict[str, Any],
             header: dict[str, Any], *, tree: list[Any]) -> dict[str, Any]:
    return {
        "name": name,
        "entryTypes": [entry["type"] for entry in entries if not is_pi16_only(entry)],
        "context": _sizes_folded(_bash_logs(scrub(context, {str(box.root): "<root>"}))),
        "parent": "parentSession" in header,
        "tree": tree,
    }


def _oracle_tree(nodes: list[dict[str, Any]], types: dict[str, str]) -> list[Any]:
    """The oracle's ``{id, label?, children}`` nodes as (entry type, label, children); the node
    of a system message or a context edit (``types`` has none: Pi 0.85 writes neither) gives way
    to its children."""
    tree: list[Any] = []
    for node in nodes:
        if node["id"] in types:
            tree.append((types[node["id"]], node.get("label"), _oracle_tree(node["children"], types)))
        else:
            tree += _oracle_tree(node["children"], types)
    return tree


def _our_tree(nodes: list[Any]) -> list[Any]:
    return [(node.entry.type, node.label, _our_tree(node.children)) for node in nodes]


def _sorted(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(answers, key=lambda a: json.dumps(a["context"]["messages"][:1]) + str(len(a["entryTypes"])))


def _read_by_pi(box: Sandbox) -> list[dict[str, Any]]:
    """Every session file as the live oracle reads it (the calls run side by side)."""
    files = box.session_files()
    with ThreadPoolExecutor(max_workers=len(files) or 1) as pool:
        read = list(pool.map(oracle_context, files))
    return _sorted([
        _summary(box, a["sessionName"], a["entries"], a["context"], a["header"],
                 tree=_oracle_tree(a["tree"], {e["id"]: e["type"] for e in a["entries"] if not is_pi16_only(e)}))
        for a in read
    ])


def _read_by_us(box: Sandbox) -> list[dict[str, Any]]:
    """Every session file as our ``SessionManager`` reads it (checked against Pi's reading by
    the session conformance tests), in the oracle's shape."""
    from pi_ai import to_builtins
    from pi_coding_agent.core.session import SessionManager

    answers = []
    for path in box.session_files():
        manager = SessionManager.open(str(path), read_only=True)
        built = manager.build_session_context()
        context = {
            "messages": to_builtins(built.messages),
            "thinkingLevel": built.thinking_level,
            "model": to_builtins(built.model),
        }
        answers.append(_summary(box, manager.get_session_name(), manager.get_entries_data(), context,
                                manager.get_header_data(), tree=_our_tree(manager.get_tree())))
        manager.close()
    return _sorted(answers)


def _compare_current(ours: dict[str, Any], theirs: dict[str, Any], ours_box: Sandbox, pi_box: Sandbox) -> None:
    """Ours against Pi 1.6: equal answers and events, 1.6's additive fields included."""
    mine = tool_durations_checked(normalize(without_pending_elsewhere(without_embedded_models(ours)), ours_box.root, pi16=True))
    pis = tool_durations_checked(normalize(without_pending_elsewhere(theirs), pi_box.root, pi16=True))
    mine, pis = _sizes_folded(mine), _sizes_folded(pis)  # 1.6 counts its system message in the estimate
    assert mine["results"] == pis["results"], first_difference(mine["results"], pis["results"])
    assert mine["stream"] == pis["stream"], first_difference(mine["stream"], pis["stream"])
    assert mine["toolUpdates"] == pis["toolUpdates"]


def _additions_seen(log: dict[str, Any]) -> dict[str, list[Any]]:
    """What the scenario shows of Pi 1.6's additions, in order."""
    stream = log["stream"]
    return {
        "dispositions": [line.get("data", {}).get("disposition") for line in stream
                         if line.get("type") == "response" and line.get("command") in ("prompt", "steer", "follow_up")
                         and line.get("success")],
        "settled": [line["aborted"] for line in stream if line.get("type") == "agent_settled"],
        "timed": [line["toolCallId"] for line in stream
                  if line.get("type") == "tool_execution_end" and isinstance(line.get("durationMs"), int)],
        "starts": [(line["message"]["content"], line["message"]["stopReason"], line["message"]["usage"]["totalTokens"])
                   for line in stream if line.get("type") == "message_start" and line["message"].get("role") == "assistant"],
    }


T = TypeVar("T")


def _side_by_side(*runs: Callable[[], T]) -> list[T]:
    """Each program's run at once (each has its own provider and home): their waits (streamed
    chunks, the scenario's sleeping commands) overlap instead of adding up."""
    with ThreadPoolExecutor(len(runs)) as pool:
        futures = [pool.submit(run) for run in runs]
        return [future.result() for future in futures]


def test_pi_rpc_client_sees_the_same_protocol(tmp_path: Path) -> None:
    """Pi's own clients: 1.6's against ours and Pi 1.6, 0.85's against Pi 0.85."""
    oracle.require_live_oracle()
    oracle.require_live_oracle(current=True)
    scenario_file = tmp_path / "scenario.json"
    scenario_file.write_text(json.dumps(scenario.scenario()), encoding="utf-8")
    with _provider() as ours_provider, _provider() as current_provider, _provider() as pi_provider:
        ours_box = make_sandbox(tmp_path / "ours", ours_provider.base_url, scenario.SETTINGS)
        current_box = make_sandbox(tmp_path / "pi16", current_provider.base_url, scenario.SETTINGS)
        pi_box = make_sandbox(tmp_path / "pi", pi_provider.base_url, scenario.SETTINGS)
        ours, current, theirs = _side_by_side(
            lambda: run_pi_client(ours_box, our_pi(), scenario_file, current=True),
            lambda: run_pi_client(current_box, pi_cli(current=True), scenario_file, current=True),
            lambda: run_pi_client(pi_box, pi_cli(), scenario_file),
        )
    additions = _additions_seen(ours)
    assert additions == _additions_seen(current)
    assert additions["dispositions"] == ["started", "started", "queued", "queued", "started", "queued", "started",
                                         "started", "queued", "queued", "queued", "started"]
    assert additions["settled"] == [False, False, True, False, False, False]
    assert additions["timed"] == ["call_read", "call_bash"]
    # An answer starts empty and pending (a failed request has no stream: its start is the error).
    assert set(map(json.dumps, additions["starts"])) == {json.dumps([[], "pending", 0]), json.dumps([[], "error", 0])}
    _compare_current(ours, current, ours_box, current_box)
    _compare(as_pi085(ours), theirs, ours_box, pi_box, read_files=True)


async def _python_client(box: Sandbox, command: list[str]) -> dict[str, Any]:
    client = RpcClient(command, args=MODEL_ARGS, cwd=box.work, env=box.env())
    async with client:
        return await run_scenario(client, scenario.STEPS)


def test_python_rpc_client_drives_ours_and_pi_alike(tmp_path: Path) -> None:
    """Our client against ours and Pi 1.6 (it reads 1.6's dispositions: ``prompt`` returns one)."""
    oracle.require_live_oracle(current=True)
    with _provider() as ours_provider, _provider() as pi_provider:
        ours_box = make_sandbox(tmp_path / "ours", ours_provider.base_url, scenario.SETTINGS)
        pi_box = make_sandbox(tmp_path / "pi", pi_provider.base_url, scenario.SETTINGS)
        ours, theirs = _side_by_side(
            lambda: asyncio.run(_python_client(ours_box, [str(our_pi())])),
            lambda: asyncio.run(_python_client(pi_box, [str(pi_cli(current=True))])),
        )
    assert [r["result"] for r in ours["results"] if r.get("call") == "prompt"][:2] == ["started", "started"]
    _compare_current(ours, theirs, ours_box, pi_box)


SCOPE = ["scripted-openai/thinker:low", "scripted-anthropic/scripted-claude"]


async def _scoped_answers(box: Sandbox, command: list[str], args: list[str]) -> list[Any]:
    client = RpcClient(command, args=args, cwd=box.work, env=box.env())
    async with client:
        answers: list[Any] = [await client.get_state()]
        for _ in range(3):
            answers.append(await client.cycle_model())
        answers.append(await client.get_available_thinking_levels())
        answers.append(await client.get_entries())
    return answers


@pytest.mark.parametrize("where", ["--models", "enabledModels"])
def test_scoped_models_cycle_like_pi(tmp_path: Path, where: str) -> None:
    """``--models`` or the ``enabledModels`` setting: the first scoped model (with its thinking
    level) starts a new session, and ``cycle_model`` goes through the scope only."""
    oracle.require_live_oracle()
    answers = []
    settings: dict[str, Any] = {"retry": {"enabled": False}}
    args = ["--models", ",".join(SCOPE)] if where == "--models" else []
    if where == "enabledModels":
        settings["enabledModels"] = SCOPE
    for name, command in (("ours", [str(our_pi())]), ("pi", [str(pi_cli())])):
        box = make_sandbox(tmp_path / name, "http://127.0.0.1:9", settings)
        found = asyncio.run(_scoped_answers(box, command, args))
        answers.append(normalize({"stream": [], "results": [{"result": found}]}, box.root))
    assert answers[0] == answers[1]
    cycles = answers[0]["results"][0]["result"][1:4]
    assert [(c["model"]["id"], c["thinkingLevel"], c["isScoped"]) for c in cycles] == [
        ("scripted-claude", "off", True), ("thinker", "low", True), ("scripted-claude", "off", True)
    ]


async def _commands_and_expansion(box: Sandbox, command: list[str]) -> tuple[list[Any], list[Any]]:
    client = RpcClient(command, args=MODEL_ARGS, cwd=box.work, env=box.env())
    async with client:
        commands = await client.get_commands()
        await client.prompt_and_wait("/fix calc.py")
        await client.prompt_and_wait("/skill:demo now")
        return list(commands), await client.get_messages()


def test_templates_and_skills_are_commands_and_expand_like_pi(tmp_path: Path) -> None:
    """``get_commands`` lists prompt templates, then skills; a prompt naming one is expanded
    before it is sent. Compared: name, description, source and the file (Pi's ``sourceInfo``
    also says where the resource was found; ours has only its ``path``, see docs/rpc.md)."""
    oracle.require_live_oracle()
    results = []
    for name, command in (("ours", [str(our_pi())]), ("pi", [str(pi_cli())])):
        with ScriptedProvider([{"text": "fixed"}, {"text": "demoed"}], sequential=True) as provider:
            box = make_sandbox(tmp_path / name, provider.base_url, {"retry": {"enabled": False}})
            (box.agent_dir / "prompts").mkdir()
            (box.agent_dir / "prompts" / "fix.md").write_text("---\ndescription: Fix a file\n---\nFix $1 now.\n")
            (box.agent_dir / "skills" / "demo").mkdir(parents=True)
            (box.agent_dir / "skills" / "demo" / "SKILL.md").write_text(
                "---\nname: demo\ndescription: A demo skill\n---\nDo the demo.\n"
            )
            commands, messages = asyncio.run(_commands_and_expansion(box, command))
        shown = [
            {**{k: c[k] for k in ("name", "description", "source")}, "path": c["sourceInfo"]["path"]}
            for c in commands
            if not c["sourceInfo"]["path"].startswith(BUILT_IN_EXTENSIONS)  # /llama: test_llama_pi.py
        ]
        found = {"stream": [], "results": [{"result": [shown, messages]}]}
        results.append(normalize(as_pi085(found) if name == "ours" else found, box.root))  # Pi 0.85's answers
    assert results[0] == results[1]
    shown, messages = results[0]["results"][0]["result"]
    assert [c["name"] for c in shown] == ["fix", "skill:demo"]
    assert messages[0]["content"][0]["text"] == "Fix calc.py now."


async def _compaction_retried(box: Sandbox, command: list[str]) -> dict[str, Any]:
    client = RpcClient(command, args=MODEL_ARGS, cwd=box.work, env=box.env())
    async with client:
        log: list[dict[str, Any]] = []
        client.on_message(log.append)
        await client.prompt_and_wait("First question")
        await client.prompt_and_wait("Second question")
        result = await client.compact("Keep it short")
        stats = await client.get_session_stats()
        entries = await client.get_entries()  # names the entry ids for normalize
    return {"stream": log, "results": [{"result": result}, {"result": stats}, {"result": entries}]}


def test_summarization_retries_like_pi(tmp_path: Path) -> None:
    """A summary request that meets a transient error is retried with Pi's
    ``summarization_retry_*`` events (same settings as turn retries), then compacts."""
    oracle.require_live_oracle()
    raw = {}
    settings = {"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 10}, "compaction": {"keepRecentTokens": 5}}
    failure = {"status": 503, "body": {"error": {"type": "overloaded_error", "message": "Overloaded"}}}
    for name, command in _THREE:
        turns = [{"text": "First answer."}, {"text": "Second answer."}]
        with ScriptedProvider(turns, summary=scenario.SUMMARY, summary_failures=[failure], sequential=True) as provider:
            box = make_sandbox(tmp_path / name, provider.base_url, settings)
            raw[name] = (asyncio.run(_compaction_retried(box, command())), box)
    logs = _three_way(raw)
    kinds = [line["type"] for line in logs[0]["stream"] if line["type"].startswith(("summarization", "compaction"))]
    assert kinds == [
        "compaction_start", "summarization_retry_scheduled", "summarization_retry_attempt_start",
        "summarization_retry_finished", "compaction_end",
    ]
    assert logs[0]["results"][0]["result"]["summary"] == scenario.SUMMARY


EDGE_STEPS: list[dict[str, Any]] = [
    # Before anything was said: nothing to fork, clone, compact or export yet.
    {"call": "getForkMessages"},
    {"call": "getLastAssistantText"},
    {"call": "clone"},
    {"call": "fork", "args": ["no-such-entry"]},
    {"call": "compact"},
    {"call": "exportHtml"},
    {"call": "switchSession", "args": ["elsewhere/missing.jsonl"]},  # not there: a new session in it
    {"call": "cycleThinkingLevel"},
    {"call": "abort"},
    {"call": "abortBash"},
    {"call": "abortRetry"},
    {"call": "clearQueue"},
    # Queued while idle: delivered with the next prompt.
    {"call": "steer", "args": ["steered while idle"]},
    {"call": "followUp", "args": ["followed up while idle"]},
    {"call": "getState"},
    {"call": "prompt", "args": ["hello"]},
    {"waitFor": "agent_settled"},
    {"call": "getEntries", "as": "entries"},
    {"call": "fork", "args": [scenario.ref("entries", "entries", 1, "id")]},
    {"call": "getMessages"},
    {"call": "getState"},
]


IN_MEMORY_STEPS: list[dict[str, Any]] = [
    {"call": "prompt", "args": ["hello"]},
    {"waitFor": "agent_settled"},
    {"call": "getState"},
    {"call": "getEntries"},
    {"call": "getSessionStats"},
    {"call": "exportHtml"},
    {"call": "getForkMessages", "as": "forks"},
    {"call": "clone"},
    {"call": "getMessages"},
    {"call": "fork", "args": [scenario.ref("forks", 0, "entryId")]},
    {"call": "getMessages"},
    {"call": "newSession", "args": ["/some/parent.jsonl"]},
    {"call": "getState"},
    {"call": "getEntries"},
]


_THREE: tuple[tuple[str, Callable[[], list[str]]], ...] = (
    ("ours", lambda: [str(our_pi())]),
    ("pi16", lambda: [str(pi_cli(current=True))]),
    ("pi", lambda: [str(pi_cli())]),
)
"""Ours, Pi 1.6 and Pi 0.85, each driven by our Python client."""

def _three_way(raw: dict[str, tuple[dict[str, Any], Sandbox]]) -> list[dict[str, Any]]:
    """Ours equals Pi 1.6 (less ``PENDING_ELSEWHERE``) and, without 1.6's additions, Pi 0.85;
    returns ours and Pi 0.85's normalized logs."""
    (ours, ours_box), (current, current_box), (old, old_box) = raw["ours"], raw["pi16"], raw["pi"]
    mine = _sizes_folded(tool_durations_checked(normalize(without_pending_elsewhere(ours), ours_box.root, pi16=True)))
    pis = _sizes_folded(tool_durations_checked(normalize(without_pending_elsewhere(current), current_box.root, pi16=True)))
    assert mine == pis, first_difference(mine["results"] + mine["stream"], pis["results"] + pis["stream"])
    return [_pi085_wording(normalize(as_pi085(ours), ours_box.root)), normalize(old, old_box.root)]


def _pi085_wording(log: dict[str, Any]) -> dict[str, Any]:
    """The one answer whose text Pi 1.6 reworded, in 0.85's words."""
    text = json.dumps(log).replace(
        "Send a message before cloning or forking it.", "Wait for the first assistant response before cloning or forking it."
    )
    return dict(json.loads(text))


def _run_steps(tmp_path: Path, steps: list[dict[str, Any]], extra_args: list[str]) -> list[dict[str, Any]]:
    """``steps`` through our Python client against ours, Pi 1.6 and Pi 0.85 (``_three_way``)."""
    raw = {}
    for name, command in _THREE:
        turns = [{"text": "First."}, {"text": "Second."}, {"text": "Third."}]
        with ScriptedProvider(turns, sequential=True) as provider:
            box = make_sandbox(tmp_path / name, provider.base_url, {"retry": {"enabled": False}})
            client = RpcClient(command(), args=[*MODEL_ARGS, *extra_args], cwd=box.work, env=box.env())

            async def run(client: RpcClient = client) -> dict[str, Any]:
                async with client:
                    return await run_scenario(client, steps)

            raw[name] = (asyncio.run(run()), box)
    return _three_way(raw)


def test_edge_answers_match_pi(tmp_path: Path) -> None:
    """Refusals and no-ops (nothing to clone, fork, compact or export; a missing file; a
    queue filled while idle; a fork from an entry that is not a user message) answer as Pi's."""
    oracle.require_live_oracle()
    logs = _run_steps(tmp_path, EDGE_STEPS, [])
    assert logs[0]["results"] == logs[1]["results"], first_difference(logs[0]["results"], logs[1]["results"])
    assert logs[0]["stream"] == logs[1]["stream"], first_difference(logs[0]["stream"], logs[1]["stream"])


def test_in_memory_session_answers_match_pi(tmp_path: Path) -> None:
    """``--no-session``: no file, so no export; fork, clone and new sessions stay in memory."""
    oracle.require_live_oracle()
    logs = _run_steps(tmp_path, IN_MEMORY_STEPS, ["--no-session"])
    assert logs[0]["results"] == logs[1]["results"], first_difference(logs[0]["results"], logs[1]["results"])
    assert logs[0]["stream"] == logs[1]["stream"], first_difference(logs[0]["stream"], logs[1]["stream"])
    assert not (tmp_path / "ours" / "home" / ".pi" / "agent" / "sessions").exists()


def test_json_mode_streams_like_pi_16(tmp_path: Path) -> None:
    """``--mode json`` writes the same events as RPC: an answer starts as an empty ``pending``
    message (not the finished one), tools end with ``durationMs``, the run settles with
    ``aborted``; equal to Pi 1.6's stream after the session header."""
    from tests.pi_coding_agent.e2e._harness import run_ours, run_pi

    turns = [{"thinking": "Read it.", "tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "notes.txt"}}]},
             {"text": "It says hi.", "chunk_delay": 0.01}]
    logs, raw = [], []
    for name in ("ours", "pi16"):
        with ScriptedProvider(turns, sequential=True) as provider:
            box = make_sandbox(tmp_path / name, provider.base_url, {"retry": {"enabled": False}})
            (box.work / "notes.txt").write_text("hi\n", encoding="utf-8")
            args = ("--mode", "json", *MODEL_ARGS, "Read notes.txt")
            done = run_ours(box, *args) if name == "ours" else run_pi(box, *args, current=True)
        assert done.returncode == 0, done.stderr
        header, *events = done.json_lines()
        assert header["type"] == "session"
        raw.append(events)
        log = without_pending_elsewhere({"stream": events, "results": []})
        logs.append(tool_durations_checked(normalize(log, box.root, pi16=True)))
    assert logs[0] == logs[1], first_difference(logs[0]["stream"], logs[1]["stream"])
    starts = [e["message"] for e in raw[0] if e["type"] == "message_start" and e["message"]["role"] == "assistant"]
    assert [(s["content"], s["stopReason"], s["usage"]["totalTokens"]) for s in starts] == [([], "pending", 0)] * 2
    assert logs[0]["stream"][-1] == {"type": "agent_settled", "aborted": False}
