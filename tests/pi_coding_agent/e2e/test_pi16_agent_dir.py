"""One ``~/.pi/agent`` as a Pi 1.6 user has it, used whole by ours and by Pi 1.6's CLI: its
``settings.json`` (tool patterns in ``defaultTools``, a built-in extension turned off,
``compaction.modelOverrides``, keys we only keep), ``models.json`` in 1.6's dialect with its new
keys, and ``auth.json`` with a key under ``azure``. Both list the same models, start the same
tools, send the same request, and warn about nothing; ours leaves the 1.6 keys in place.

The pieces are checked one by one elsewhere (tool selection, models.json bodies, themes); this is
the acceptance case of a whole directory moved over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider

pytestmark = pytest.mark.oracle

SETTINGS_16 = {
    "defaultTools": ["+grep", "-edit"],
    "extensions": ["-builtin:mcp"],
    "compaction": {"enabled": True, "modelOverrides": {"tuned/sampler": {"reserveTokens": 4096}}},
    "cacheWarming": "streaming",
    "showCacheMissNotices": True,
    "quietStartup": True,
}

MODELS_16 = """{
  // a Pi 1.6 models.json
  "providers": {
    "tuned": {
      "baseUrl": "%s/v1",
      "api": "openai-completions",
      "apiKey": "scripted-key",
      "models": [
        {
          "id": "sampler",
          "reasoning": true,
          "samplingParamsByThinkingLevel": {"medium": {"temperature": 0.4}},
          "inputLimits": {"images": {"resize": {"maxWidth": 512}}},
          "promptCache": {"short": 300},
        },
      ],
    },
  },
}
"""


def _agent_dir(tmp_path: Path, name: str, base_url: str) -> Sandbox:
    box = Sandbox.create(tmp_path / name, base_url)
    settings = json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))
    settings.update(SETTINGS_16)
    (box.agent_dir / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    (box.agent_dir / "models.json").write_text(MODELS_16 % base_url, encoding="utf-8")
    auth = {"azure": {"type": "api_key", "key": "azure-key"}}
    (box.agent_dir / "auth.json").write_text(json.dumps(auth), encoding="utf-8")
    return box


def _run(box: Sandbox, who: str, *args: str) -> Any:
    done = run_ours(box, *args) if who == "ours" else run_pi(box, *args, current=True)
    assert done.returncode == 0, (who, done.stderr)
    return done


def _request_view(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "tools": sorted(tool["function"]["name"] for tool in body.get("tools") or []),
        "sampling": {key: body.get(key) for key in ("temperature", "top_p", "reasoning_effort")},
        "model": body["model"],
    }


def test_a_pi_16_agent_dir_works_here_as_in_pi_16(tmp_path: Path) -> None:
    seen: dict[str, dict[str, Any]] = {}
    for who in ("pi", "ours"):
        with ScriptedProvider([{"text": "ok"}]) as provider:
            box = _agent_dir(tmp_path, who, provider.base_url)
            listed = _run(box, who, "--list-models", "sampler")
            azure = _run(box, who, "--list-models", "gpt-6.2-sol")
            done = _run(box, who, "--model", "tuned/sampler", "--thinking", "medium", "-p", "hi")
            (body,) = [request["body"] for request in provider.requests]
            seen[who] = {
                "listed": [line.split()[:2] for line in listed.stdout.splitlines()[1:] if line.strip()],
                "azure": [line.split()[:2] for line in azure.stdout.splitlines()[1:] if line.strip()],
                "request": _request_view(body),
                "answer": done.stdout.strip(),
                "warnings": done.stderr.strip(),
            }
            kept = json.loads((box.agent_dir / "settings.json").read_text(encoding="utf-8"))
            assert {key: kept.get(key) for key in SETTINGS_16} == SETTINGS_16, who
    assert seen["ours"] == seen["pi"]
    assert seen["ours"]["request"]["tools"] == ["bash", "grep", "read", "write"]
    assert ["azure", "gpt-6.2-sol"] in seen["ours"]["azure"]
    assert seen["ours"]["warnings"] == ""
