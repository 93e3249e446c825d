"""The resource loader: Python manifests, extension discovery, skill commands, frontmatter fast path."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_coding_agent.app.cli._main import PACKAGE_WORDS
from pi_coding_agent.core.settings import Settings
from pi_coding_agent.customize.loader import ResourceOptions, load_resources
from pi_coding_agent.customize.packages import PACKAGE_COMMANDS, parse_source
from pi_coding_agent.customize.resources import parse_frontmatter
from pi_coding_agent.customize.resources._frontmatter import _parse_simple
from pi_coding_agent.customize.resources._yaml12 import load_yaml12


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _load(tmp_path: Path, settings: dict[str, object], **options: object) -> object:
    agent = tmp_path / "agent"
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return load_resources(
        ResourceOptions(
            cwd=str(work), agent_dir=agent, settings=Settings(settings, {}, project_trusted=False),
            home=str(tmp_path / "home"), **options,  # type: ignore[arg-type]
        )
    )


def test_pyproject_manifest_and_extension_discovery(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pkg/pyproject.toml": (
            '[project]\nname = "kit"\n\n[tool.pi]\nskills = ["resources/skills"]\n'
            'prompts = ["resources/prompts/*.md", "!resources/prompts/draft-*"]\nextensions = ["ext"]\n'
        ),
        "pkg/resources/skills/one/SKILL.md": "---\nname: one\ndescription: first\n---\nbody\n",
        "pkg/resources/prompts/fix.md": "Fix $1\n",
        "pkg/resources/prompts/draft-x.md": "draft\n",
        "pkg/skills/ignored/SKILL.md": "---\nname: ignored\ndescription: the manifest names other folders\n---\n",
        "pkg/ext/gate.py": "",
        "pkg/ext/planner/__init__.py": "",
        "pkg/ext/planner/helpers.py": "",
        "pkg/ext/legacy.ts": "",
        "pkg/ext/__pycache__/gate.cpython-311.pyc": "",
    })
    loaded = _load(tmp_path, {"packages": ["../pkg"]})
    assert [s.name for s in loaded.skills.skills] == ["one"]  # type: ignore[attr-defined]
    assert [t.name for t in loaded.prompt_templates.templates] == ["fix"]  # type: ignore[attr-defined]
    extensions = [r.path for r in loaded.extensions]  # type: ignore[attr-defined]
    # Pi's TypeScript extensions are found beside ours (the Node host runs them, ts_extensions).
    assert extensions == [
        str(tmp_path / "pkg/ext/gate.py"), str(tmp_path / "pkg/ext/legacy.ts"), str(tmp_path / "pkg/ext/planner/__init__.py")
    ]
    assert loaded.expand("/fix the bug") == "Fix the\n"  # type: ignore[attr-defined]


def test_no_extensions_leaves_extension_paths_out(tmp_path: Path) -> None:
    _write(tmp_path, {"agent/extensions/tool.py": ""})
    assert [r.path for r in _load(tmp_path, {}).extensions] == [str(tmp_path / "agent/extensions/tool.py")]  # type: ignore[attr-defined]
    assert _load(tmp_path, {}, no_extensions=True).extensions == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("enabled", [True, False, None])
def test_skill_commands_follow_enable_skill_commands(tmp_path: Path, enabled: bool | None) -> None:
    _write(tmp_path, {
        "agent/skills/a/SKILL.md": "---\nname: a\ndescription: skill a\n---\nx\n",
        "agent/prompts/p.md": "---\ndescription: template p\nargument-hint: <x>\n---\nP $1\n",
    })
    settings = {} if enabled is None else {"enableSkillCommands": enabled}
    loaded = _load(tmp_path, settings)
    names = [(c.name, c.description) for c in loaded.commands()]  # type: ignore[attr-defined]
    expected = [("p", "template p")] + ([("skill:a", "skill a")] if enabled is not False else [])
    assert names == expected
    # As in Pi, the setting only hides the commands from completion: /skill:a still expands.
    assert loaded.expand("/skill:a now").endswith("</skill>\n\nnow")  # type: ignore[attr-defined]


def test_command_words_agree() -> None:
    assert set(PACKAGE_COMMANDS) == PACKAGE_WORDS


@pytest.mark.parametrize(
    "text",
    [
        "name: a\ndescription: plain text, with commas - and dashes\n",
        "name: a\nflag: true\nother: null\nempty:\n",
        "name: a\n\n# comment\ndescription: x\n",
        "description: ünïcödé text ✓\n",
    ],
)
def test_direct_frontmatter_reader_agrees_with_yaml(text: str) -> None:
    simple = _parse_simple(text.rstrip("\n"))
    assert simple is not None
    assert simple == load_yaml12(text)


@pytest.mark.parametrize(
    "text",
    ["description: a: b", "description: 'quoted'", "n: 12", "list:\n  - a", "d: x #c", "k: [a]", "a: 1\na: 2", "t:\tx"],
)
def test_direct_frontmatter_reader_leaves_the_rest_to_yaml(text: str) -> None:
    assert _parse_simple(text) is None


def test_frontmatter_error_names_the_line() -> None:
    with pytest.raises(Exception, match=r"line 3"):
        parse_frontmatter("---\nname: ok\ndescription: a: b\n---\nbody\n")


@pytest.mark.parametrize(
    ("source", "kind", "identity"),
    [
        ("git:github.com/user/repo@v1", "git", ("github.com", "user/repo", "v1", "https://github.com/user/repo")),
        ("https://github.com/user/repo.git", "git", ("github.com", "user/repo", None, "https://github.com/user/repo.git")),
        ("git:git@github.com:user/repo@v2", "git", ("github.com", "user/repo", "v2", "git@github.com:user/repo")),
        ("git:file:///srv/repos/kit@main", "git", ("file", "srv/repos/kit", "main", "file:///srv/repos/kit")),
        ("ssh://git@host.example/team/kit", "git", ("host.example", "team/kit", None, "ssh://git@host.example/team/kit")),
        ("pypi:Pi_Review.Kit>=1,<2", "pypi", ("pi-review-kit", ">=1,<2")),
        ("npm:@scope/pkg@1.2.3", "npm", ("@scope/pkg", "1.2.3")),
        ("./folder", "local", ("./folder",)),
        ("file:///abs/folder", "local", ("file:///abs/folder",)),
        ("git:nothost/x", "local", ("git:nothost/x",)),
    ],
)
def test_sources(source: str, kind: str, identity: tuple[object, ...]) -> None:
    parsed = parse_source(source)
    assert parsed.kind == kind
    if kind == "git":
        assert (parsed.host, parsed.path, parsed.ref, parsed.repo) == identity  # type: ignore[union-attr]
    elif kind == "pypi":
        assert (parsed.name, parsed.specifier) == identity  # type: ignore[union-attr]
    elif kind == "npm":
        assert (parsed.name, parsed.version) == identity  # type: ignore[union-attr]
    else:
        assert (parsed.path,) == identity  # type: ignore[union-attr]


def test_pinned_sources() -> None:
    assert parse_source("pypi:kit==1.0.0").pinned
    assert not parse_source("pypi:kit>=1.0").pinned
    assert not parse_source("pypi:kit==1.*").pinned
    assert parse_source("git:github.com/u/r@v1").pinned
    assert not parse_source("git:github.com/u/r").pinned


def test_a_crafted_package_source_is_reported_not_fatal(tmp_path: Path) -> None:
    loaded = _load(tmp_path, {"packages": ["npm:../../../etc", "pypi:not a name!"]})
    messages = [str(d) for d in loaded.diagnostics]  # type: ignore[attr-defined]
    assert any("npm:../../../etc is ignored: Refusing to use path outside package install root" in m for m in messages)
    assert "package entry ignored: pypi:not a name! is not a distribution name" in " ".join(messages)
