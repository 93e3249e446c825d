"""``/llama`` next to Pi 1.6's (``pi-cli-current``), both in tmux against the same stand-in
llama.cpp router: the model list and the question before a load look the same (ours adds
the embedded models, ``local/...``, which Pi does not have); ``/login llama.cpp`` next to Pi
0.85's and Pi 1.6's asks, answers and stores alike; RPC ``get_commands`` lists
``/llama`` as Pi 1.6 does, and a ``/llama`` prompt over RPC is answered with Pi's warning while
the TUI's own commands (``/settings``, ``/model``...) go to the model, as in Pi."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.app.interactive._scenario import launch
from tests.pi_coding_agent.app.rpc._support import MODEL_ARGS, make_sandbox, our_pi
from tests.pi_coding_agent.e2e._harness import Sandbox
from tests.support import oracle
from tests.support.llama_router import LlamaRouter, llama_router

pytestmark = pytest.mark.timeout(300)

MODELS = [
    {"id": "coder-q4", "status": {"value": "loaded"}, "meta": {"n_ctx": 32768}},
    {"id": "big-q8", "status": {"value": "unloaded"}},
    {"id": "fetching", "status": {"value": "downloading"}},
]


def _frame(screen: str) -> list[str]:
    lines = [line.rstrip() for line in screen.splitlines()]
    start = max(
        i
        for i, line in enumerate(lines)
        if line.startswith(" llama.cpp models") or line.endswith("is loaded")
    )
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("─"))
    return [line for line in lines[start:end] if not line.lstrip("→ ").startswith("local/")]


def _screens(tmp_path: Path, which: str, router: LlamaRouter) -> list[list[str]]:
    def signed_in(sandbox: Sandbox) -> None:
        credential = {"type": "api_key", "env": {"LLAMA_BASE_URL": router.base_url}}
        path = sandbox.agent_dir / "auth.json"
        path.write_text(json.dumps({"llama.cpp": credential}), encoding="utf-8")
        path.chmod(0o600)

    screens = []
    with launch(
        tmp_path / which, which, [], before=signed_in, env={"PI_LOCAL_CACHE": str(tmp_path / "none")}
    ) as run:
        run.pane.type("/llama")
        run.pane.wait_for("Manage llama.cpp router models")
        run.pane.send("Enter")
        screens.append(_frame(run.pane.wait_for("Download model…")))
        run.pane.send("Down", "Enter")
        screens.append(_frame(run.pane.wait_for("Keep loaded and load")))
        run.pane.send("Escape")
        run.pane.wait_for("Download model…")
        run.pane.send("Escape")
        run.pane.wait_until_gone("llama.cpp models")
    return screens


def test_the_model_list_and_the_load_question_look_like_pi_16(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    with llama_router(MODELS) as router:
        ours = _screens(tmp_path, "ours", router)
        pis = _screens(tmp_path, "pi16", router)
    assert ours == pis
    assert pis[0][3:6] == [
        "→ coder-q4                            loaded · 33k context",
        "  big-q8",
        "  fetching                            downloading",
    ]
    assert [path for method, path, _ in router.requests if method == "POST"] == []


async def _commands(box: Sandbox, command: list[str]) -> list[dict[str, Any]]:
    async with RpcClient(command, args=MODEL_ARGS, cwd=box.work, env=box.env()) as client:
        return [dict(c) for c in await client.get_commands()]


def test_rpc_lists_llama_as_pi_16_does(tmp_path: Path) -> None:
    folder = oracle.require_live_oracle(current=True)
    answers = []
    for name, command in (("ours", [str(our_pi())]), ("pi16", [str(folder / "pi-cli-current")])):
        box = make_sandbox(tmp_path / name, "http://127.0.0.1:9", {"retry": {"enabled": False}})
        answers.append(asyncio.run(_commands(box, command)))
    ours, pis = answers
    assert ours[0] == pis[0] == {
        "name": "llama", "description": "Manage llama.cpp router models", "source": "extension",
        "sourceInfo": {"path": "builtin:llama.cpp", "source": "builtin", "scope": "temporary", "origin": "top-level"},
    }  # fmt: skip


async def _answers_to_commands(box: Sandbox, command: list[str], prompts: list[str]) -> list[Any]:
    """Each prompt's disposition, and what the agent told the user about it (``notify``)."""
    async with RpcClient(command, args=MODEL_ARGS, cwd=box.work, env=box.env()) as client:
        told: list[dict[str, Any]] = []
        client.on_message(lambda data: told.append(data) if data.get("method") == "notify" else None)
        answers: list[Any] = []
        for text in prompts:
            async with client.events() as events:
                disposition = await client.prompt(text)
                if disposition != "handled":
                    async for event in events:
                        if event.get("type") == "agent_settled":
                            break
            await client.get_state()  # a round trip: a notify written before the answer has arrived
            answers.append((text, disposition, [(t["message"], t.get("notifyType")) for t in told]))
            told.clear()
        return answers


def test_rpc_answers_llama_as_pi_16_and_sends_other_tui_commands_to_the_model(tmp_path: Path) -> None:
    folder = oracle.require_live_oracle(current=True)
    prompts = ["/llama", "/llama list", "/settings", "/debug", "/model"]
    answers = []
    for name, command in (("ours", [str(our_pi())]), ("pi16", [str(folder / "pi-cli-current")])):
        box = make_sandbox(tmp_path / name, "http://127.0.0.1:9", {"retry": {"enabled": False}})
        answers.append(asyncio.run(_answers_to_commands(box, command, prompts)))
    ours, pis = answers
    assert ours == pis
    assert pis[0] == ("/llama", "handled", [("/llama is available in interactive mode", "warning")])
    assert pis[2] == ("/settings", "started", [])


def _url_frame(screen: str) -> list[str]:
    """The sign-in's question, from its title to the hint under the input."""
    lines = [line.rstrip() for line in screen.splitlines()]
    start = next(i for i, line in enumerate(lines) if "llama.cpp server URL" in line)
    end = next(i for i in range(start, len(lines)) if "to submit" in lines[i])
    return lines[start : end + 1]


def _sign_in(tmp_path: Path, which: str, router: LlamaRouter) -> tuple[list[str], list[str], str]:
    """``/login llama.cpp`` twice (a wrong key, then the right one): the URL question's frame,
    each outcome line, and the ``auth.json`` left."""
    outcomes = []
    with launch(tmp_path / which, which, [], env={"PI_LOCAL_CACHE": str(tmp_path / "none")}) as run:
        for key, outcome in (("wrong", "Failed to save API key"), ("sekrit", "Saved API key")):
            run.pane.type("/login llama.cpp")
            run.pane.wait_for("→ llama.cpp")
            run.pane.send("Enter")
            run.pane.wait_until_gone("→ llama.cpp")
            run.pane.send("Enter")
            frame = _url_frame(run.pane.wait_for("llama.cpp server URL"))
            run.pane.type(router.base_url + "/v1/")
            run.pane.send("Enter")
            run.pane.wait_for("API key (optional)")
            run.pane.type(key)
            run.pane.send("Enter")
            screen = run.pane.wait_for(outcome)
            outcomes += [line.strip() for line in screen.splitlines() if outcome in line][-1:]
        stored = (run.sandbox.agent_dir / "auth.json").read_text(encoding="utf-8")
    return frame, outcomes, stored


def test_login_llama_cpp_beside_pi(tmp_path: Path) -> None:
    """Pi 0.85 and Pi 1.6 both: the same question, outcomes and stored entry; the URL's
    placeholder is Pi 1.6's (``:9931``, the port Pi 1.6 moved to; Pi 0.85 shows ``:8080``)."""
    oracle.require_live_oracle()
    oracle.require_live_oracle(current=True)
    with llama_router(MODELS) as router:
        router.api_key = "sekrit"
        sides = {which: _sign_in(tmp_path, which, router) for which in ("ours", "pi", "pi16")}
    frames = {which: frame for which, (frame, _, _) in sides.items()}
    assert (
        frames["ours"]
        == frames["pi16"]
        == [
            " llama.cpp server URL",
            " e.g., http://127.0.0.1:9931",
            ">",
            " (escape/ctrl+c to cancel, enter to submit)",
        ]
    )
    assert frames["pi"] == [line.replace(":9931", ":8080") for line in frames["ours"]]
    for _, outcomes, stored in sides.values():
        assert outcomes == [
            "Error: Failed to save API key for llama.cpp: Invalid API Key",
            "Saved API key for llama.cpp. Credentials saved to",  # the path wraps onto the next line
        ]
        assert stored == sides["pi"][2]  # byte for byte
    assert json.loads(sides["pi"][2]) == {
        "llama.cpp": {"type": "api_key", "key": "sekrit", "env": {"LLAMA_BASE_URL": router.base_url}}
    }
