"""A tree of skills and prompt templates written for Pi, with the edge cases of its loaders.

Used by the differential tests (the same tree in Pi's sandbox and ours) and the start-up
benchmark. ``write_pi_resources`` lays it out under a sandbox's agent dir, home and
working directory; ``PROMPTS`` are inputs that exercise ``/skill:`` and template expansion.
"""

from __future__ import annotations

import json
from pathlib import Path

SKILLS: dict[str, str] = {
    # agent dir skills/ (Pi's "pi" walk: root .md files count, SKILL.md folders, nested)
    "skills/pdf-tools/SKILL.md": (
        '---\nname: pdf-tools\ndescription: Extract text & tables from "PDF" files. Use for <pdf> work.\n---\n\n'
        "# PDF tools\n\nRun `./extract.sh <file>` from this folder.\n"
    ),
    "skills/pdf-tools/reference.md": "---\ndescription: not a skill, inside a skill folder\n---\nignored\n",
    "skills/Bad_Name/SKILL.md": "---\ndescription: Name taken from a folder that breaks the rules.\n---\nBody.\n",
    "skills/hidden-helper/SKILL.md": (
        "---\nname: hidden-helper\ndescription: Only by command.\ndisable-model-invocation: true\n---\nSecret steps.\n"
    ),
    "skills/yes-is-text/SKILL.md": (
        "---\nname: yes-is-text\ndescription: YAML 1.2 reads yes as a string.\ndisable-model-invocation: yes\n---\nx\n"
    ),
    "skills/no-description/SKILL.md": "---\nname: no-description\n---\nNever loaded.\n",
    "skills/broken-yaml/SKILL.md": "---\nname: broken-yaml\ndescription: a: b: c\n---\nx\n",
    "skills/folded/SKILL.md": (
        "---\nname: folded\ndescription: >\n  A folded description\n  over two lines.\nmetadata:\n  author: someone\n"
        "---\r\nCRLF body line one\r\nline two\r\n"
    ),
    "skills/quoted/SKILL.md": "\ufeff---\nname: 'quoted'\ndescription: \"Quoted: with a colon # and hash\"\n---\nq\n",
    "skills/Zeta/SKILL.md": "---\nname: zeta\ndescription: Sorted after upper-case B.\n---\nz\n",
    "skills/_under/SKILL.md": "---\nname: under\ndescription: Underscore sorts between cases.\n---\nu\n",
    "skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Lower case sorts last.\n---\na\n",
    "skills/group/deep/nested-skill/SKILL.md": "---\nname: nested-skill\ndescription: Found two levels down.\n---\nn\n",
    "skills/group/loose.md": "---\ndescription: nested .md files are not skills in skills/\n---\nx\n",
    "skills/single.md": "---\nname: single\ndescription: A skill that is one Markdown file.\n---\nSingle file skill.\n",
    "skills/notes.md": "Just notes, no frontmatter.\n",
    "skills/.hidden/SKILL.md": "---\nname: dot-hidden\ndescription: dot folders are skipped\n---\nx\n",
    "skills/ignored-skill/SKILL.md": "---\nname: ignored-skill\ndescription: listed in .gitignore\n---\nx\n",
    "skills/.gitignore": "ignored-skill/\n",
    "skills/long-name/SKILL.md": (
        "---\nname: " + "a" * 70 + "\ndescription: " + "d" * 1030 + "\n---\nlong\n"
    ),
    "skills/dup-a/SKILL.md": "---\nname: duplicate\ndescription: First of two with one name.\n---\nfirst\n",
    "skills/dup-b/SKILL.md": "---\nname: duplicate\ndescription: Second of two with one name.\n---\nsecond\n",
    # a folder named in settings "skills"
    "extra-skills/from-settings/SKILL.md": "---\nname: from-settings\ndescription: Named in settings.json.\n---\ns\n",
}

HOME_SKILLS: dict[str, str] = {
    # ~/.agents/skills ("agents" walk: root .md files do not count, nested ones do)
    ".agents/skills/root-note.md": "---\nname: root-note\ndescription: root files are not skills here\n---\nx\n",
    ".agents/skills/collection/agents-nested.md": (
        "---\nname: agents-nested\ndescription: A nested Markdown skill in .agents.\n---\nagents nested\n"
    ),
    ".agents/skills/shared-skill/SKILL.md": "---\nname: shared-skill\ndescription: From ~/.agents/skills.\n---\nshared\n",
    ".agents/skills/pdf-again/SKILL.md": "---\nname: pdf-tools\ndescription: Collides with the agent dir's.\n---\nx\n",
}

PROMPTS: dict[str, str] = {
    "prompts/review.md": (
        '---\ndescription: Review a file\nargument-hint: "<file> [focus]"\n---\n'
        "Review $1 with a focus on ${2:-correctness}.\nEverything: $@\nFrom the second: ${@:2}\n"
    ),
    "prompts/component.md": "Create a component named $1 with features: $ARGUMENTS\n",
    "prompts/tricky.md": (
        "\ufeff---\r\ndescription: edge cases\r\n---\r\n"
        "zero=[$0] d0=[${0:-none}] s0=[${@:0}] s21=[${@:2:1}] s10=[${@:1:0}] ten=[$10]\r\n"
        "all=[${ARGUMENTS:-nothing}] at=[${@:-nothing}] third=[${3:-}] literal=[$x ${y} $] nested=[${1:-$2}]\r\n"
    ),
    "prompts/empty-args.md": "Defaults: ${1:-first} ${@:-all} $ARGUMENTS.\n",
    "prompts/nested/not-loaded.md": "prompts/ is read one level deep\n",
    "prompts/bad-frontmatter.md": "---\ndescription: [unclosed\n---\nbody\n",
}

PROJECT: dict[str, str] = {
    ".pi/skills/project-skill/SKILL.md": "---\nname: project-skill\ndescription: From the trusted project.\n---\np\n",
    ".pi/prompts/project-prompt.md": "Project template with $1.\n",
    ".agents/skills/local-agents/SKILL.md": "---\nname: local-agents\ndescription: Project .agents skill.\n---\nl\n",
}

CLI_PACKAGE: dict[str, str] = {
    # a Pi package given with -e: its package.json manifest names skills and prompts
    "cli-pkg/package.json": '{"name": "cli-pkg", "pi": {"skills": ["bundle/skills"], "prompts": ["bundle/prompts/*.md"]}}',
    "cli-pkg/bundle/skills/from-e/SKILL.md": "---\nname: from-e\ndescription: Came with -e.\n---\nfrom e\n",
    "cli-pkg/bundle/prompts/e-template.md": "---\ndescription: from -e\n---\nE template: $1 / ${@:2}\n",
}

CLI_FILES: dict[str, str] = {
    "cli/cli-skill/SKILL.md": "---\nname: cli-skill\ndescription: Passed with --skill.\n---\nc\n",
    "cli/cli-template.md": "---\ndescription: Passed with --prompt-template\n---\nCLI template: $@\n",
}

INPUTS = [
    '/review src/app.py "error handling" and more',
    "/skill:pdf-tools extract page 1",
    "/skill:hidden-helper",
    "/tricky one 'two words' three",
    "/tricky",
    "/empty-args",
    "/component Button 'click handler' \"disabled state\"",
    "/skill:folded   spaced   args  ",
    "/skill:unknown-skill do things",
    "/not-a-template x",
    "/skill:pdf-tools\nnewline is not a separator",
    "/review\tTAB\tseparated",
    "/cli-template via flag",
    "/project-prompt value",
    "/skill:cli-skill",
    "/skill:duplicate",
    "plain text is untouched /review",
]


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))


def write_pi_resources(agent_dir: Path, home: Path, work: Path) -> list[str]:
    """Lay the tree out; returns the CLI flags that add the command-line resources."""
    _write(agent_dir, SKILLS)
    _write(agent_dir, PROMPTS)
    _write(home, HOME_SKILLS)
    _write(work, PROJECT)
    _write(work, CLI_FILES)
    _write(work, CLI_PACKAGE)
    settings_path = agent_dir / "settings.json"
    settings = json.loads(settings_path.read_text(encoding="utf-8")) if settings_path.exists() else {}
    settings["skills"] = ["extra-skills"]
    settings_path.write_text(json.dumps(settings), encoding="utf-8")
    return ["--skill", "cli/cli-skill", "--prompt-template", "cli/cli-template.md", "--approve"]
