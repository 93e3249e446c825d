"""``session-migrate``: version migration of a session file, as the oracle reports it.

``entries`` are the parsed lines migrated in memory; ``fileAfterOpen`` is the file after
``SessionManager.open`` rewrote it. We keep lines that do not parse where Pi drops them
(the one deliberate difference here), so ``normalize`` compares files without such lines.
"""

from __future__ import annotations

from typing import Any

import msgspec

from conformance_cmds._common import Rejected
from conformance_cmds.session_context import counter_uuids, read_text, scrub, session_file
from pi_coding_agent.core.session import CURRENT_SESSION_VERSION, SessionManager, migrate_session_entries
from pi_coding_agent.core.session._ids import use_uuid_source
from pi_coding_agent.core.session._migrate import file_version, load_legacy

__all__ = ["Rejected", "normalize", "run"]


def run(request: Any) -> Any:
    if not isinstance(request, dict):
        raise Rejected("input must be an object")
    with session_file(request.get("jsonl")) as (path, folder):
        entries = load_legacy(request["jsonl"].encode()).entries()
        version = file_version(entries)
        before = msgspec.json.encode(entries)
        use_uuid_source(counter_uuids())
        try:
            migrate_session_entries(entries)
        finally:
            use_uuid_source(None)
        result: dict[str, Any] = {
            "fromVersion": version,
            "toVersion": CURRENT_SESSION_VERSION,
            "migrated": msgspec.json.encode(entries) != before,
            "entries": entries,
        }
        file_after: str | None = None
        use_uuid_source(counter_uuids())
        try:
            SessionManager.open(path, folder).close()
            file_after = read_text(path)
        except Exception as error:
            result["openError"] = str(error)
        finally:
            use_uuid_source(None)
        result["fileAfterOpen"] = file_after
        result["fileRewritten"] = file_after is not None and file_after != request["jsonl"]
        return scrub(result, folder)


def _parses(line: str) -> bool:
    try:
        return isinstance(msgspec.json.decode(line), dict)
    except msgspec.DecodeError:
        return False


def normalize(output: Any) -> Any:
    """Drop unparsable lines from ``fileAfterOpen``: Pi deletes them, we keep them on purpose."""
    if isinstance(output, dict) and isinstance(output.get("fileAfterOpen"), str):
        lines = output["fileAfterOpen"].split("\n")
        kept = [line for line in lines[:-1] if _parses(line)] + lines[-1:]
        output = {**output, "fileAfterOpen": "\n".join(kept)}
    return output
