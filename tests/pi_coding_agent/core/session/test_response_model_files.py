"""A session holding an Anthropic reply as Pi 1.6 records it (``model``: the requested id,
``responseModel``: the allowed fallback model that answered; Pi 0.85 overwrote ``model``) stays
readable by both Pis.

``session-context/anthropic_response_model_split`` is the file our ``SessionManager`` wrote for
the reply our adapter read from ``parse-stream/anthropic_fallback_response_model``, followed by
a reply as Pi 0.85 wrote it (``tools/gen_pi16_misc_cases.py``); Pi 0.85's and Pi 1.6's answers
to it are recorded. Both Pis read it alike, ours reads it as they do (nothing folded), and our
adapter and manager still write those lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_ai import decode_message
from pi_coding_agent.core.session import SessionManager
from tests.support import pi16
from tests.support.cases import CASES
from tests.support.oracle import conformance_in_process

NAME = "anthropic_response_model_split"
SESSION = CASES / "session-context" / f"{NAME}.json"


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_both_pis_and_ours_read_the_split_alike() -> None:
    request = json.loads(SESSION.read_text(encoding="utf-8"))
    pi085 = json.loads(SESSION.with_name(f"{NAME}.out.json").read_text(encoding="utf-8"))
    pi16_answer = json.loads(pi16.answer_path("session-context", NAME).read_text(encoding="utf-8"))
    assert pi085 == pi16_answer
    assert conformance_in_process("session-context", request) == (0, pi085)
    replies = [m for m in pi085["context"]["messages"] if m["role"] == "assistant"]
    assert [(m["model"], m.get("responseModel")) for m in replies] == [
        ("claude-sonnet-5-5", "claude-opus-5"),
        ("claude-sonnet-4-5-20250929", None),
    ]


def test_our_adapter_and_manager_write_that_reply(tmp_path: Path) -> None:
    stream_case = json.loads((CASES / "parse-stream" / "anthropic_fallback_response_model.json").read_text())
    code, answer = conformance_in_process("parse-stream", stream_case, current=True)
    assert code == 0
    manager = SessionManager.create("/srv/project", str(tmp_path))
    written = _lines(json.loads(SESSION.read_text(encoding="utf-8"))["jsonl"])
    manager.append_message(decode_message(json.dumps(written[1]["message"]).encode()))
    manager.append_message(decode_message(json.dumps(answer["final"]).encode()))
    path = manager.get_session_file()
    manager.close()
    assert path is not None
    ours = _lines(Path(path).read_text(encoding="utf-8"))
    assert ours[2]["message"] == written[2]["message"]
    assert list(ours[2]["message"]) == list(written[2]["message"])  # the key order too
