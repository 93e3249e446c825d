"""``project_trust``: a global extension decides whether a project's own extensions load."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours
from tests.support.scripted_provider import ScriptedProvider

DECIDER = """
import os

def setup(pi):
    def decide(event, ctx):
        answer = os.environ.get("TRUST_ANSWER", "undecided")
        return {"trusted": answer, "remember": os.environ.get("TRUST_REMEMBER") == "1"}
    pi.on("project_trust", decide)
"""
PROJECT_EXTENSION = """
def setup(pi):
    pi.on("before_agent_start", lambda event, ctx: {"system_prompt": event.system_prompt + "\\nPROJECT EXTENSION"})
"""


def _run(box: Sandbox, provider: ScriptedProvider, **env: str) -> str:
    done = run_ours(box, "--model", OPENAI_MODEL, "--no-session", "-p", "hi", **env)
    assert done.returncode == 0, done.stderr
    return str(provider.requests[-1]["body"]["messages"][0]["content"])


def test_a_global_extension_decides_project_trust(tmp_path: Path) -> None:
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path, provider.base_url)
        (box.agent_dir / "extensions").mkdir()
        (box.agent_dir / "extensions" / "decider.py").write_text(DECIDER, encoding="utf-8")
        project = box.work / ".pi" / "extensions"
        project.mkdir(parents=True)
        (project / "local.py").write_text(PROJECT_EXTENSION, encoding="utf-8")
        # undecided: defaultProjectTrust decides (not "always": untrusted, the project extension stays off)
        assert "PROJECT EXTENSION" not in _run(box, provider)
        assert "PROJECT EXTENSION" in _run(box, provider, TRUST_ANSWER="yes")
        assert "PROJECT EXTENSION" not in _run(box, provider, TRUST_ANSWER="no")
        assert not (box.agent_dir / "trust.json").exists()
        assert "PROJECT EXTENSION" in _run(box, provider, TRUST_ANSWER="yes", TRUST_REMEMBER="1")
        stored = json.loads((box.agent_dir / "trust.json").read_text(encoding="utf-8"))
        assert stored == {str(box.work.resolve()): True}
        # remembered: later runs trust the project without asking the extension
        assert "PROJECT EXTENSION" in _run(box, provider)


def test_resources_discover_adds_skills_and_templates(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    (extra / "skills" / "lint").mkdir(parents=True)
    (extra / "skills" / "lint" / "SKILL.md").write_text(
        "---\nname: lint\ndescription: Lint the project.\n---\nRun the linter.\n", encoding="utf-8"
    )
    (extra / "prompts").mkdir()
    (extra / "prompts" / "fixit.md").write_text("---\ndescription: Fix\n---\nFix $1 now\n", encoding="utf-8")
    discover = tmp_path / "discover.py"
    discover.write_text(
        "def setup(pi):\n"
        f"    pi.on('resources_discover', lambda e, c: {{'skill_paths': [{str(extra / 'skills')!r}],"
        f" 'prompt_paths': [{str(extra / 'prompts')!r}]}})\n",
        encoding="utf-8",
    )
    with ScriptedProvider([{"text": "ok"}]) as provider:
        box = Sandbox.create(tmp_path / "box", provider.base_url)
        done = run_ours(box, "--model", OPENAI_MODEL, "--no-session", "-e", str(discover), "-p", "/fixit tests")
        body = provider.requests[0]["body"]
    assert done.returncode == 0, done.stderr
    assert "<name>lint</name>" in body["messages"][0]["content"]
    assert body["messages"][-1]["content"] in ("Fix tests now", [{"type": "text", "text": "Fix tests now"}])
