"""A ``~/.pi/agent`` written for Pi 1.6 (its ``models.json`` keys, ``auth.json`` under ``azure``)
used by ours and by Pi 1.6 itself: the same request bodies and the same models.

``models.json`` is in 1.6's dialect (a ``//`` comment, trailing commas) and uses its new keys:
``samplingParamsByThinkingLevel`` (merged over ``samplingParams``, per thinking level, and
field by field from ``modelOverrides``), ``inputLimits`` and ``promptCache`` (accepted; they do
not change a text request). Each Pi runs once per thinking level against a scripted provider on
127.0.0.1 that records the bodies it receives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.oracle

MODELS_JSON = """{
  // written for Pi 1.6
  "providers": {
    "tuned": {
      "baseUrl": "%s/v1",
      "api": "openai-completions",
      "apiKey": "scripted-key",
      "compat": {"supportsDeveloperRole": false},
      "models": [
        {
          "id": "sampler",
          "reasoning": true,
          "samplingParams": {"temperature": 0.2, "top_p": 0.8},
          "samplingParamsByThinkingLevel": {
            "off": {"top_k": 1},
            "high": {"temperature": 0.9, "min_p": 0.05},
          },
          "inputLimits": {"maxRequestBytes": 1000000, "images": {"maxPerMessage": 2, "resize": {"maxWidth": 512}}},
          "promptCache": {"short": 300, "long": 3600},
        },
      ],
      "modelOverrides": {
        "sampler": {
          "samplingParamsByThinkingLevel": {"high": {"min_p": 0.2, "repetition_penalty": 1.1}},
          "samplingParams": {"top_p": 0.7},
        },
      },
    },
  },
}
"""


def _sandbox(tmp_path: Path, name: str, base_url: str) -> Sandbox:
    sandbox = Sandbox.create(tmp_path / name, base_url)
    (sandbox.agent_dir / "models.json").write_text(MODELS_JSON % base_url, encoding="utf-8")
    return sandbox


def _bodies(provider: ScriptedProvider) -> list[dict[str, Any]]:
    bodies = [request["body"] for request in provider.requests]
    provider.requests.clear()
    return bodies


@pytest.mark.parametrize("thinking", ["high", "off"])
def test_sampling_params_by_thinking_level_reach_the_wire_as_pi_1_6_sends_them(
    tmp_path: Path, thinking: str
) -> None:
    with ScriptedProvider([{"text": "ok"}]) as provider:
        args = ("--model", "tuned/sampler", "--thinking", thinking, "--no-tools", "-p", "hi")
        pi = run_pi(_sandbox(tmp_path, "pi", provider.base_url), *args, current=True)
        assert pi.returncode == 0, pi.stderr
        pi_bodies = _bodies(provider)
        ours = run_ours(_sandbox(tmp_path, "ours", provider.base_url), *args)
        assert ours.returncode == 0, ours.stderr
        our_bodies = _bodies(provider)
    assert len(pi_bodies) == len(our_bodies) == 1
    pi_body, our_body = pi_bodies[0], our_bodies[0]
    sampling = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty")
    assert {key: our_body.get(key) for key in sampling} == {key: pi_body.get(key) for key in sampling}
    assert our_body.get("temperature") == (0.9 if thinking == "high" else 0.2)  # the level's value won
    for key in ("model", "stream", "reasoning_effort"):
        assert our_body.get(key) == pi_body.get(key), key


def test_auth_json_under_azure_gives_the_same_models_and_the_old_key_still_works(tmp_path: Path) -> None:
    listings = {}
    for name, auth_key, current in (
        ("pi", "azure", True),
        ("ours", "azure", False),
        ("legacy", "azure-openai-responses", False),
    ):
        sandbox = Sandbox.create(tmp_path / name, "http://127.0.0.1:9")
        (sandbox.agent_dir / "models.json").write_text('{"providers": {}}', encoding="utf-8")
        auth = {auth_key: {"type": "api_key", "key": "azure-key"}}
        (sandbox.agent_dir / "auth.json").write_text(json.dumps(auth), encoding="utf-8")
        args = ("--list-models", "gpt-6.2")
        done = run_pi(sandbox, *args, current=True) if current else run_ours(sandbox, *args)
        assert done.returncode == 0, done.stderr
        listings[name] = [line.split()[:2] for line in done.stdout.splitlines()[1:] if line.strip()]
    assert ["azure", "gpt-6.2-sol"] in listings["pi"]
    assert listings["ours"] == listings["pi"]
    assert (
        listings["legacy"] == listings["pi"]
    )  # a 0.85 auth.json (the old provider id) reaches the same models
