"""Pi's TypeScript extensions run by ours as by Pi 1.6 (its CLI, ``pi-cli-current``).

Real published packages (``pi-prompt-template-model``, ``pi-aliases``, fetched from npm once into
a cache) and one extension of our own (``fixtures/weather.ts``: a tool with streamed updates, a
``tool_call`` guard, ``before_agent_start``, a command, a flag), each against a scripted provider
on 127.0.0.1, compared with Pi 1.6 on the same setup: the tools in the request, the system
prompt's addition, tool results, blocked calls, commands over RPC.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.npm_packages import node_cache, npm_package
from tests.support.scripted_provider import ScriptedProvider


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    """Node and Pi's libraries installed (once, cached) before any sandboxed run needs them."""
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


WEATHER = Path(__file__).resolve().parent / "fixtures" / "weather.ts"
PI_CURRENT = "pi-cli-current"


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"].get("tools") or []]


def _system(request: dict[str, Any]) -> str:
    first = request["body"]["messages"][0]
    content = first["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def _tool_messages(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["body"]["messages"] if m["role"] == "tool"]


def _run_both(
    tmp_path: Path,
    turns: list[dict[str, Any]],
    *args: str,
    settings: dict[str, Any] | None = None,
    prepare: Any = None,
) -> dict[str, tuple[Any, list[dict[str, Any]]]]:
    """The same print-mode run by ours and by Pi 1.6: (completed run, provider requests) each."""
    oracle.require_live_oracle(current=True)
    found: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
    for who in ("ours", "pi"):
        with ScriptedProvider(turns) as provider:
            box = Sandbox.create(tmp_path / who, provider.base_url, settings)
            if prepare is not None:
                prepare(box)
            run = run_ours if who == "ours" else _run_current
            done = run(box, "--model", OPENAI_MODEL, *args, timeout=180, PI_NODE_CACHE=node_cache())
            found[who] = (done, list(provider.requests))
    return found


def _run_current(box: Sandbox, *args: str, timeout: float, **env: str) -> Any:
    return run_pi(box, *args, timeout=timeout, current=True, **env)


def test_a_typescript_tool_runs_and_its_events_apply_as_in_pi(tmp_path: Path) -> None:
    """The TS tool is offered and called (its result reaches the model), ``before_agent_start``
    adds to the system prompt, and ``tool_call`` blocks a bash command: as in Pi 1.6. The flag
    the extension registers (``--units``) is accepted on the same run (an unknown flag is
    refused: the run would not end with 0)."""
    turns = [
        {"tool_calls": [{"id": "c1", "name": "weather", "arguments": {"city": "Oslo"}}]},
        {"tool_calls": [{"id": "c2", "name": "bash", "arguments": {"command": "rm -rf /tmp/none"}}]},
        {"text": "done"},
    ]
    runs = _run_both(tmp_path, turns, "-e", str(WEATHER), "--units", "imperial", "-p", "weather please")
    shown = {}
    for who, (done, requests) in runs.items():
        assert done.returncode == 0, (who, done.stderr)
        assert len(requests) == 3, (who, done.stderr)
        shown[who] = {
            "tools": _tool_names(requests[0]),
            "marker": _system(requests[0]).endswith("WEATHER-EXTENSION-ACTIVE"),
            "results": _tool_messages(requests[2]),
            "stdout": done.stdout.strip(),
        }
    assert shown["ours"] == shown["pi"]
    assert "weather" in shown["ours"]["tools"] and shown["ours"]["stdout"] == "done"
    assert shown["ours"]["results"][0] == "Sunny in Oslo"
    assert "weather extension forbids rm -rf" in shown["ours"]["results"][1]


def _install_packages(box: Sandbox) -> None:
    settings = json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))
    settings["packages"] = [
        str(npm_package("pi-prompt-template-model", "0.12.2")),
        str(npm_package("pi-aliases", "1.0.7")),
    ]
    (box.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


async def _rpc_commands(box: Sandbox, command: list[str]) -> tuple[list[dict[str, Any]], list[Any]]:
    env = {**box.env(), "PI_NODE_CACHE": node_cache()}
    client = RpcClient(command, args=["--model", OPENAI_MODEL], cwd=box.work, env=env)
    async with client:
        commands = await client.get_commands()
        await client.prompt_and_wait("hello")
        return list(commands), await client.get_messages()


def test_published_packages_give_the_same_commands_over_rpc(tmp_path: Path) -> None:
    """Two published packages with TypeScript extensions (installed as packages in settings):
    the same extension commands, skills and prompt flow over RPC as Pi 1.6."""
    oracle.require_live_oracle(current=True)
    folder = oracle.require_live_oracle(current=True)
    results = {}
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / PI_CURRENT)])):
        with ScriptedProvider([{"text": "hi there"}]) as provider:
            box = Sandbox.create(tmp_path / who, provider.base_url)
            _install_packages(box)
            commands, messages = asyncio.run(_rpc_commands(box, command))
        results[who] = (
            sorted(
                (c["name"], c.get("description"), c["source"])
                for c in commands
                if c["source"] != "prompt"
                and not str((c.get("sourceInfo") or {}).get("path", "")).startswith(("<inline:", "builtin:"))
            ),
            [m["role"] for m in messages],
        )
    assert results["ours"] == results["pi"]
    names = [name for name, _description, _source in results["ours"][0]]
    assert {"chain-prompts", "prompt-tool", "clear", "exit"} <= set(names)


def test_without_node_each_typescript_extension_is_one_warning(tmp_path: Path) -> None:
    """No Node new enough and no npm: one warning per TypeScript extension, naming it and how to
    get Node; the package's skill still loads and the run exits 0."""
    no_node = tmp_path / "bin"
    no_node.mkdir()
    python_bin = Path(shutil.which("python3") or "/usr/bin/python3")
    (no_node / "python3").symlink_to(python_bin)
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        _install_packages(box)
        done = run_ours(
            box,
            "--model",
            OPENAI_MODEL,
            "-e",
            str(WEATHER),
            "-p",
            "hi",
            PATH=str(no_node),
            PI_NODE_CACHE=str(tmp_path / "empty-cache"),
        )
        body = provider.requests[0]["body"]
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr
    warnings = [line for line in done.stderr.splitlines() if "TypeScript extension" in line]
    assert len(warnings) == 3, done.stderr
    assert all(line.startswith("Warning: ") and "Node.js 22.19" in line for line in warnings)
    assert any(str(WEATHER) in line for line in warnings)
    assert "<name>prompt-template-authoring</name>" in _system({"body": body})  # the package's skill


def test_the_node_runtime_is_pinned_and_new_enough() -> None:
    """Node 22.19+ and the pinned Pi install the host loads extensions with."""
    from pi_coding_agent.core.node_runtime import PI_VERSION, ensure_node_runtime, node_version

    first = ensure_node_runtime()
    manifest = json.loads((Path(first.pi_root) / "package.json").read_text(encoding="utf-8"))
    assert manifest["version"] == PI_VERSION
    version = node_version(first.node)
    assert version is not None and version >= (22, 19, 0)


def _rpc_until_answered(
    box: Sandbox,
    command: list[str],
    requests: list[dict[str, Any]],
    dialogs: dict[str, dict[str, Any]] | None = None,
) -> list[list[dict[str, Any]]]:
    """Send the RPC requests one at a time, each once the one before has its response, reading
    records until then (answering the dialogs named in ``dialogs`` by method); then end the
    input. The records of each request."""
    process = subprocess.Popen(
        [*command, "--mode", "rpc", "--model", OPENAI_MODEL, "-e", str(WEATHER)],
        cwd=box.work,
        env={**box.env(), "PI_NODE_CACHE": node_cache()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    answered: list[list[dict[str, Any]]] = []
    for request in requests:
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        records: list[dict[str, Any]] = []
        for line in process.stdout:
            records.append(json.loads(line))
            record = records[-1]
            if record.get("type") == "extension_ui_request" and record.get("method") in (dialogs or {}):
                answer = {
                    "type": "extension_ui_response",
                    "id": record["id"],
                    **(dialogs or {})[record["method"]],
                }
                process.stdin.write(json.dumps(answer) + "\n")
                process.stdin.flush()
            if record.get("id") == request["id"] and record.get("type") == "response":
                break
        answered.append(records)
    process.stdin.close()
    process.wait(timeout=60)
    return answered


def _ui_and_responses(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The UI requests and the response, without the UI requests' own ids."""
    return [
        {k: v for k, v in record.items() if k != "id" or record.get("type") == "response"}
        for record in records
        if record.get("type") in ("extension_ui_request", "response")
    ]


def test_typescript_commands_over_rpc_notify_and_ask_like_pi(tmp_path: Path) -> None:
    """Two prompts to one RPC process each. ``/forecast`` runs in Node; its ``ctx.ui.notify`` is
    an ``extension_ui_request`` and the prompt is ``handled``. ``ctx.ui.select`` in ``/pick`` is
    a ``select`` request to the RPC client; the client's answer reaches the command. As with
    Pi 1.6."""
    folder = oracle.require_live_oracle(current=True)
    seen = {}
    requests = [
        {"id": "1", "type": "prompt", "message": "/forecast Oslo"},
        {"id": "2", "type": "prompt", "message": "/pick"},
    ]
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / PI_CURRENT)])):
        with ScriptedProvider([{"text": "unused"}]) as provider:
            box = Sandbox.create(tmp_path / who, provider.base_url)
            answered = _rpc_until_answered(box, command, requests, {"select": {"value": "Lima"}})
        seen[who] = [_ui_and_responses(records) for records in answered]
    assert seen["ours"] == seen["pi"]
    forecast, pick = seen["ours"]
    assert forecast[0]["message"] == "forecast for Oslo"
    assert [record.get("method") for record in pick[:2]] == ["select", "notify"]
    assert pick[1]["message"] == "picked Lima"


def test_pi_install_npm_puts_the_package_in_pis_layout(tmp_path: Path) -> None:
    """``pi install npm:pi-aliases@1.0.7`` runs ``npmCommand`` (here a logging wrapper around npm)
    into ``<agent dir>/npm`` as Pi does; the package's TypeScript commands then load, ``pi list``
    names it, ``pi remove`` uninstalls it."""
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed for this test"
    log = tmp_path / "npm-calls.log"
    wrapper = tmp_path / "npm-wrapper.sh"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {npm} "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    with ScriptedProvider([{"text": "hi"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url, {"npmCommand": [str(wrapper)]})
        # npm reaches the registry as it does outside the sandbox (a CA bundle the machine sets).
        certificates = {
            k: os.environ[k] for k in ("NODE_EXTRA_CA_CERTS", "npm_config_cafile") if k in os.environ
        }
        env = {"PI_NODE_CACHE": node_cache(), **certificates}
        done = run_ours(box, "install", "npm:pi-aliases@1.0.7", timeout=300, **env)
        assert done.returncode == 0, done.stderr
        installed = box.agent_dir / "npm" / "node_modules" / "pi-aliases" / "package.json"
        assert json.loads(installed.read_text(encoding="utf-8"))["version"] == "1.0.7"
        assert (
            json.loads((box.agent_dir / "npm" / "package.json").read_text(encoding="utf-8"))["name"]
            == "pi-extensions"
        )
        assert "install pi-aliases@1.0.7 --prefix" in log.read_text(encoding="utf-8")
        settings = json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))
        assert settings["packages"] == ["npm:pi-aliases@1.0.7"]
        listed = run_ours(box, "list", **env)
        assert "npm:pi-aliases@1.0.7" in listed.stdout, listed.stdout
        commands, _messages = asyncio.run(_rpc_commands(box, [str(OUR_PI)]))
        assert {"clear", "exit"} <= {c["name"] for c in commands if c["source"] == "extension"}
        removed = run_ours(box, "remove", "npm:pi-aliases", timeout=300, **env)
        assert removed.returncode == 0, removed.stderr
        assert not installed.exists()
        assert json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))["packages"] == []


def test_a_typescript_dialog_in_the_terminal_ui(tmp_path: Path) -> None:
    """In our TUI, ``/pick`` (a TypeScript command) shows its ``select`` dialog; the choice made
    with the keys reaches the command, whose ``notify`` is drawn."""
    from tests.support.pty_terminal import Pty

    with ScriptedProvider([{"text": "unused"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        env = box.env(TERM="xterm-256color", PI_NODE_CACHE=node_cache())
        program = Pty([str(OUR_PI), "--model", OPENAI_MODEL, "-e", str(WEATHER)], box.work, env)
        try:
            program.wait_for("scripted-model")
            mark = program.mark()
            program.write("/pick")
            program.wait_for("/pick", mark)
            program.write("\r")
            program.wait_for("Which city?", mark)
            program.write("\x1b[B")
            program.write("\r")
            program.wait_for("picked Lima", mark)
        finally:
            program.close()


@pytest.mark.parametrize("typescript_first", [True, False])
def test_a_tool_registered_by_both_kinds_is_a_conflict_of_the_later_one(
    tmp_path: Path, typescript_first: bool
) -> None:
    """Python and TypeScript extensions load in the order given; the later registration of a
    tool name is the one reported (Pi's words), and the run does not start."""
    twin = WEATHER.parent / "weather_twin.py"
    order = [WEATHER, twin] if typescript_first else [twin, WEATHER]
    with ScriptedProvider([{"text": "unused"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        args = [arg for path in order for arg in ("-e", str(path))]
        done = run_ours(
            box, "--model", OPENAI_MODEL, *args, "-p", "hi", timeout=120, PI_NODE_CACHE=node_cache()
        )
    first, second = order
    assert done.returncode == 1
    assert f'Failed to load extension "{second}": Tool "weather" conflicts with {first}' in done.stderr, (
        done.stderr
    )


def _abort_then_clear(box: Sandbox, command: list[str]) -> dict[str, Any]:
    """A TS tool waiting on its signal, aborted by the client; then ``/clear`` (pi-aliases:
    ``ctx.newSession()``) and the messages left."""
    aliases = npm_package("pi-aliases", "1.0.7") / "src" / "index.ts"
    process = subprocess.Popen(
        [*command, "--mode", "rpc", "--model", OPENAI_MODEL, "-e", str(WEATHER), "-e", str(aliases)],
        cwd=box.work,
        env={**box.env(), "PI_NODE_CACHE": node_cache()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    def until(done: Any) -> list[dict[str, Any]]:
        records = []
        for line in stdout:
            records.append(json.loads(line))
            if done(records[-1]):
                break
        return records

    send({"id": "1", "type": "prompt", "message": "wait"})
    until(lambda record: record.get("type") == "tool_execution_update")  # the tool runs
    send({"id": "2", "type": "abort"})
    ended = [
        r
        for r in until(lambda record: record.get("type") == "agent_end")
        if r["type"] == "tool_execution_end"
    ]
    send({"id": "3", "type": "prompt", "message": "/clear"})
    until(lambda record: record.get("id") == "3")
    send({"id": "4", "type": "get_messages"})
    messages = until(lambda record: record.get("id") == "4")[-1]["data"]["messages"]
    stdin.close()
    process.wait(timeout=60)
    return {"tool_end": [(r["result"], r["isError"]) for r in ended], "messages_after_clear": messages}


def test_abort_reaches_a_typescript_tool_and_a_command_replaces_the_session_like_pi(tmp_path: Path) -> None:
    folder = oracle.require_live_oracle(current=True)
    seen = {}
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / PI_CURRENT)])):
        turns = [{"tool_calls": [{"id": "c1", "name": "wait_for_abort", "arguments": {}}]}, {"text": "after"}]
        with ScriptedProvider(turns) as provider:
            seen[who] = _abort_then_clear(Sandbox.create(tmp_path / who, provider.base_url), command)
    assert seen["ours"] == seen["pi"]
    assert seen["ours"]["tool_end"][0][0]["content"][0]["text"] == "stopped by the abort"
    assert seen["ours"]["messages_after_clear"] == []


def _prompt_then(
    box: Sandbox, command: list[str], follow_up: str, *, to_model: bool = False
) -> list[dict[str, Any]]:
    """One prompt to the model, then ``follow_up`` (a command; ``to_model``: a prompt, read until
    its run ends); the records of the second."""
    process = subprocess.Popen(
        [*command, "--mode", "rpc", "--model", OPENAI_MODEL, "-e", str(WEATHER), "--units", "imperial"],
        cwd=box.work,
        env={**box.env(), "PI_NODE_CACHE": node_cache()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    records: list[dict[str, Any]] = []
    process.stdin.write(json.dumps({"id": "1", "type": "prompt", "message": "hello"}) + "\n")
    process.stdin.flush()
    for line in process.stdout:
        if json.loads(line).get("type") == "agent_end":
            break
    process.stdin.write(json.dumps({"id": "2", "type": "prompt", "message": follow_up}) + "\n")
    process.stdin.flush()
    for line in process.stdout:
        records.append(json.loads(line))
        if records[-1].get("type") == "agent_end" if to_model else records[-1].get("id") == "2":
            break
    process.stdin.close()
    process.wait(timeout=60)
    return records


def test_the_synchronous_getters_see_the_session_as_in_pi(tmp_path: Path) -> None:
    """``ctx.model``, ``pi.getActiveTools()``, ``pi.getThinkingLevel()``, ``pi.getFlag()`` and
    ``ctx.sessionManager`` (entries, branch, leaf) read in a TypeScript command after one turn:
    the same as in Pi 1.6."""
    folder = oracle.require_live_oracle(current=True)
    seen = {}
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / PI_CURRENT)])):
        with ScriptedProvider([{"text": "hi"}]) as provider:
            records = _prompt_then(Sandbox.create(tmp_path / who, provider.base_url), command, "/inspect")
        notes = [
            r["message"]
            for r in records
            if r.get("type") == "extension_ui_request" and r["method"] == "notify"
        ]
        seen[who] = json.loads(notes[0])
    assert seen["ours"] == seen["pi"]
    assert seen["ours"]["branchRoles"] == ["system", "user", "assistant"]  # 1.6 stores the system prompt
    assert seen["ours"]["flag"] == "imperial"
    assert seen["ours"]["model"] == OPENAI_MODEL and "weather" in seen["ours"]["activeTools"]


def test_context_and_pi_actions_of_a_typescript_extension_like_pi(tmp_path: Path) -> None:
    """The ``context`` handler drops a message from what the model gets (the session keeps it);
    ``/actions`` runs ``pi.exec``, ``ctx.ui.setStatus``, ``pi.sendMessage`` and ``pi.setModel``:
    the RPC records and the next request are Pi 1.6's."""
    folder = oracle.require_live_oracle(current=True)
    seen = {}
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / PI_CURRENT)])):
        with ScriptedProvider([{"text": "first"}, {"text": "second"}]) as provider:
            box = Sandbox.create(tmp_path / who, provider.base_url)
            _prompt_then(box, command, "SECRET plan", to_model=True)
            requests = list(provider.requests)
            assert len(requests) == 2, who
            records = _prompt_then_state(box, command)
        seen[who] = {
            # The text only: ours sends a lone text part as a string, 1.6 as a list (not this issue's).
            "second_request_users": [
                _text(m["content"]) for m in requests[-1]["body"]["messages"] if m["role"] == "user"
            ],
            "records": records,
        }
    assert seen["ours"] == seen["pi"], seen
    assert seen["ours"]["second_request_users"] == ["hello"]  # "SECRET plan" never reached the model
    assert seen["ours"]["records"][-1] == "scripted-claude"


def _text(content: Any) -> str:
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def _prompt_then_state(box: Sandbox, command: list[str]) -> list[Any]:
    process = subprocess.Popen(
        [*command, "--mode", "rpc", "--model", OPENAI_MODEL, "-e", str(WEATHER)],
        cwd=box.work,
        env={**box.env(), "PI_NODE_CACHE": node_cache()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    shown: list[Any] = []
    for request in ({"id": "1", "type": "prompt", "message": "/actions"}, {"id": "2", "type": "get_state"}):
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        for line in process.stdout:
            record = json.loads(line)
            if record.get("type") == "extension_ui_request":
                shown.append({k: v for k, v in record.items() if k != "id"})
            elif record.get("type") == "message_end" and record["message"].get("role") == "custom":
                shown.append({k: record["message"].get(k) for k in ("customType", "content", "display")})
            elif record.get("id") == request["id"]:
                data = record.get("data") or {}
                shown.append(data["model"]["id"] if "model" in data else record.get("success"))
                break
    process.stdin.close()
    process.wait(timeout=60)
    return shown
