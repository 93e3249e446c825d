"""The published ``pi-subagents`` package (0.67.0, fetched from npm once into a cache) run by ours
as by Pi 1.6 (``pi-cli-current``): its ``subagent`` tool in print and RPC modes.

One scripted provider on 127.0.0.1 answers both the parent and the child agent (told apart by
the system prompt of the child, pi-subagents' ``delegate`` agent). A foreground run
(``async: false``) runs the child to its answer, which comes back in the tool result; a
background run (``async: true``) is refused by pi-subagents on Pi 1.6's install (it lacks
packages the detached runner aliases), and refused the same way here. Compared: what the user
and the model see (the final text, the tool results).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, OUR_PI, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.npm_packages import node_cache, npm_package
from tests.support.scripted_provider import ScriptedProvider, Turn

CHILD_ANSWER = "CHILD-SAYS-42"
pytestmark = pytest.mark.timeout(300)  # two agent runs with a child each, and the one-time npm fetch


@pytest.fixture(scope="module", autouse=True)
def _node_runtime_ready() -> None:
    from pi_coding_agent.core.node_runtime import ensure_node_runtime

    ensure_node_runtime()


@pytest.fixture(scope="module")
def subagents() -> Path:
    return npm_package("pi-subagents", "0.67.0")


def _system(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def _route(*backgrounds: bool) -> Any:
    """The parent calls ``subagent`` once a prompt (``async`` as given, in order), then answers."""
    parent: list[Turn] = []
    for number, background in enumerate(backgrounds, 1):
        call = {"agent": "delegate", "task": "Say the number", "async": background}
        parent += [
            {"tool_calls": [{"id": f"c{number}", "name": "subagent", "arguments": call}]},
            {"text": "parent done"},
        ]

    def route(body: dict[str, Any]) -> tuple[str, list[Turn]]:
        if "You are a delegated agent" in _system(body):
            return "child", [{"text": CHILD_ANSWER}]
        return "parent", parent

    return route


def _sandbox(root: Path, base_url: str, package: Path) -> Sandbox:
    box = Sandbox.create(root, base_url)
    settings = json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))
    settings["packages"] = [str(package)]
    (box.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return box


def _same_for_both(text: str) -> str:
    """A run's own ids and the folder of the Pi install it used left out."""
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", text)
    return re.sub(r"/\S*/node_modules/@earendil-works/pi-coding-agent", "<pi>", text)


def _tool_results(requests: list[dict[str, Any]]) -> list[str]:
    parent = [r["body"] for r in requests if "You are a delegated agent" not in _system(r["body"])]
    return [_same_for_both(str(m["content"])) for m in parent[-1]["messages"] if m["role"] == "tool"]


def _package_warning(stderr: str) -> list[tuple[str, bool]]:
    """Each start-up warning about a package's ``dependencies``: what it names up to the message
    (``Warning: Extension package "<package.json>"``) and whether it names ``typebox`` (the
    wording is ours: docs/extensions.md)."""
    found = re.findall(r'^(Warning: Extension package "[^"]+"): (.*)$', stderr, re.MULTILINE)
    return [(head, "typebox" in message and "peerDependencies" in message) for head, message in found]


def _print_run(tmp_path: Path, package: Path) -> dict[str, Any]:
    """One print run, two prompts: a foreground subagent call, then a background one."""
    folder = oracle.require_live_oracle(current=True)
    assert folder.is_dir()
    seen: dict[str, Any] = {}
    for who in ("ours", "pi"):
        with ScriptedProvider([], route=_route(False, True)) as provider:
            box = _sandbox(tmp_path / who, provider.base_url, package)
            args = ("--model", OPENAI_MODEL, "-p", "delegate please", "delegate in the background")
            if who == "ours":
                done = run_ours(box, *args, timeout=240, PI_NODE_CACHE=node_cache())
            else:
                done = run_pi(box, *args, timeout=240, current=True)
            assert done.returncode == 0, (who, done.stderr[-2000:])
            requests = list(provider.requests)
        seen[who] = {
            "stdout": done.stdout.strip(),
            "results": _tool_results(requests),
            "child_requests": sum("You are a delegated agent" in _system(r["body"]) for r in requests),
            "warnings": _package_warning(done.stderr),
        }
    return seen


def test_foreground_and_background_subagents_in_print_mode_as_in_pi(tmp_path: Path, subagents: Path) -> None:
    """``async: false``: the child agent runs to its answer, which is the tool's result.
    ``async: true`` (the run's second prompt): pi-subagents looks for Pi's package from
    ``process.argv[1]`` and finds the one the host loads; the runner's aliases are missing in
    Pi 1.6's install, so both refuse with the same message (no child request is made).

    pi-subagents lists ``typebox`` under ``dependencies`` (Pi provides it): Pi 1.6 warns once at
    start, on stderr, naming the package's ``package.json``; so do we (the terminal UI's
    ``[Extension issues]``: the terminal UI test below)."""
    seen = _print_run(tmp_path, subagents)
    assert seen["ours"] == seen["pi"]
    assert seen["ours"]["warnings"] == [(f'Warning: Extension package "{subagents / "package.json"}"', True)]
    assert seen["ours"]["stdout"] == "parent done"
    assert seen["ours"]["child_requests"] == 1  # the foreground call's
    foreground, background = seen["ours"]["results"]
    assert CHILD_ANSWER in foreground
    assert "does not provide @earendil-works/pi-agent-core/node" in background


async def _rpc_messages(box: Sandbox, command: list[str]) -> list[dict[str, Any]]:
    env = {**box.env(), "PI_NODE_CACHE": node_cache()}
    async with RpcClient(command, args=["--model", OPENAI_MODEL], cwd=box.work, env=env) as client:
        await asyncio.wait_for(client.prompt_and_wait("delegate please"), 180)
        return list(await client.get_messages())


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if part.get("type") == "text")


def test_a_foreground_subagent_answers_over_rpc_as_in_pi(tmp_path: Path, subagents: Path) -> None:
    """Over RPC the prompt completes and the session's messages (tool result, final text) are
    those of Pi 1.6."""
    folder = oracle.require_live_oracle(current=True)
    seen = {}
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / "pi-cli-current")])):
        with ScriptedProvider([], route=_route(False)) as provider:
            box = _sandbox(tmp_path / who, provider.base_url, subagents)
            messages = asyncio.run(_rpc_messages(box, command))
        seen[who] = [
            (m["role"], _same_for_both(_content_text(m.get("content"))))
            for m in messages
            if m["role"] in ("toolResult", "assistant")
        ]
    assert seen["ours"] == seen["pi"]
    assert seen["ours"][-1] == ("assistant", "parent done")
    assert CHILD_ANSWER in seen["ours"][1][1]


def _subagent_box(screen: str) -> list[str]:
    """The lines of the subagent's result box, without its timing and the session paths."""
    lines = [line.strip() for line in screen.split("\n")]
    start = next(i for i, line in enumerate(lines) if line.startswith("✓ delegate"))
    box = [re.sub(r" · [\d.]+m?s$", "", lines[start])]
    return box + [line for line in lines[start + 1 : start + 3] if line]


def test_a_foreground_subagent_answers_in_the_terminal_ui_as_in_pi(tmp_path: Path, subagents: Path) -> None:
    """In the TUI the run finishes and the tool's result box (pi-subagents' renderer, drawn in
    Node) shows the child's answer as Pi 1.6's does; the footer's token totals include the
    child's. At start, ``[Extension issues]`` names the package's ``package.json`` (its
    ``typebox`` dependency, which Pi provides), as in Pi 1.6."""
    from tests.pi_coding_agent.app.interactive._scenario import launch

    seen = {}
    for which in ("ours", "pi16"):
        with launch(tmp_path / which, which, [], route=_route(False), settings={"packages": [str(subagents)]},
                    height=50, env={"PI_NODE_CACHE": node_cache()}) as run:  # fmt: skip
            lines = [line.strip() for line in run.pane.wait_for("[Extension issues]").split("\n")]
            seen[f"{which} issue"] = lines[lines.index("[Extension issues]") + 1]
            run.submit("delegate please")
            run.pane.wait_for("parent done", limit=150)
            # the footer counts the last answer once it ended (it may show while still streaming)
            screen = run.pane.wait_until(lambda s: "↑30 ↓15" in s, "the footer never counted 30 tokens in", limit=30)
            seen[which] = _subagent_box(screen)
            seen[f"{which} tokens"] = re.findall(r"↑\S+ ↓\S+", screen)
    assert seen["ours"] == seen["pi16"]
    assert seen["ours issue"] == seen["pi16 issue"] == str(subagents / "package.json")
    # The footer's totals count the child's usage (the tool result's ``usage``) with the parent's.
    assert seen["ours tokens"] == seen["pi16 tokens"] == ["↑30 ↓15"]
    assert seen["ours"][0] == "✓ delegate (scripted-model) [fresh] · ⟳ 1 · 15 token"
    assert seen["ours"][-1] == CHILD_ANSWER


async def _rpc_command_messages(box: Sandbox, command: list[str], text: str) -> list[dict[str, Any]]:
    env = {**box.env(), "PI_NODE_CACHE": node_cache()}
    async with RpcClient(command, args=["--model", OPENAI_MODEL], cwd=box.work, env=env) as client:
        await asyncio.wait_for(client.prompt_and_wait(text), 180)
        return list(await client.get_messages())


def test_a_profile_check_starts_our_pi_as_a_child_process(tmp_path: Path, subagents: Path) -> None:
    """``/subagents-check-profile`` probes each model of a saved profile with a child ``pi -p``
    (pi-subagents' ``getPiSpawnCommand``): here that child is our ``pi`` (its request carries
    our user agent, Pi's carries Pi 1.6's), and the report is the one Pi 1.6 gives."""
    folder = oracle.require_live_oracle(current=True)
    seen = {}
    for who, command in (("ours", [str(OUR_PI)]), ("pi", [str(folder / "pi-cli-current")])):
        with ScriptedProvider([{"text": "OK"}]) as provider:
            box = _sandbox(tmp_path / who, provider.base_url, subagents)
            profiles = box.agent_dir / "profiles" / "pi-subagents"
            profiles.mkdir(parents=True)
            profile = {"subagents": {"agentOverrides": {"delegate": {"model": OPENAI_MODEL}}}}
            (profiles / "probe.json").write_text(json.dumps(profile), encoding="utf-8")
            messages = asyncio.run(_rpc_command_messages(box, command, "/subagents-check-profile probe"))
            agents = [str(r["headers"].get("user-agent")) for r in provider.requests]
        reports = [m["content"] for m in messages if m.get("customType") == "subagent-slash-text-result"]
        seen[who] = [report.replace(str(tmp_path / who), "<box>") for report in reports]
        seen[f"{who} child"] = agents
    assert seen["ours"] == seen["pi"]
    assert seen["ours"][0].endswith("delegate → scripted-openai/scripted-model — registry ok; probe ok (OK)")
    assert len(seen["ours child"]) == 1 and seen["ours child"][0].startswith("pi/1.6.0 (")
    assert seen["pi child"][0].startswith("pi/1.6.0")
