"""The ``llama.cpp`` models in ``models-store.json``, shared with Pi 1.6: ``/llama`` stores what
the router offers as Pi's does (checked against the file Pi 1.6 writes for the same router, in
tmux), and the next start offers the stored models again without asking the router
(``--list-models``, ``--model llama.cpp/...``, as Pi 1.6 does from Pi's own file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.app.interactive._scenario import launch
from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.llama_router import LlamaRouter, llama_router

pytestmark = pytest.mark.timeout(300)

MODELS = [
    {"id": "coder-q4", "status": {"value": "loaded"}, "meta": {"n_ctx": 32768}},
    {
        "id": "thinker",
        "status": {"value": "loaded"},
        "chat_template": "{% if enable_thinking %}<think>{% endif %}",
    },
    {"id": "big-q8", "status": {"value": "unloaded"}},
    {
        "id": "sleepy",
        "status": {"value": "sleeping"},
        "architecture": {"input_modalities": ["text", "image"]},
    },
]


def _sign_in(sandbox: Sandbox, router: LlamaRouter) -> None:
    path = sandbox.agent_dir / "auth.json"
    credential = {"type": "api_key", "env": {"LLAMA_BASE_URL": router.base_url}}
    path.write_text(json.dumps({"llama.cpp": credential}), encoding="utf-8")
    path.chmod(0o600)


def _stored_by_llama(tmp_path: Path, which: str, router: LlamaRouter) -> tuple[dict[str, Any], int]:
    """``models-store.json`` after ``/llama`` lists the router's models; its mode bits."""
    env = {"PI_LOCAL_CACHE": str(tmp_path / "none")}
    with launch(tmp_path / which, which, [], before=lambda box: _sign_in(box, router), env=env) as run:
        run.pane.type("/llama")
        run.pane.wait_for("Manage llama.cpp router models")
        run.pane.send("Enter")
        run.pane.wait_for("Download model…")
        run.pane.send("Escape")
        run.pane.wait_until_gone("llama.cpp models")
        store = run.sandbox.agent_dir / "models-store.json"
        return json.loads(store.read_text(encoding="utf-8")), store.stat().st_mode & 0o777


def test_llama_stores_the_router_models_as_pi_16_does(tmp_path: Path) -> None:
    oracle.require_live_oracle(current=True)
    with llama_router(MODELS) as router:
        (ours, our_mode), (pis, pi_mode) = (
            _stored_by_llama(tmp_path, which, router) for which in ("ours", "pi16")
        )
        asked = [path for method, path, _ in router.requests if path.startswith("/props")]
    for store in (ours, pis):
        assert isinstance(store["llama.cpp"].pop("checkedAt"), int)
    assert ours == pis
    assert our_mode == pi_mode == 0o600
    models = pis["llama.cpp"]["models"]
    assert [(m.get("type", "chat"), m["id"]) for m in models] == [
        ("chat", "coder-q4"), ("chat", "thinker"), ("chat", "sleepy"),
        ("classifier", "coder-q4"), ("classifier", "thinker"), ("classifier", "sleepy"),
    ]  # fmt: skip
    assert models[1]["compat"]["thinkingFormat"] == "qwen-chat-template"
    # each loaded model's template was asked for, without loading it, by each of the two
    assert sorted(asked) == sorted(2 * [f"/props?model={m}&autoload=false" for m in ("coder-q4", "thinker")])


def test_the_stored_models_are_offered_at_start_as_pi_16_offers_them(tmp_path: Path) -> None:
    """Pi 1.6's own file (as ``/llama`` wrote it above, with a router that is gone now)."""
    with llama_router(MODELS) as router:
        pass  # only its URL: nothing may ask the router at start
    entry = {
        "models": [
            _pi_chat_model("coder-q4", router.base_url, 32768),
            _pi_chat_model("sleepy", router.base_url, 128000),
        ],
        "checkedAt": 1,
    }
    outputs = []
    for name, run in (("ours", run_ours), ("pi16", lambda box, *a, **k: run_pi(box, *a, current=True, **k))):
        box = Sandbox.create(tmp_path / name, "http://127.0.0.1:9")
        _sign_in(box, router)
        (box.agent_dir / "models-store.json").write_text(json.dumps({"llama.cpp": entry}), encoding="utf-8")
        listed = run(box, "--list-models", "llama")
        chosen = run(box, "--model", "llama.cpp/sleepy", "--mode", "rpc", stdin='{"type":"get_state"}\n')
        state = json.loads(chosen.stdout.splitlines()[0])["data"]["model"]
        outputs.append(
            (listed.returncode, listed.stdout, (state["provider"], state["id"], state["contextWindow"]))
        )
    ours, pis = outputs
    assert ours == pis
    assert "coder-q4" in pis[1] and "sleepy" in pis[1]
    assert pis[2] == ("llama.cpp", "sleepy", 128000)


def _pi_chat_model(model_id: str, server: str, context: int) -> dict[str, Any]:
    return {
        "id": model_id, "name": model_id, "api": "openai-completions", "provider": "llama.cpp",
        "baseUrl": f"{server}/v1", "reasoning": False, "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": context, "maxTokens": context,
        "compat": {"supportsStore": False, "supportsReasoningEffort": False, "supportsUsageInStreaming": True,
                   "supportsStrictMode": False, "maxTokensField": "max_tokens"},
    }  # fmt: skip
