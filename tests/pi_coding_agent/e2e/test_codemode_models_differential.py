"""The codemode ``models`` global, ours against Pi 1.6's CLI on the same script: the members of
``models``, the chat catalog of a built-in provider, a ``models.json`` model (with the defaults
Pi fills in), the available chat models (ours also has its embedded local models, left out
here: docs/codemode.md), that nothing of type ``classifier`` or ``image`` is available without
credentials, lookups that find nothing, and which calls reject. Error texts are in our own
words, so only whether a call rejected is compared."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.timeout(300)

CODE = """// @options: {"max_output_tokens": 100000}
const chat = await models.getModelsOfType("chat", "anthropic");
const custom = await models.getModelOfType("chat", "scripted-openai", "scripted-model");
const available = (await models.getAvailableOfType("chat")).filter((m) => m.provider !== "local");
const rejects = [];
for (const call of [
  () => models.getModelsOfType("video"),
  () => models.getModelOfType("chat", "anthropic"),
  () => models.classify(custom, { state: {}, questions: {} }),
  () => models.generateImages({ provider: "anthropic", id: chat[0].id }, { input: [] }),
  () => models.getModelsOfType("chat", 5),
]) {
  try { await call(); rejects.push(false); } catch (error) { rejects.push(error instanceof Error); }
}
return {
  members: Object.keys(models).map((name) => [name, typeof models[name]]),
  chat,
  custom,
  available: available.map((m) => `${m.provider}/${m.id}`),
  classifiers: await models.getAvailableOfType("classifier"),
  images: await models.getAvailableOfType("image"),
  missing: (await models.getModelOfType("chat", "anthropic", "no-such-model")) ?? null,
  wrongType: (await models.getModelOfType("image", "anthropic", chat[0].id)) ?? null,
  rejects,
};"""


def _run(tmp_path: Path, program: str) -> tuple[int, Any, str]:
    script = [{"tool_calls": [{"id": "call_1", "name": "codemode", "arguments": {"code": CODE}}]}, {"text": "done"}]
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path / program, provider.base_url)
        args = ("--model", OPENAI_MODEL, "--no-session", "--tools", "+codemode", "-p", "go")
        done = run_pi(sandbox, *args, current=True) if program == "pi" else run_ours(sandbox, *args)
        if len(provider.requests) < 2:
            return done.returncode, None, done.stderr
        text = provider.requests[1]["body"]["messages"][-1]["content"]
        found = re.search(r"Output:\n+(\{.*\})", text, re.S)
        assert found is not None, text
        value = json.loads(found.group(1))
        value["custom"]["baseUrl"] = "<provider>"  # each run has its own scripted provider
        return done.returncode, value, done.stderr


def test_models_global_matches_pi_1_6(tmp_path: Path) -> None:
    pi_code, pi_value, pi_err = _run(tmp_path, "pi")
    our_code, our_value, our_err = _run(tmp_path, "ours")
    assert (our_code, pi_code) == (0, 0), (our_err, pi_err)
    assert our_value == pi_value
    assert [name for name, _ in our_value["members"]] == [
        "getModelsOfType", "getAvailableOfType", "getModelOfType", "classify", "generateImages",
    ]  # fmt: skip
    assert our_value["available"] == ["scripted-openai/scripted-model", "scripted-anthropic/scripted-claude"]
    assert our_value["chat"] and all(model["provider"] == "anthropic" for model in our_value["chat"])
    assert our_value["rejects"] == [True] * 5
