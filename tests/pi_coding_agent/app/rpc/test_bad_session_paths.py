"""RPC against session paths and sessions that broke things before (issue 28): ``switch_session``
to a FIFO, ``/dev/zero``, a directory or a socket answers an error and the server serves the
next command (``/dev/zero`` froze it at 100% CPU); ``export_html`` of a session holding lone
surrogates succeeds, and a failed export does not break the next one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_coding_agent.app.rpc import RpcClient
from tests.pi_coding_agent.app.rpc._support import our_pi
from tests.pi_coding_agent.core.session.test_not_regular import KINDS, make_special
from tests.pi_coding_agent.e2e._harness import OPENAI_MODEL, Sandbox
from tests.reliability.figures import record

SURROGATE_SESSION = (
    '{"type":"session","version":3,"id":"odd","timestamp":"2026-01-01T00:00:00.000Z","cwd":%s}\n'
    '{"type":"message","id":"e0","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
    '"message":{"role":"user","content":"half \\ud83d an emoji","timestamp":1}}\n'
    '{"type":"message","id":"e1","parentId":"e0","timestamp":"\\udc00",'
    '"message":{"role":"assistant","content":[{"type":"text","text":"x"}],"timestamp":"\\ud800"}}\n'
)


def _check_page(page: Path) -> None:
    text = page.read_text(encoding="utf-8")  # well-formed UTF-8
    assert "half \ufffd an emoji" in text
    assert [p.name for p in page.parent.iterdir() if p.name.endswith(".tmp")] == []  # no temp file left


async def _client(box: Sandbox) -> RpcClient:
    client = RpcClient([str(our_pi())], args=["--model", OPENAI_MODEL], cwd=box.work, env=box.env())
    await client.start()
    return client


@pytest.mark.timeout(60)
async def test_switch_session_to_a_path_that_is_no_file_answers_an_error(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    specials = [(description, *make_special(tmp_path, kind)) for description, kind in sorted(KINDS.items())]
    client = await _client(box)
    try:
        for description, path, _ in specials:
            answer = await client.send({"type": "switch_session", "sessionPath": str(path)})
            assert answer["success"] is False
            assert answer["error"] == (
                f"Session file {path} is not a regular file ({description}); refusing to read it"
            )
            state = await client.get_state()  # the server serves the next command
            assert state["messageCount"] == 0
            record("non_regular_path", surface="rpc switch_session", kind=description, refused=1)
    finally:
        code = await client.stop()
        for _, _, held in specials:
            if held is not None:
                held.close()
    assert code == 0


@pytest.mark.timeout(60)
async def test_export_html_of_lone_surrogates_and_after_a_failure(tmp_path: Path) -> None:
    box = Sandbox.create(tmp_path, "http://127.0.0.1:9")
    session = tmp_path / "odd.jsonl"
    session.write_text(SURROGATE_SESSION % json.dumps(str(box.work)), encoding="ascii")
    client = await _client(box)
    try:
        switched = await client.send({"type": "switch_session", "sessionPath": str(session)})
        assert switched["success"], switched["error"]
        missing = tmp_path / "no such folder" / "page.html"
        failed = await client.send({"type": "export_html", "outputPath": str(missing)})
        assert failed["success"] is False and str(missing) in failed["error"]
        assert not missing.parent.exists()
        page = tmp_path / "page.html"
        done = await client.send({"type": "export_html", "outputPath": str(page)})
        assert done["success"] is True, done
        again = await client.send({"type": "export_html", "outputPath": str(page)})
        assert again["success"] is True, again
    finally:
        await client.stop()
    _check_page(page)
    record("export_input", surface="rpc export_html", exported=2, failed=1)
