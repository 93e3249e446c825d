"""The ``find`` tool: paths matching a glob, ``.gitignore`` respected.

fd does the search when it is installed; otherwise a Python walk with fd's rules: a
pattern without ``/`` is matched against each entry's name, one with ``/`` against the
whole path (a ``**/`` prefix is added unless the pattern starts with ``/`` or ``**/``);
matching ignores case unless the pattern has an upper-case letter (fd's smart case).
Directories are listed too, with a trailing ``/``.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from typing import Any

from pi_agent import AgentToolResult, ToolUpdateCallback
from pi_ai import AbortSignal
from pi_coding_agent.core.tools._common import (
    ToolError,
    js_int,
    listing_result,
    optional_number,
    raise_if_aborted,
    run_in_thread,
)
from pi_coding_agent.core.tools._common import text_content as _text
from pi_coding_agent.core.tools._external import (
    ExternalSearchTool,
    fd_supports_no_require_git,
    find_executable,
)
from pi_coding_agent.core.tools._glob import GlobError, compile_glob
from pi_coding_agent.core.tools._lines import run_search
from pi_coding_agent.core.tools._paths import resolve_to_cwd
from pi_coding_agent.core.tools._truncate import DEFAULT_MAX_BYTES
from pi_coding_agent.core.tools._walk import IgnoreWalker

DEFAULT_FIND_LIMIT = 1000


def inside_git_repo(path: str) -> bool:
    current = path
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def relativize(result: str, root: str) -> str:
    """A result path relative to the search root, ``/``-separated, trailing ``/`` kept."""
    trailing = result.endswith("/")
    relative = os.path.relpath(result, root) if os.path.isabs(result) else result
    relative = relative.replace(os.sep, "/")
    return relative + "/" if trailing and not relative.endswith("/") else relative


FIND_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["pattern"],
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Glob to match, e.g. '*.py', '**/*.json' or 'src/**/test_*.py'",
        },
        "path": {"type": "string", "description": "Directory to search (default: the working directory)"},
        "limit": {"type": "number", "description": f"Most results to return (default: {DEFAULT_FIND_LIMIT})"},
    },
}


class FindTool(ExternalSearchTool):
    name = "find"
    label = "find"
    description = (
        "Find files by glob pattern; paths come back relative to the searched directory. Files "
        f"ignored by .gitignore are skipped. At most {DEFAULT_FIND_LIMIT} results or "
        f"{DEFAULT_MAX_BYTES // 1024}KB are returned, whichever is hit first."
    )
    parameters: dict[str, Any] = FIND_PARAMETERS
    prompt_snippet = "Find files by glob pattern (respects .gitignore)"
    prompt_guidelines: tuple[str, ...] = ()

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        raise_if_aborted(signal)
        pattern = str(params["pattern"])
        search_path = resolve_to_cwd(str(params.get("path") or "."), self.cwd)
        limit_arg = optional_number(params, "limit")
        limit = DEFAULT_FIND_LIMIT if limit_arg is None else js_int(limit_arg)
        in_repo = inside_git_repo(search_path)
        fd = None if self.backend == "python" else find_executable("fd", self.bin_dir)
        if fd is not None and not in_repo and not fd_supports_no_require_git(fd) and self.backend == "auto":
            fd = None  # this fd cannot apply .gitignore outside a repository; the walk can
        if fd is None and self.backend == "external":
            raise ToolError("fd is not available and could not be downloaded")
        if fd is not None:
            results = await _find_fd(fd, pattern, search_path, limit=limit, in_repo=in_repo, signal=signal)
        else:
            results = await _find_python(pattern, search_path, limit, signal)
        if not results:
            return AgentToolResult(content=_text("No files found matching pattern"))
        limit_notice = None
        if len(results) >= limit:
            notice = f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
            limit_notice = (notice, "resultLimitReached", limit)
        return listing_result(results, limit_notice)


def _effective_pattern(pattern: str) -> tuple[str, bool]:
    """The pattern as fd gets it, and whether it is matched against full paths."""
    if "/" not in pattern:
        return pattern, False
    if not pattern.startswith("/") and not pattern.startswith("**/") and pattern != "**":
        return f"**/{pattern}", True
    return pattern, True


async def _find_fd(
    fd: str, pattern: str, search_path: str, *, limit: int, in_repo: bool, signal: AbortSignal | None
) -> list[str]:
    argv = [fd, "--glob", "--color=never", "--hidden"]
    if not in_repo:
        argv.append("--no-require-git")
    argv += ["--max-results", str(limit)]
    effective, full_path = _effective_pattern(pattern)
    if full_path:
        argv.append("--full-path")
    argv += ["--", effective, search_path]
    lines: list[str] = []

    def on_line(line: str) -> bool:
        lines.append(line)
        return True

    result = await run_search("fd", argv, on_line, signal)
    output = "\n".join(lines)
    if result.returncode != 0 and not output:
        raise ToolError(result.stderr.strip() or f"fd exited with code {result.returncode}")
    if not output:
        return []
    results = []
    for raw in lines:
        line = raw.removesuffix("\r").strip()
        if line:
            results.append(relativize(line, search_path))
    return results


async def _find_python(pattern: str, search_path: str, limit: int, signal: AbortSignal | None) -> list[str]:
    effective, full_path = _effective_pattern(pattern)
    ignore_case = not any(char.isupper() for char in effective)
    try:
        regex = compile_glob(effective, ignore_case=ignore_case)
    except (GlobError, re.error) as error:
        raise ToolError(f"[fd error]: {error}") from None
    return await run_in_thread(functools.partial(_walk_matches, regex, full_path, search_path, limit), signal)


def _walk_matches(
    regex: re.Pattern[str], full_path: bool, root: str, limit: int, cancelled: threading.Event
) -> list[str]:
    if not os.path.isdir(root):
        raise ToolError(
            f"[fd error]: Search path '{root}' is not a directory.\n[fd error]: No valid search paths given."
        )
    results: list[str] = []
    if limit <= 0:
        return results
    walker = IgnoreWalker(root, tool_ignore_file=".fdignore", require_git=False)
    for entry in walker.walk():
        if cancelled.is_set():
            break
        subject = entry.path if full_path else os.path.basename(entry.path)
        if regex.fullmatch(subject) is None:
            continue
        results.append(entry.relative + "/" if entry.is_dir else entry.relative)
        if len(results) >= limit:
            break
    return results
