"""``models.classify()`` with a ``llama.cpp`` model, ours against Pi 1.6's CLI on the same codemode
script: the classifiers ``/llama`` stored in ``models-store.json`` (a chat model and a decision
model) reached on the stand-in llama.cpp server (``tests/support/llama_router.py``) with a
stored ``llama.cpp`` credential. One run each checks: the classifiers listed and available,
the answers (a softmax over the labels' next-token log-probabilities), the requests the server
gets (``/tokenize`` bodies, ``/completion`` bodies but the prompt, deeper ``n_probs`` for a
label ranked low, ``/apply-template``'s roles and thinking switch, the user message's layout
around the state, the bearer key), and what fails (images, a one-option choice, a decision
model's System One call to ``/v1/systemone``). Error texts and the prompt's wording are ours."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.core.local_model import catalog_entry
from pi_coding_agent.core.local_model._llama_server import parse_model
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support.llama_router import LlamaRouter, llama_router
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(300)

MODELS = [
    {"id": "chatty", "status": {"value": "loaded"}, "meta": {"n_ctx": 8192}},
    {
        "id": "judge",
        "status": {"value": "loaded"},
        "architecture": {"input_modalities": ["text", "image"], "output_modalities": ["decisions"]},
    },
]
LOGPROBS = {"A": -0.2, "B": -1.8, "C": -2.5, "0": -2.0, "1": -0.1, "2": -3.0, "Yes": -0.3, "No": -1.4}

CODE = """// @options: {"max_output_tokens": 100000}
const png = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
const questions = {
  mood: { type: "choice", instructions: "How does the writer feel?", criteria: { glad: "Pleased", sad: "", angry: "Cross" } },
  level: { type: "score", instructions: "How urgent?", criteria: ["low", "mid", "high"] },
  spam: { type: "bool", instructions: "Is it spam?", criteria: { true: "Unsolicited", false: "" } },
};
const listed = await models.getModelsOfType("classifier", "llama.cpp");
const available = (await models.getAvailableOfType("classifier")).filter((m) => m.provider === "llama.cpp");
const chatty = listed.find((m) => m.id === "chatty");
const outcome = async (call) => {
  try { const r = await call(); return { stopReason: r.stopReason, answers: r.answers, failed: r.errorMessage !== undefined }; }
  catch (error) { return { threw: error instanceof Error }; }
};
const answered = await models.classify(chatty, { state: { message: "Works great", n: [1, 2] }, questions });
const withImage = await outcome(() => models.classify(chatty, { state: {}, images: [png], questions: { spam: questions.spam } }));
const oneOption = await outcome(() => models.classify(chatty, { state: {}, questions: { q: { type: "choice", instructions: "?", criteria: { only: "x" } } } }));
const decided = await outcome(() => models.classify({ provider: "llama.cpp", id: "judge" }, { state: { m: 1 }, images: [png], questions: { spam: questions.spam } }));
return { listed, available, answered: { ...answered, timestamp: 0 }, withImage, oneOption, decided };"""


def _run(tmp_path: Path, program: str, router: LlamaRouter) -> dict[str, Any]:
    script = [
        {"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": CODE}}]},
        {"text": "done"},
    ]
    router.requests.clear()
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path / program, provider.base_url)
        parsed = [model for model in map(parse_model, MODELS) if model is not None]
        store = {"llama.cpp": {"models": catalog_entry(router.base_url, parsed, set(), {}), "checkedAt": 1}}
        (sandbox.agent_dir / "models-store.json").write_text(json.dumps(store), encoding="utf-8")
        credential = {"type": "api_key", "key": "sk-l", "env": {"LLAMA_BASE_URL": router.base_url}}
        auth = sandbox.agent_dir / "auth.json"
        auth.write_text(json.dumps({"llama.cpp": credential}), encoding="utf-8")
        auth.chmod(0o600)
        args = ("--model", OPENAI_MODEL, "--tools", "+codemode", "-p", "go")
        done = run_pi(sandbox, *args, current=True) if program == "pi" else run_ours(sandbox, *args)
        assert done.returncode == 0, done.stderr
        assert len(provider.requests) == 2, done.stderr
        text = provider.requests[1]["body"]["messages"][-1]["content"].replace(router.base_url, "<server>")
        found = re.search(r"\n(\{.*\})", text, re.S)
        assert found is not None, text
        return {
            "value": json.loads(found.group(1)),
            "requests": [(path, body) for method, path, body in router.requests if method == "POST"],
            "authorization": router.authorization,
        }


def _posts(run: dict[str, Any], path: str) -> list[Any]:
    return [body for at, body in run["requests"] if at == path]


def _without_prompt(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in body.items() if key != "prompt"} for body in bodies]


def _layout(body: dict[str, Any]) -> tuple[Any, ...]:
    """An ``/apply-template`` body but the wording: roles, switches, the state's two copies."""
    user = body["messages"][1]["content"]
    state = user.split("\n\n", 1)[0]
    return (
        body["model"],
        [message["role"] for message in body["messages"]],
        body["chat_template_kwargs"],
        state,
        user.count(state),
    )


def test_llama_classify_matches_pi_1_6(tmp_path: Path) -> None:
    with llama_router(MODELS) as router:
        router.logprobs, router.ranks = dict(LOGPROBS), {"C": 300}
        pi = _run(tmp_path, "pi", router)
        ours = _run(tmp_path, "ours", router)

    assert ours["value"] == pi["value"]
    value = ours["value"]
    assert [(m["id"], m["api"]) for m in value["listed"]] == [
        ("chatty", "llama-cpp-classify"),
        ("judge", "typesafe-system-one"),
    ]
    assert value["available"] == value["listed"]
    assert value["answered"]["stopReason"] == "stop"
    assert value["answered"]["answers"]["mood"]["choice"] == "glad"
    assert value["decided"]["stopReason"] == "error"  # the stand-in has no System One

    for path in ("/tokenize", "/completion"):
        key = (lambda body: json.dumps(body, sort_keys=True)) if path == "/tokenize" else None
        pis, ourss = _without_prompt(_posts(pi, path)), _without_prompt(_posts(ours, path))
        assert (sorted(ourss, key=key) if key else ourss) == (sorted(pis, key=key) if key else pis), path
    assert [body["n_probs"] for body in _posts(ours, "/completion")] == [256, 4096, 256, 256]
    assert [_layout(body) for body in _posts(ours, "/apply-template")] == [
        _layout(body) for body in _posts(pi, "/apply-template")
    ]
    assert all(body["prompt"].endswith("<think></think>") for body in _posts(ours, "/completion"))
    assert [path for path, _ in ours["requests"] if path.startswith("/v1")] == ["/v1/systemone"]
    systemone = _posts(ours, "/v1/systemone")
    assert systemone == _posts(pi, "/v1/systemone")
    assert systemone[0]["images"] == ["data:image/png;base64,iVBORw0KGgo="]
    assert ours["authorization"] == pi["authorization"] == "Bearer sk-l"
