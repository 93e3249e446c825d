"""``grep`` and ``find`` ignore rules, checked on both search paths (rg/fd and the Python walk)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_ai import AbortController, TextContent
from pi_coding_agent.core.tools import FindTool, GrepTool, ToolError
from pi_coding_agent.core.tools._grep import _matching_lines
from tests.pi_coding_agent.core.tools.test_pi_outputs import require_external

BACKENDS = ["external", "python"]


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _git(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


async def _grep(root: Path, backend: str, **params: Any) -> str:
    if backend == "external":
        require_external("grep")
    result = await GrepTool(str(root), backend=backend).execute("c", params, None, None)  # type: ignore[arg-type]
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def _find(root: Path, backend: str, **params: Any) -> str:
    result = await FindTool(str(root), backend=backend).execute("c", params, None, None)  # type: ignore[arg-type]
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def _sorted_lines(text: str) -> list[str]:
    return sorted(text.split("\n"))


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_applies_gitignore_only_inside_a_repository(tmp_path: Path, backend: str) -> None:
    _write(tmp_path, {".gitignore": "skip.txt\n", "skip.txt": "needle\n", "keep.txt": "needle\n"})
    assert _sorted_lines(await _grep(tmp_path, backend, pattern="needle")) == [
        "keep.txt:1: needle",
        "skip.txt:1: needle",
    ]
    _git(tmp_path)
    assert await _grep(tmp_path, backend, pattern="needle") == "keep.txt:1: needle"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_glob_whitelist_overrides_ignore_files_but_not_ignored_dirs(
    tmp_path: Path, backend: str
) -> None:
    _git(tmp_path)
    _write(
        tmp_path,
        {
            ".gitignore": "secret.py\nbuild/\n",
            "secret.py": "hello\n",
            "build/x.py": "hello\n",
            "ok.py": "hello\n",
            "ok.txt": "hello\n",
        },
    )
    assert _sorted_lines(await _grep(tmp_path, backend, pattern="hello", glob="*.py")) == [
        "ok.py:1: hello",
        "secret.py:1: hello",
    ]
    assert await _grep(tmp_path, backend, pattern="hello", glob="!ok.py") == "ok.txt:1: hello"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_dot_ignore_and_nested_repository(tmp_path: Path, backend: str) -> None:
    _git(tmp_path)
    _write(
        tmp_path,
        {
            ".gitignore": "secret.py\n",
            ".ignore": "ok.py\n",
            "ok.py": "hello\n",
            "secret.py": "hello\n",
            "n/secret.py": "hello\n",
        },
    )
    _git(tmp_path / "n")
    assert await _grep(tmp_path, backend, pattern="hello") == "n/secret.py:1: hello"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_skips_binary_files(tmp_path: Path, backend: str) -> None:
    (tmp_path / "bin.dat").write_bytes(b"needle\x00\x01")
    (tmp_path / "t.txt").write_text("needle\n")
    assert await _grep(tmp_path, backend, pattern="needle") == "t.txt:1: needle"


async def test_grep_bad_regex_is_an_error_in_both(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("x\n")
    with pytest.raises(ToolError, match="regex parse error"):
        await _grep(tmp_path, "python", pattern="(")
    with pytest.raises(ToolError, match="regex parse error"):
        await _grep(tmp_path, "external", pattern="(")


@pytest.mark.parametrize("tool", [GrepTool, FindTool])
async def test_aborted_before_start(tmp_path: Path, tool: type[GrepTool] | type[FindTool]) -> None:
    controller = AbortController()
    controller.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await tool(str(tmp_path), backend="python").execute("c", {"pattern": "x"}, controller.signal, None)


async def test_find_respects_gitignore_outside_a_repository(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            ".gitignore": "gen/\n*.tmp\n",
            "a.py": "",
            "gen/b.py": "",
            "c.tmp": "",
            ".fdignore": "d.py\n",
            "d.py": "",
        },
    )
    assert await _find(tmp_path, "python", pattern="*") == ".fdignore\n.gitignore\na.py"
    # Without --no-require-git support in the installed fd, "auto" takes the walk: same answer.
    assert _sorted_lines(await _find(tmp_path, "auto", pattern="*")) == [".fdignore", ".gitignore", "a.py"]


async def test_find_python_backend_path_patterns_and_missing_root(tmp_path: Path) -> None:
    _write(tmp_path, {"src/a/t_one.py": "", "src/b/t_two.py": "", "t_three.py": "", "src/x.txt": ""})
    assert await _find(tmp_path, "python", pattern="src/**/t_*.py") == "src/a/t_one.py\nsrc/b/t_two.py"
    assert await _find(tmp_path, "python", pattern="t_{one,three}.py") == "src/a/t_one.py\nt_three.py"
    assert await _find(tmp_path, "python", pattern="**") == "\n".join(
        ["src/", "src/a/", "src/a/t_one.py", "src/b/", "src/b/t_two.py", "src/x.txt", "t_three.py"]
    )
    with pytest.raises(ToolError, match=r"^\[fd error\]: Search path '.*/nope' is not a directory\."):
        await _find(tmp_path, "python", pattern="*", path="nope")


@pytest.mark.parametrize("backend", ["external", "python"])
async def test_find_nested_repository_boundary(tmp_path: Path, backend: str) -> None:
    if backend == "external":
        require_external("find")
    _git(tmp_path)
    _write(
        tmp_path,
        {".gitignore": "*.log\n.git/\n", "a.log": "", "inner/b.log": "", "inner/.gitignore": ".git/\n"},
    )
    _git(tmp_path / "inner")
    out = await _find(tmp_path, backend, pattern="*.log")
    assert out == "inner/b.log"


async def test_external_backend_requires_the_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pi_coding_agent.core.tools._find as find_module
    import pi_coding_agent.core.tools._grep as grep_module

    monkeypatch.setattr(grep_module, "find_executable", lambda *_: None)
    monkeypatch.setattr(find_module, "find_executable", lambda *_: None)
    with pytest.raises(ToolError, match=r"^ripgrep \(rg\) is not available and could not be downloaded$"):
        await GrepTool(str(tmp_path), backend="external").execute("c", {"pattern": "x"}, None, None)
    with pytest.raises(ToolError, match=r"^fd is not available and could not be downloaded$"):
        await FindTool(str(tmp_path), backend="external").execute("c", {"pattern": "x"}, None, None)
    # "auto" falls back to the walk instead.
    (tmp_path / "x.txt").write_text("x\n")
    assert await _grep(tmp_path, "auto", pattern="x") == "x.txt:1: x"


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="ab \n\t", max_size=40),
    pattern=st.sampled_from(
        [
            "a",
            "^a",
            "b$",
            "^$",
            "a\\s*b",
            "[^a]+",
            "a.*",
            "\\bab\\b",
            "x*",
            "^ *$",
            "a|^b",
            "\\s$",
            "a\\Z",
            "(?<=a)b",
            "b(?!\\s)",
        ]
    ),
)
def test_whole_text_scan_finds_the_same_lines_as_a_line_loop(text: str, pattern: str) -> None:
    regex = re.compile(pattern)
    lines = text.split("\n") if text else []  # an empty file has no lines (ripgrep)
    if text.endswith("\n"):
        lines.pop()
    expected = [(n, line) for n, line in enumerate(lines, start=1) if regex.search(line)]
    assert list(_matching_lines(regex, text)) == expected
