"""``pi --session FILE`` on odd files: it resumes them or says one line, never a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox, run_ours
from tests.support.scripted_provider import ScriptedProvider

ODD_LINES = {
    "deep nesting": b'{"type":"message","id":"d","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"role":"user","content":"x","timestamp":2,"x":' + b"[" * 1500 + b"]" * 1500 + b"}}",
    "object role": b'{"type":"message","id":"d","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"role":{},"content":"x","timestamp":2}}',
    "lone surrogate": b'{"type":"message","id":"d","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"role":"user","content":"\\ud83d","timestamp":2}}',
    "out of range": b'{"type":"message","id":"d","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"role":"user","content":"x","timestamp":1e400}}',
    "invalid UTF-8": b'{"type":"message","id":"d","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"role":"user","content":"\xff\xfe","timestamp":2}}',
    "absurd time": b'{"type":"message","id":"d","parentId":"u","timestamp":1e15,'
    b'"message":{"role":"user","content":"x","timestamp":1e15}}',
    "NUL": b'{"type":"message","id":"d","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"role":"user","content":"a\\u0000b","timestamp":2}}',
}
PROBLEM = re.compile(r"^.+\.jsonl:\d+: ")


def _session(sandbox: Sandbox, odd: bytes, *, bom: bool = False) -> Path:
    header = json.dumps(
        {"type": "session", "version": 3, "id": "odd", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(sandbox.work)}
    ).encode()
    user = (
        b'{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
        b'"message":{"role":"user","content":"first","timestamp":1}}'
    )
    path = sandbox.work / "odd.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"\n".join([header, user, odd]) + b"\r\n")
    return path


@pytest.mark.parametrize("kind", sorted(ODD_LINES))
def test_pi_resumes_a_file_with_an_odd_line(tmp_path: Path, kind: str) -> None:
    with ScriptedProvider([{"text": "resumed"}]) as provider:
        sandbox = Sandbox.create(tmp_path, provider.base_url)
        path = _session(sandbox, ODD_LINES[kind])
        result = run_ours(sandbox, "--session", str(path), "--model", OPENAI_MODEL, "-p", "again")
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "resumed"
    # Anything said on stderr is a bad line, reported with file and line number.
    assert all(PROBLEM.match(line) for line in result.stderr.splitlines() if line.strip()), result.stderr


def test_a_bom_before_the_header_is_one_line_as_in_pi(tmp_path: Path) -> None:
    sandbox = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    path = _session(sandbox, ODD_LINES["NUL"], bom=True)
    before = path.read_bytes()
    result = run_ours(sandbox, "--session", str(path), "-p", "again")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "not a valid pi session" in lines[0], result.stderr
    assert path.read_bytes() == before
