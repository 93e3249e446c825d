"""Our resource loaders give Pi 0.85's answers (recorded from Pi's own modules by
``tools/gen_pi_resource_cases.py``) on the same inputs: template arguments and expansion,
frontmatter, skills with their validation messages, prompt templates, resolution of
settings entries, packages, filters and conventional folders."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pi_coding_agent.customize.packages import Layout, Resolver
from pi_coding_agent.customize.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    load_prompt_templates,
    parse_command_args,
    substitute_args,
)
from pi_coding_agent.customize.resources import FrontmatterError, parse_frontmatter
from pi_coding_agent.customize.skills import format_skills_for_prompt, load_skills
from tests.support.resource_cases import (
    EXPAND,
    EXPAND_TEMPLATES,
    FRONTMATTER,
    PROMPT_PATHS,
    PROMPT_TREE,
    RESOLVE_SETTINGS,
    RESOLVE_TREE,
    SKILL_LINKS,
    SKILL_PATHS,
    SKILL_TREE,
    build_tree,
    parse_args_cases,
    substitute_cases,
)

ANSWERS: dict[str, Any] = json.loads((Path(__file__).parent / "pi_answers.json").read_text(encoding="utf-8"))


def _json_like(value: Any) -> Any:
    """What ``JSON.stringify`` makes of a value (non-finite numbers become null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_like(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_like(v) for v in value]
    return value


def _rooted(value: Any, root: Path) -> Any:
    return json.loads(json.dumps(value).replace(json.dumps(str(root))[1:-1], "<root>"))


def test_argument_substitution() -> None:
    cases = substitute_cases()
    assert len(cases) == len(ANSWERS["substitute"])
    for (content, args), expected in zip(cases, ANSWERS["substitute"], strict=True):
        assert substitute_args(content, args) == expected, (content, args)


def _quoted(text: str) -> bool:
    """Pi 1.6 splits arguments with quotes differently from 0.85 (the recorded answers); we follow
    1.6 there (``tests/pi_coding_agent/customize/prompt_templates/test_arguments_pi_1_6.py``)."""
    return '"' in text or "'" in text


def test_argument_splitting() -> None:
    cases = list(zip(parse_args_cases(), ANSWERS["parseArgs"], strict=True))
    unquoted = [(text, expected) for text, expected in cases if not _quoted(text)]
    assert len(unquoted) > len(cases) // 4
    for text, expected in unquoted:
        assert parse_command_args(text) == expected, repr(text)


def test_template_expansion() -> None:
    templates = [
        PromptTemplate(t["name"], t["description"], t["content"], t["filePath"]) for t in EXPAND_TEMPLATES
    ]
    for text, expected in zip(EXPAND, ANSWERS["expand"], strict=True):
        if not _quoted(text):
            assert expand_prompt_template(text, templates) == expected, repr(text)


KNOWN_DIFFERENCES = {
    FRONTMATTER.index("---\n:\n---\nb"): "a key-less ':' line is a null key for Pi, invalid YAML for PyYAML",
}
"""Inputs where we differ on purpose (docs/resources.md); the test pins the difference."""


@pytest.mark.parametrize("index", range(len(FRONTMATTER)))
def test_frontmatter(index: int) -> None:
    expected = ANSWERS["frontmatter"][index]
    if index in KNOWN_DIFFERENCES:
        assert "error" not in expected
        with pytest.raises(FrontmatterError):
            parse_frontmatter(FRONTMATTER[index])
        return
    try:
        parsed = parse_frontmatter(FRONTMATTER[index])
    except FrontmatterError:
        assert "error" in expected, f"Pi reads it: {expected}"
        return
    assert "error" not in expected, f"Pi rejects it: {expected['error']}"
    # A value that is not a mapping (a list, a string) has no fields for Pi's readers either.
    fields = expected["frontmatter"] if isinstance(expected["frontmatter"], dict) else {}
    assert {"frontmatter": _json_like(parsed.fields), "body": parsed.body} == {
        **expected,
        "frontmatter": fields,
    }


def _yaml_message(message: str) -> bool:
    return message.startswith(("invalid YAML frontmatter", "Map keys must be unique"))


def test_skills_and_their_diagnostics(tmp_path: Path) -> None:
    root = tmp_path / "s"
    build_tree(root, SKILL_TREE, SKILL_LINKS)
    loaded = load_skills([str(root / p) for p in SKILL_PATHS], str(root))
    expected = ANSWERS["skills"][0]
    skills = [
        {
            "name": s.name,
            "description": s.description,
            "filePath": s.file_path,
            "baseDir": s.base_dir,
            "disableModelInvocation": s.disable_model_invocation,
        }
        for s in loaded.skills
    ]
    assert _rooted(skills, tmp_path) == expected["skills"]
    ours = [{"type": d.kind, "message": d.message, "path": d.path} for d in loaded.diagnostics]
    ours = _rooted(ours, tmp_path)
    assert [(d["type"], d["path"]) for d in ours] == [(d["type"], d["path"]) for d in expected["diagnostics"]]
    for mine, theirs in zip(ours, expected["diagnostics"], strict=True):
        if mine["message"] != theirs["message"]:
            # YAML errors: same meaning (the file's frontmatter is invalid), the parser's own words.
            assert _yaml_message(mine["message"]), (mine, theirs)
    assert _rooted(format_skills_for_prompt(loaded.skills), tmp_path) == expected["prompt"]


def test_prompt_templates(tmp_path: Path) -> None:
    root = tmp_path / "p"
    build_tree(root, PROMPT_TREE)
    loaded = load_prompt_templates([str(root / p) for p in PROMPT_PATHS], str(root))
    ours = [
        {
            "name": t.name,
            "description": t.description,
            "argumentHint": t.argument_hint,
            "content": t.content,
            "filePath": t.file_path,
        }
        for t in loaded.templates
    ]
    # Pi's loader returns duplicates; its resource loader keeps the first of a name and
    # reports each later one as a collision.
    expected, collisions, seen = [], [], set()
    for template in ANSWERS["prompts"][0]:
        if template["name"] in seen:
            collisions.append(template["filePath"])
        else:
            seen.add(template["name"])
            expected.append(template)
    assert _rooted(ours, tmp_path) == expected
    reported = [d for d in loaded.diagnostics if d.kind == "collision"]
    assert _rooted([d.path for d in reported], tmp_path) == collisions
    # Pi drops a template with invalid frontmatter silently; we say so (docs/resources.md).
    assert [d.path for d in loaded.diagnostics if d.kind == "warning"] == [
        str(root / "agent/prompts/bad-frontmatter.md")
    ]


@pytest.mark.parametrize("index", range(len(RESOLVE_SETTINGS)))
def test_resolution(tmp_path: Path, index: int) -> None:
    root = tmp_path / "r"
    build_tree(root, RESOLVE_TREE)
    case = RESOLVE_SETTINGS[index]
    resolver = Resolver(
        Layout(str(root / "work"), str(root / "agent")),
        case["global"],
        case["project"] if case["trusted"] else {},
        project_trusted=case["trusted"],
        home=str(root / "home"),
    )
    resolved = resolver.resolve()
    expected = ANSWERS["resolve"][index]
    for kind in ("extensions", "skills", "prompts", "themes"):
        ours = [
            {
                "path": r.path,
                "enabled": r.enabled,
                "source": r.origin.source,
                "scope": r.origin.scope,
                "origin": r.origin.origin,
            }
            for r in resolved.of(kind)  # type: ignore[arg-type]
        ]
        assert _rooted(ours, tmp_path) == expected[kind], kind
