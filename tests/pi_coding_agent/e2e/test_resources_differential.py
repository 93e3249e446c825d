"""Differential: skills and prompt templates written for Pi give the model the same text.

The same tree of skills and templates (``tests/support/resource_tree.py``: settings
entries, the agent dir's and ``~/.agents`` folders, a trusted project's ``.pi`` and
``.agents`` folders, ``--skill`` and ``--prompt-template`` paths, and the edge cases of Pi's
loaders) is laid out for Pi 1.6 (through the oracle's ``pi-cli-current``) and for our ``pi``.
Each run sends the same prompts to a scripted provider on 127.0.0.1; what the provider receives
must agree: the system prompt's ``skills`` section (tags included), and every user message
after ``/skill:`` and template expansion.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Completed, Sandbox, run_ours, run_pi
from tests.support import oracle
from tests.support.resource_tree import INPUTS, write_pi_resources
from tests.support.scripted_provider import ScriptedProvider

SKILLS_SECTION = re.compile(
    r"<skills>\nThe following skills provide.*?</available_skills>\n</skills>", re.DOTALL
)
# The one sentence on relative paths inside a skill keeps 0.85's words in ours (docs/pi-1.6/sessions.md);
# 1.6 reworded it. Everything else in the section (tags, the tool named, every skill) is compared.
RELATIVE_PATHS_RULE = re.compile(
    r"^(When a skill file references a relative path|Resolve relative paths).*$", re.MULTILINE
)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def _received(provider: ScriptedProvider, sandbox: Sandbox) -> list[dict[str, Any]]:
    seen = []
    for request in provider.requests:
        messages = request["body"]["messages"]
        system = next((_text(m["content"]) for m in messages if m["role"] in ("system", "developer")), "")
        section = SKILLS_SECTION.search(system)
        user = [_text(m["content"]) for m in messages if m["role"] == "user"][-1]
        seen.append(
            {
                "skills_section": (
                    RELATIVE_PATHS_RULE.sub("<relative paths rule>", section.group(0)) if section else None
                ),
                "user": user,
            }
        )
    return [_scrub(item, sandbox) for item in seen]


def _scrub(value: Any, sandbox: Sandbox) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v, sandbox) for k, v in value.items()}
    if isinstance(value, str):
        return value.replace(str(sandbox.root), "<root>")
    return value


def _run_both(
    tmp_path: Path, inputs: list[str], extra_args: list[str] | None = None, tools: str | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Completed, Completed]:
    oracle.require_live_oracle()
    script = [{"text": f"answer {index}"} for index in range(len(inputs))]
    results = []
    for name, runner in (("ours", run_ours), ("pi", run_pi)):
        with ScriptedProvider(script) as provider:
            box = Sandbox.create(tmp_path / name, provider.base_url)
            flags = write_pi_resources(box.agent_dir, box.home, box.work)
            tool_args = ["--tools", tools] if tools is not None else []
            pi16: dict[str, Any] = {"current": True} if name == "pi" else {}
            done = runner(
                box, *flags, *(extra_args or []), *tool_args, "--model", OPENAI_MODEL, "-p", *inputs, **pi16
            )
            assert done.returncode == 0, (name, done.stderr)
            results.append((_received(provider, box), done))
    (ours, ours_done), (pi, pi_done) = results
    return ours, pi, ours_done, pi_done


def test_skills_section_and_expanded_prompts_match_pi(tmp_path: Path) -> None:
    ours, pi, _, _ = _run_both(tmp_path, INPUTS)
    assert len(ours) == len(pi) == len(INPUTS)
    assert ours[0]["skills_section"] is not None and "<name>pdf-tools</name>" in ours[0]["skills_section"]
    assert ours[0]["skills_section"] == pi[0]["skills_section"]
    for index, (mine, theirs) in enumerate(zip(ours, pi, strict=True)):
        assert mine["user"] == theirs["user"], f"input {index}: {INPUTS[index]!r}"
    # The expansions really happened (the comparison above is not between two pass-throughs).
    assert ours[1]["user"].startswith(
        '<skill name="pdf-tools" location="<root>/home/.pi/agent/skills/pdf-tools/SKILL.md">'
    )
    assert ours[0]["user"].startswith("Review src/app.py with a focus on error handling.")


def test_without_read_the_section_names_bash(tmp_path: Path) -> None:
    ours, pi, _, _ = _run_both(tmp_path, ["hello"], tools="bash,grep")
    assert ours[0]["skills_section"] is not None
    assert "Use bash to load a skill's file" in ours[0]["skills_section"]
    assert ours == pi


def test_no_read_tool_means_no_skills_section(tmp_path: Path) -> None:
    ours, pi, _, _ = _run_both(tmp_path, ["/skill:alpha go"], tools="grep,find")
    assert ours[0]["skills_section"] is None
    assert ours == pi


def test_no_skills_keeps_only_command_line_paths(tmp_path: Path) -> None:
    inputs = ["/review a b", "/cli-template kept", "/skill:pdf-tools x", "/skill:cli-skill y"]
    ours, pi, _, _ = _run_both(tmp_path, inputs, ["-ns", "--no-prompt-templates"])
    assert ours == pi
    assert ours[0]["user"] == "/review a b"
    assert ours[1]["user"] == "CLI template: kept"
    assert "<name>cli-skill</name>" in (ours[0]["skills_section"] or "")
    assert "<name>pdf-tools</name>" not in (ours[0]["skills_section"] or "")


def test_untrusted_project_resources_are_left_out(tmp_path: Path) -> None:
    inputs = ["/project-prompt v", "/skill:project-skill", "/skill:local-agents"]
    ours, pi, _, _ = _run_both(tmp_path, inputs, ["--no-approve"])
    assert ours == pi
    assert ours[0]["user"] == "/project-prompt v"


def test_a_local_package_given_with_e(tmp_path: Path) -> None:
    """A Pi package folder passed with ``-e``: its skills and templates apply for the run, even
    with ``-ns -np`` (only ``-e`` and ``--skill``/``--prompt-template`` resources remain)."""
    inputs = ["/e-template one two three", "/skill:from-e now", "/review x"]
    ours, pi, ours_done, _ = _run_both(tmp_path, inputs, ["-e", "cli-pkg", "-ns", "-np"])
    assert ours == pi
    assert ours[0]["user"] == "E template: one / two three"
    assert "<name>from-e</name>" in (ours[0]["skills_section"] or "")
    assert ours[2]["user"] == "/review x"
    assert "not supported" not in ours_done.stderr
