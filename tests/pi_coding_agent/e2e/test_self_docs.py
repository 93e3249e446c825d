"""Asking pi about itself: the system prompt points the model at pi's own documentation (as
Pi's points at its README, docs and examples), and the read tool reaches it."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from pi_coding_agent.core.paths import manual_dir
from tests.pi_coding_agent.e2e._harness import Sandbox, run_ours, run_pi
from tests.support.scripted_provider import ScriptedProvider


def _system_prompt(request: dict[str, object]) -> str:
    body = request["body"]
    assert isinstance(body, dict)
    first = body["messages"][0]
    assert first["role"] in ("system", "developer")
    return str(first["content"])


def _documentation_paths(prompt: str) -> list[str]:
    """The absolute paths the prompt's documentation lines name (Pi's wording or ours)."""
    return re.findall(r"^- (?:Main documentation|Additional docs|Examples|Overview|Reference pages): (/\S+)", prompt,
                      re.MULTILINE)  # fmt: skip


def test_the_model_is_pointed_at_our_docs_and_can_read_them(tmp_path: Path) -> None:
    page = os.path.realpath(os.path.join(manual_dir(), "docs", "extensions.md"))
    script = [
        {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": page}}]},
        {"text": "Extensions are Python files."},
    ]  # each run follows the script from its start (Pi's run reads the same page)
    with ScriptedProvider(script) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        ours = run_ours(sandbox, "-p", "How do I write a pi extension?")
        pi = run_pi(sandbox, "--no-session", "-p", "How do I write a pi extension?")
    assert ours.returncode == 0 and pi.returncode == 0, ours.stderr + pi.stderr
    first, second, pis, _ = provider.requests
    for prompt in (_system_prompt(first), _system_prompt(pis)):  # both name three existing places
        paths = _documentation_paths(prompt)
        assert len(paths) == 3 and all(os.path.exists(path) for path in paths), prompt
    assert os.path.dirname(page) in _documentation_paths(_system_prompt(first))
    with open(page, encoding="utf-8") as file:
        heading = file.readline().strip()
    assert heading in json.dumps(second["body"])  # the page's text went back to the model
