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
from pi_coding_agent.core.session import SessionError, SessionManager, SessionTreeNode
from pi_coding_agent.core.session._ids import use_uuid_source

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
    """``value`` with the temporary folder replaced by ``<tmpdir>`` in every string (no recursion)."""
    root: list[Any] = [value]
    work: list[tuple[Any, Any]] = [(root, 0)]  # (container, key) whose value is to be scrubbed
    while work:
        container, key = work.pop()
        item = container[key]
        if isinstance(item, str):
            container[key] = item.replace(folder, "<tmpdir>")
        elif isinstance(item, list):
            copy = list(item)
            container[key] = copy
            work.extend((copy, index) for index in range(len(copy)))
        elif isinstance(item, dict):
            copied = dict(item)
            container[key] = copied
            work.extend((copied, name) for name in copied)
    return root[0]


def tree_ids(roots: list[SessionTreeNode]) -> list[dict[str, Any]]:
    """Pi's tree as the oracle prints it: ids, parents, types, labels and children (no recursion).

    Keys Pi leaves ``undefined`` (an entry without an ``id`` or ``type``) are left out.
    """
    out: list[dict[str, Any]] = []
    work: list[tuple[SessionTreeNode, list[dict[str, Any]]]] = [(node, out) for node in reversed(roots)]
    while work:
        node, siblings = work.pop()
        item: dict[str, Any] = {}
        if node.entry.id is not None:
            item["id"] = node.entry.id
        item["parentId"] = node.entry.parent_id
        if node.entry.type:
            item["type"] = node.entry.type
        if node.label is not None:
            item["label"] = node.label
        item["children"] = []
        siblings.append(item)
        work.extend((child, item["children"]) for child in reversed(node.children))
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
            if context.thinking_level is None:
                del result["context"]["thinkingLevel"]  # Pi's undefined (a level-less last change)
            entries = result["entries"]
            moved = "leafId" in request and (request["leafId"] is None or isinstance(request["leafId"], str))
            if leaf is None and not moved and entries and "id" not in entries[-1]:
                # Pi's leaf is the last entry's id: an entry without one leaves it undefined,
                # which JSON drops (our get_leaf_id() says None, as for a reset leaf).
                del result["leafId"]
        return scrub(result, folder)
