"""The ``grep`` tool: matching lines with file and line number, ``.gitignore`` respected.

ripgrep does the search when it is installed (``rg --json``); otherwise a Python search
with the same ignore rules, glob filter and output runs in a worker thread. The Python
fallback uses Python's ``re`` dialect, which accepts almost every pattern ripgrep's does.
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
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
from pi_coding_agent.core.tools._external import ExternalSearchTool, find_executable
from pi_coding_agent.core.tools._glob import GlobError, compile_glob
from pi_coding_agent.core.tools._lines import run_search
from pi_coding_agent.core.tools._paths import resolve_to_cwd
from pi_coding_agent.core.tools._truncate import DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, truncate_line
from pi_coding_agent.core.tools._walk import IgnoreWalker, RuleStacks, sorted_entries

DEFAULT_GREP_LIMIT = 100


GREP_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["pattern"],
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Regular expression to search for (or a literal string)",
        },
        "path": {
            "type": "string",
            "description": "Directory or file to search (default: the working directory)",
        },
        "glob": {
            "type": "string",
            "description": "Only search files matching this glob, e.g. '*.py' or '**/test_*.py'",
        },
        "ignoreCase": {"type": "boolean", "description": "Match regardless of case (default: false)"},
        "literal": {
            "type": "boolean",
            "description": "Take the pattern as plain text, not a regex (default: false)",
        },
        "context": {
            "type": "number",
            "description": "Lines to show before and after each match (default: 0)",
        },
        "limit": {"type": "number", "description": f"Most matches to return (default: {DEFAULT_GREP_LIMIT})"},
    },
}


@dataclass(slots=True)
class _Match:
    path: str
    line_number: int
    line_text: str | None
    """The matched line as the search reported it; ``None`` when it was not valid UTF-8."""


@dataclass(slots=True, frozen=True)
class _Query:
    pattern: str
    glob: str | None
    ignore_case: bool
    literal: bool
    limit: int


@dataclass(slots=True)
class _Search:
    matches: list[_Match]
    count: int
    limit_reached: bool


class GrepTool(ExternalSearchTool):
    name = "grep"
    label = "grep"
    description = (
        "Search file contents for a regular expression (or a literal string) and get the matching "
        "lines with file path and line number. Files ignored by .gitignore are skipped. At most "
        f"{DEFAULT_GREP_LIMIT} matches or {DEFAULT_MAX_BYTES // 1024}KB are returned, whichever is hit "
        f"first, and lines longer than {GREP_MAX_LINE_LENGTH} characters are cut."
    )
    parameters: dict[str, Any] = GREP_PARAMETERS
    prompt_snippet = "Search file contents for patterns (respects .gitignore)"
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
        glob = params.get("glob") or None
        ignore_case = bool(params.get("ignoreCase"))
        literal = bool(params.get("literal"))
        context_arg = optional_number(params, "context")
        context = js_int(context_arg) if context_arg and context_arg > 0 else 0
        limit_arg = optional_number(params, "limit")
        limit = max(1, js_int(limit_arg) if limit_arg is not None else DEFAULT_GREP_LIMIT)
        query = _Query(pattern, glob, ignore_case, literal, limit)
        rg = None if self.backend == "python" else find_executable("rg", self.bin_dir)
        if rg is None and self.backend == "external":
            raise ToolError("ripgrep (rg) is not available and could not be downloaded")
        is_dir = _kind(search_path)
        if is_dir is None:
            raise ToolError(f"Path not found: {search_path}")
        if rg is not None:
            search = await _search_rg(rg, query, search_path, signal)
        else:
            search = await _search_python(query, search_path, is_dir, signal)
        return _format(search, search_path, is_dir, context, limit)


def _kind(path: str) -> bool | None:
    """True for a directory, False for anything else that exists, None when it does not."""
    try:
        return os.path.isdir(path) if os.path.exists(path) else None
    except OSError:
        return None


async def _search_rg(rg: str, query: _Query, search_path: str, signal: AbortSignal | None) -> _Search:
    argv = [rg, "--json", "--line-number", "--color=never", "--hidden"]
    if query.ignore_case:
        argv.append("--ignore-case")
    if query.literal:
        argv.append("--fixed-strings")
    if query.glob:
        argv += ["--glob", query.glob]
    argv += ["--", query.pattern, search_path]
    limit = query.limit
    search = _Search([], 0, False)

    def on_line(line: str) -> bool:
        if not line.strip():
            return True
        try:
            event = json.loads(line)
        except ValueError:
            return True
        if not isinstance(event, dict) or event.get("type") != "match":
            return True
        search.count += 1
        data = event.get("data") or {}
        path = (data.get("path") or {}).get("text")
        number = data.get("line_number")
        text = (data.get("lines") or {}).get("text")
        if path and isinstance(number, int):
            search.matches.append(_Match(path, number, text if isinstance(text, str) else None))
        if search.count >= limit:
            search.limit_reached = True
            return False
        return True

    result = await run_search("ripgrep", argv, on_line, signal)
    if not result.stopped and result.returncode not in (0, 1):
        raise ToolError(result.stderr.strip() or f"ripgrep exited with code {result.returncode}")
    return search


async def _search_python(
    query: _Query, search_path: str, is_dir: bool, signal: AbortSignal | None
) -> _Search:
    flags = re.IGNORECASE if query.ignore_case else 0
    try:
        regex = re.compile(re.escape(query.pattern) if query.literal else query.pattern, flags)
    except re.error as error:
        raise ToolError(f"regex parse error: {error}") from None
    try:
        file_filter = _glob_filter(query.glob)
    except (GlobError, re.error) as error:
        raise ToolError(f"error parsing glob '{query.glob}': {error}") from None
    work = functools.partial(_python_search, regex, search_path, is_dir, file_filter, query.limit)
    return await run_in_thread(work, signal)


class _GlobFilter:
    """ripgrep's ``--glob``: a whitelist (or, with ``!``, a blacklist) over paths from the root.

    A glob without ``/`` applies to the file name at any depth. A file the whitelist matches
    is searched even if an ignore file excludes it.
    """

    def __init__(self, glob: str) -> None:
        self.negated = glob.startswith("!")
        body = glob[1:] if self.negated else glob
        anchored = "/" in body.rstrip("/")
        body = body.lstrip("/") if body.startswith("/") else body
        self.regex = compile_glob(body if anchored or body.startswith("**/") else f"**/{body}")

    def decide(self, relative: str) -> bool | None:
        """True: search it, False: skip it, None: no opinion (normal ignore rules)."""
        matched = self.regex.fullmatch(relative) is not None
        if self.negated:
            return False if matched else None
        return matched


def _glob_filter(glob: str | None) -> _GlobFilter | None:
    return _GlobFilter(glob) if glob else None


def _python_search(  # noqa: PLR0917 - a thread entry point, called once
    regex: re.Pattern[str],
    search_path: str,
    is_dir: bool,
    file_filter: _GlobFilter | None,
    limit: int,
    cancelled: threading.Event,
) -> _Search:
    search = _Search([], 0, False)
    files: Iterable[str]
    if not is_dir:
        files = [search_path]
    else:
        walker = IgnoreWalker(search_path, tool_ignore_file=".rgignore", require_git=True)
        files = _candidate_files(walker, file_filter)
    for path in files:
        if cancelled.is_set():
            break
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if b"\0" in data:
            continue
        text = data.decode("utf-8", "replace")
        for number, line in _matching_lines(regex, text):
            search.count += 1
            search.matches.append(_Match(path, number, line))
            if search.count >= limit:
                search.limit_reached = True
                return search
    return search


_WHOLE_TEXT_UNSAFE = re.compile(r"\\[AZz]|\(\?<?[=!]")
"""Constructs whose meaning changes when a line is searched inside the whole text."""


def _matching_lines(regex: re.Pattern[str], text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each line in which ``regex`` finds a match.

    Lines are searched one by one, as ripgrep does. To avoid a regex call per line, the
    whole text is searched with ``^``/``$`` at line breaks to jump to candidate lines, and
    each candidate line is then checked alone; patterns with absolute anchors or
    lookarounds, which can behave differently at a line break, take the plain loop.
    """
    if not text:
        return  # an empty file has no lines
    if _WHOLE_TEXT_UNSAFE.search(regex.pattern):
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        for number, line in enumerate(lines, start=1):
            if regex.search(line) is not None:
                yield number, line
        return
    scanner = re.compile(regex.pattern, regex.flags | re.MULTILINE)
    size = len(text)
    position = 0
    number = 1
    while position < size or (position == size and not text.endswith("\n")):
        found = scanner.search(text, position)
        if found is None:
            return
        start = found.start()
        if start == size and text.endswith("\n"):
            return  # the empty string after the final newline is not a line
        number += text.count("\n", position, start)
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        if line_end == -1:
            line_end = size
        line = text[line_start:line_end]
        if regex.search(line) is not None:
            yield number, line
        position = line_end + 1
        number += 1


def _candidate_files(walker: IgnoreWalker, file_filter: _GlobFilter | None) -> Iterator[str]:
    if file_filter is None or file_filter.negated:
        for entry in walker.walk():
            if entry.is_dir or entry.is_symlink:
                continue
            if file_filter is not None and file_filter.decide(entry.relative) is False:
                continue
            yield entry.path
        return
    # A whitelist glob overrides ignore files for the files it matches: walk without dropping
    # ignored files, but still without entering ignored directories.
    stacks, in_repo = walker.initial_state()
    yield from _whitelisted(walker, walker.root, "", stacks, in_repo, file_filter)


def _whitelisted(  # noqa: PLR0917 - recursive helper
    walker: IgnoreWalker,
    directory: str,
    relative: str,
    stacks: RuleStacks,
    in_repo: bool,
    file_filter: _GlobFilter,
) -> Iterator[str]:
    for entry in sorted_entries(directory):
        try:
            if entry.is_symlink():
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        rel = f"{relative}{entry.name}"
        if is_dir:
            if walker.ignored(stacks, entry.path, True, in_repo):
                continue
            child_stacks, child_in_repo = walker.descend(entry.path, stacks, in_repo)
            yield from _whitelisted(walker, entry.path, rel + "/", child_stacks, child_in_repo, file_filter)
        elif file_filter.decide(rel):
            yield entry.path


def _format(
    search: _Search, search_path: str, is_dir: bool, context: int, limit: int
) -> AgentToolResult[Any]:
    if search.count == 0:
        return AgentToolResult(content=_text("No matches found"))
    lines_truncated = False
    file_cache: dict[str, list[str]] = {}

    def shown(path: str) -> str:
        if is_dir:
            rel = os.path.relpath(path, search_path)
            if rel and not rel.startswith(".."):
                return rel.replace(os.sep, "/")
        return os.path.basename(path)

    def file_lines(path: str) -> list[str]:
        cached = file_cache.get(path)
        if cached is None:
            try:
                with open(path, "rb") as handle:
                    content = handle.read().decode("utf-8", "replace")
                cached = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            except OSError:
                cached = []
            file_cache[path] = cached
        return cached

    output: list[str] = []
    for match in search.matches:
        rel = shown(match.path)
        if context == 0 and match.line_text is not None:
            text = match.line_text.replace("\r\n", "\n").replace("\r", "")
            if text.endswith("\n"):
                text = text[:-1]
            cut, was_cut = truncate_line(text)
            lines_truncated = lines_truncated or was_cut
            output.append(f"{rel}:{match.line_number}: {cut}")
            continue
        lines = file_lines(match.path)
        if not lines:
            output.append(f"{rel}:{match.line_number}: (unable to read file)")
            continue
        first = max(1, match.line_number - context) if context else match.line_number
        last = min(len(lines), match.line_number + context) if context else match.line_number
        for current in range(first, last + 1):
            text = lines[current - 1] if current - 1 < len(lines) else ""
            cut, was_cut = truncate_line(text.replace("\r", ""))
            lines_truncated = lines_truncated or was_cut
            separator = ":" if current == match.line_number else "-"
            output.append(f"{rel}{separator}{current}{separator} {cut}")
    limit_notice = lines_notice = None
    if search.limit_reached:
        notice = f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern"
        limit_notice = (notice, "matchLimitReached", limit)
    if lines_truncated:
        notice = f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        lines_notice = (notice, "linesTruncated", True)
    return listing_result(output, limit_notice, lines_notice)
