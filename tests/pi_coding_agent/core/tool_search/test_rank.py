"""The ranking rules of ``tool_search`` and the ``mcp_servers`` section's limits."""

from __future__ import annotations

from pi_coding_agent.core.mcp.config import McpServerEntry
from pi_coding_agent.core.mcp.manager import ListedServer, servers_section
from pi_coding_agent.core.tool_search import Candidate, rank, search_document, tokenize

DOCS = [
    search_document(Candidate("mcp__gh__list_issues", "List issues of a repository.", {"properties": {"repo": {"type": "string"}}})),
    search_document(Candidate("mcp__gh__window", "Resize a window.", {})),
    search_document(Candidate("mcp__shot__capture", "Take a screenshot of a window.", {})),
    search_document(Candidate("mcp__app__thread_read", "Read a thread.", {}), ),
]  # fmt: skip


def test_words_are_split_singular_and_without_stop_words() -> None:
    assert tokenize("listIssues of the HTTPServer searches") == ["list", "issue", "http", "server", "search"]


def test_more_query_terms_matched_beats_a_name_match() -> None:
    assert rank("screenshot window", DOCS, 8)[:2] == ["mcp__shot__capture", "mcp__gh__window"]


def test_a_query_naming_a_tool_ranks_it_first() -> None:
    assert rank("thread_read", DOCS, 8)[0] == "mcp__app__thread_read"
    assert rank("issue", DOCS, 1) == ["mcp__gh__list_issues"]
    assert rank("repo", DOCS, 8) == ["mcp__gh__list_issues"]  # parameter names count
    assert rank("the", DOCS, 8) == []


def _entry(name: str, **config: object) -> McpServerEntry:
    return McpServerEntry(name=name, config={"command": "x", **config}, source="mcp.json", scope="user")


def test_servers_section_lists_indirect_servers_by_name_with_their_summary() -> None:
    servers = [
        ListedServer(_entry("zeta", exposure="deferred"), "Zeta tools\nmore"),
        ListedServer(_entry("alpha", description="A" * 400), None),
        ListedServer(_entry("direct-one", exposure="direct"), None),
        ListedServer(_entry("off", enabled=False), None),
    ]
    lines = (servers_section(servers) or "").splitlines()
    assert lines[1] == f"- mcp__alpha (codemode): {'A' * 249}…"
    assert lines[2] == "- mcp__zeta (tool_search): Zeta tools"
    assert len(lines) == 3
    assert servers_section(servers[2:]) is None
    many = [ListedServer(_entry(f"server{i:03}"), None) for i in range(300)]
    text = servers_section(many) or ""
    assert len(text) <= 4096 and text.endswith("more servers; find their tools with searchTools()")
