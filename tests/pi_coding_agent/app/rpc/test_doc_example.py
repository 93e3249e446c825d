"""The editor-integration example of docs/rpc.md runs as written: our ``pi`` on PATH, the
Anthropic provider pointed (by ``models.json``) at a scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.pi_coding_agent.e2e._harness import OUR_PI, REPO, Sandbox
from tests.support.scripted_provider import ScriptedProvider

SCRIPT = [
    {"tool_calls": [{"id": "toolu_1", "name": "read", "arguments": {"path": "src/app.py"}}]},
    {"text": "It prints a greeting."},
]


def _example() -> str:
    text = (REPO / "docs" / "rpc.md").read_text(encoding="utf-8")
    section = text.split("## The Python client", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "docs/rpc.md has no Python example under 'The Python client'"
    return found.group(1)


def test_the_documented_client_example_runs(tmp_path: Path) -> None:
    with ScriptedProvider(SCRIPT) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        models = json.loads((box.agent_dir / "models.json").read_text(encoding="utf-8"))
        models["providers"]["anthropic"] = {"baseUrl": provider.base_url}
        (box.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
        (box.work / "src").mkdir()
        (box.work / "src" / "app.py").write_text('print("hello")\n', encoding="utf-8")
        (box.work / "example.py").write_text(_example(), encoding="utf-8")
        path = f"{OUR_PI.parent}:{box.env()['PATH']}"
        done = subprocess.run([sys.executable, "example.py"], cwd=box.work, capture_output=True, text=True,
                              timeout=120, check=False, env=box.env(PATH=path, ANTHROPIC_API_KEY="test-key"))
        assert done.returncode == 0, done.stderr[-3000:]
        requests = [r for r in provider.requests if r["path"].split("?")[0] == "/v1/messages"]
    assert done.stdout.startswith("\n[read]\nIt prints a greeting.\n"), done.stdout
    assert re.search(r"\n\d+ tokens, \$\d+\.\d{4}\n$", done.stdout), done.stdout
    assert len(requests) == 2 and requests[0]["body"]["model"] == "claude-sonnet-4-5"
    (session,) = box.session_files()
    names = [json.loads(line).get("name") for line in session.read_text(encoding="utf-8").splitlines()]
    assert "What does src/app.py do?" in names
