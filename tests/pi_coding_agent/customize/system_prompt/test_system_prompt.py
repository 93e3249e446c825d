"""Context-file discovery (Pi's rules), prompt sources and the assembled system prompt."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pi_coding_agent.customize.system_prompt import (
    SystemPromptOptions,
    build_system_prompt,
    load_project_context_files,
    resolve_prompt_sources,
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_agent_dir_first_then_ancestors_outermost_first(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    root = tmp_path / "root"
    cwd = root / "a" / "b"
    cwd.mkdir(parents=True)
    _write(agent / "AGENTS.md", "global")
    _write(root / "CLAUDE.md", "root claude")
    _write(root / "a" / "AGENTS.md", "a agents")
    _write(root / "a" / "CLAUDE.md", "a claude (shadowed by AGENTS.md in the same dir)")
    _write(cwd / "AGENTS.override.md", "override")
    _write(cwd / "AGENTS.md", "b agents (loses to the override)")
    files = load_project_context_files(cwd, agent)
    assert [(Path(f.path), f.content) for f in files] == [
        (agent / "AGENTS.md", "global"),
        (root / "CLAUDE.md", "root claude"),
        (root / "a" / "AGENTS.md", "a agents"),
        (cwd / "AGENTS.override.md", "override"),
    ]


def test_directories_named_like_context_files_are_skipped_and_bom_stripped(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    (cwd / "AGENTS.md").mkdir(parents=True)
    (cwd / "CLAUDE.md").write_bytes(b"\xef\xbb\xbfwith bom")
    files = load_project_context_files(cwd, tmp_path / "no-agent")
    assert [(Path(f.path).name, f.content) for f in files] == [("CLAUDE.md", "with bom")]


def test_agent_dir_inside_cwd_chain_is_not_loaded_twice(tmp_path: Path) -> None:
    _write(tmp_path / "AGENTS.md", "once")
    files = load_project_context_files(tmp_path, tmp_path)
    assert [f.content for f in files] == ["once"]


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_nested_worktree_shadows_the_main_checkout_file(tmp_path: Path) -> None:
    main = tmp_path / "repo"
    main.mkdir()
    _git("init", "-q", cwd=main)
    _write(main / "AGENTS.md", "main copy")
    _git("add", "AGENTS.md", cwd=main)
    _git("-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "init", cwd=main)
    _git("worktree", "add", "-q", str(main / "wt"), cwd=main)
    worktree = main / "wt"
    assert (worktree / "AGENTS.md").read_text(encoding="utf-8") == "main copy"
    files = load_project_context_files(worktree, tmp_path / "agent")
    assert [Path(f.path) for f in files] == [worktree / "AGENTS.md"]
    # Outside the worktree the main checkout's file is used normally.
    assert [Path(f.path) for f in load_project_context_files(main, tmp_path / "agent")] == [main / "AGENTS.md"]


def test_prompt_sources_flags_files_and_discovery(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    cwd = tmp_path / "proj"
    cwd.mkdir()
    _write(agent / "SYSTEM.md", "global system")
    _write(cwd / ".pi" / "SYSTEM.md", "project system")
    _write(agent / "APPEND_SYSTEM.md", "global append")
    trusted = resolve_prompt_sources(
        cwd=cwd, agent_dir=agent, project_trusted=True, system_prompt=None, append_system_prompt=None
    )
    assert trusted.custom == "project system" and trusted.append == ["global append"]
    untrusted = resolve_prompt_sources(
        cwd=cwd, agent_dir=agent, project_trusted=False, system_prompt=None, append_system_prompt=None
    )
    assert untrusted.custom == "global system"
    file_arg = _write(tmp_path / "extra.txt", "from a file")
    flags = resolve_prompt_sources(
        cwd=cwd,
        agent_dir=agent,
        project_trusted=True,
        system_prompt="plain text prompt",
        append_system_prompt=[str(file_arg), "literal append"],
    )
    assert flags.custom == "plain text prompt"
    assert flags.append == ["from a file", "literal append"]
    nothing = resolve_prompt_sources(
        cwd=cwd, agent_dir=tmp_path / "none", project_trusted=False, system_prompt=None, append_system_prompt=None
    )
    assert nothing.custom is None and nothing.append == []


def test_default_prompt_is_pi_16_sections_in_order() -> None:
    """Pi 1.6's section names and order (compiled ``buildSystemPromptSections``), each but the
    preamble in tags of its name; the text is the sections joined by blank lines; no date."""
    from pi_coding_agent.customize.skills import Skill
    from pi_coding_agent.customize.system_prompt import ContextFile, build_system_prompt_sections

    skill = Skill(name="deploy", description="Ship it", file_path="/s/deploy/SKILL.md", base_dir="/s/deploy")
    options = SystemPromptOptions(
        cwd="/home/dev/project",
        tools=["read", "bash", "grep"],
        append=["APPENDED TEXT", ""],
        context_files=[ContextFile("/home/dev/project/AGENTS.md", "Run make test.")],
        skills=[skill],
        manual="/m",
    )
    sections = build_system_prompt_sections(options)
    assert list(sections) == ["preamble", "tools", "rules", "docs", "addendum", "project_context", "skills", "cwd"]
    for name, text in sections.items():
        assert name == "preamble" or (text.startswith(f"<{name}>\n") and text.endswith(f"\n</{name}>"))
    assert "- read: " in sections["tools"] and "- grep: " in sections["tools"] and "- edit: " not in sections["tools"]
    assert sections["addendum"] == "<addendum>\nAPPENDED TEXT\n</addendum>"
    assert '<project_instructions path="/home/dev/project/AGENTS.md">\nRun make test.\n</project_instructions>' in (
        sections["project_context"]
    )
    assert "<name>deploy</name>" in sections["skills"] and sections["skills"].startswith("<skills>\nThe following")
    assert sections["cwd"] == "<cwd>\n/home/dev/project\n</cwd>"
    assert build_system_prompt(options) == "\n\n".join(sections.values())
    assert "date" not in build_system_prompt(options).lower()


def test_custom_prompt_replaces_the_base_sections_but_keeps_addendum_and_cwd() -> None:
    prompt = build_system_prompt(
        SystemPromptOptions(cwd="/x", tools=["read"], custom_prompt="You are a pirate.", append=["Arr."])
    )
    assert prompt == "You are a pirate.\n\n<addendum>\nArr.\n</addendum>\n\n<cwd>\n/x\n</cwd>"


def test_no_tools() -> None:
    prompt = build_system_prompt(SystemPromptOptions(cwd=os.sep, tools=[]))
    assert "(no tools are enabled)" in prompt


def test_default_prompt_points_at_our_installed_documentation() -> None:
    """Pi's docs section, ours: the README, docs and examples exist where it says, and every
    page it names for a topic exists under the folder it says paths are relative to."""
    import re

    from pi_coding_agent.core.paths import manual_dir

    prompt = build_system_prompt(SystemPromptOptions(cwd="/x", manual=manual_dir()))
    found = dict(re.findall(r"^- (Overview|Reference pages|Examples): (\S+)", prompt, re.MULTILINE))
    assert Path(found["Overview"]).read_text(encoding="utf-8").startswith("# Pi for Python\n")
    assert os.path.isfile(os.path.join(found["Reference pages"], "extensions.md"))
    assert os.path.isdir(os.path.join(found["Examples"], "extensions"))
    [base] = re.findall(r"relative to (\S+), not to the working directory", prompt)
    pages = re.findall(r"\((?:docs|examples)/[^)]*\)", prompt)
    named = [name.strip() for group in pages for name in group.strip("()").split(",")]
    assert len(named) >= 10
    assert [name for name in named if not os.path.exists(os.path.join(base, name))] == []
    assert prompt.index("<rules>") < prompt.index("About pi itself") < prompt.index("<cwd>")


def test_custom_prompt_has_no_documentation_section() -> None:
    prompt = build_system_prompt(SystemPromptOptions(cwd="/x", custom_prompt="Be a pirate.", manual="/m"))
    assert "About pi itself" not in prompt and "/m" not in prompt
