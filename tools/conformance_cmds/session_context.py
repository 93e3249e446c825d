"""``session-context``: open a session file with ``SessionManager`` and report what it sees.

Mirrors ``../shared/oracle/lib/session.mjs``: the text is written to ``session.jsonl`` in a
temporary folder (also the process cwd), opened for writing, the leaf optionally moved, and
the same fields reported. Entry ids minted while migrating come from a counter, as in the
oracle (``00000001``, ``00000002``, ...).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from conformance_cmds._common import Rejected
from pi_ai import to_builtins
from pi_coding_agent.session import SessionError, SessionManager, SessionTreeNode
from pi_coding_agent.session._ids import use_uuid_source

__all__ = ["Rejected", "run"]


def counter_uuids() -> Callable[[], str]:
    count = 0

    def next_uuid() -> str:
        nonlocal count
        count += 1
        return f"{count:08x}-0000-4000-8000-000000000000"

    return next_uuid


@contextlib.contextmanager
def session_file(jsonl: Any) -> Iterator[tuple[str, str]]:
    """(file, folder) holding ``jsonl``, with the folder as the current directory."""
    if not isinstance(jsonl, str):
        raise Rejected("input.jsonl (the session file text) is required")
    folder = tempfile.mkdtemp(prefix="pi-conformance-session-")
    previous = os.getcwd()
    path = os.path.join(folder, "session.jsonl")
    with open(path, "w", encoding="utf-8", newline="") as file:
        file.write(jsonl)
    os.chdir(folder)
    try:
        yield path, folder
    except SessionError as error:
        raise Rejected(str(error).replace(folder, "<tmpdir>")) from None
    finally:
        os.chdir(previous)
        shutil.rmtree(folder, ignore_errors=True)


def scrub(value: Any, folder: str) -> Any:
    if isinstance(value, str):
        return value.replace(folder, "<tmpdir>")
    if isinstance(value, list):
        return [scrub(item, folder) for item in value]
    if isinstance(value, dict):
        return {key: scrub(item, folder) for key, item in value.items()}
    return value


def tree_ids(nodes: list[SessionTreeNode]) -> list[dict[str, Any]]:
    out = []
    for node in nodes:
        item: dict[str, Any] = {
            "id": node.entry.id,
            "parentId": node.entry.parent_id,
            "type": node.entry.type,
        }
        if node.label is not None:
            item["label"] = node.label
        item["children"] = tree_ids(node.children)
        out.append(item)
    return out


def read_text(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as file:
        return file.read()


def run(request: Any) -> Any:
    if not isinstance(request, dict):
        raise Rejected("input must be an object")
    with session_file(request.get("jsonl")) as (path, folder):
        use_uuid_source(counter_uuids())
        try:
            manager = SessionManager.open(path, folder)
        finally:
            use_uuid_source(None)
        with manager:
            if "leafId" in request and request["leafId"] is None:
                manager.reset_leaf()
            elif isinstance(request.get("leafId"), str):
                manager.branch(request["leafId"])
            context = manager.build_session_context()
            leaf = manager.get_leaf_id()
            result = {
                "header": manager.get_header_data(),
                "sessionId": manager.get_session_id(),
                "cwd": manager.get_cwd(),
                "sessionName": manager.get_session_name(),
                "leafId": leaf,
                "entries": manager.get_entries_data(),
                "tree": tree_ids(manager.get_tree()),
                "branchIds": [] if leaf is None else [entry.id for entry in manager.get_branch()],
                "contextEntryIds": [entry.id for entry in manager.build_context_entries()],
                "context": {
                    "messages": to_builtins(context.messages),
                    "thinkingLevel": context.thinking_level,
                    "model": to_builtins(context.model) if context.model is not None else None,
                },
                "fileRewritten": read_text(path) != request["jsonl"],
            }
        return scrub(result, folder)
