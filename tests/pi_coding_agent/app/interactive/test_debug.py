"""``/debug`` (hidden) writes Pi's debug log (ours in-process, Pi's own TUI in tmux: the same
layout). ``/llama`` is tested in ``test_llama.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.pi_coding_agent.app.interactive._play import Driven, play
from tests.pi_coding_agent.app.interactive._tmux import suggestions

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(params=["ours", "pi"])
def which(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_debug_writes_the_screen_and_the_messages(tmp_path: Path, which: str) -> None:
    async def scenario(app: Driven) -> None:
        await app.submit("hello")
        await app.wait_for("the answer")
        await app.wait_until_gone("Working")
        await app.type("/debu")
        await app.wait_until(lambda s: not suggestions(s), "/debug is offered")  # hidden
        await app.type("g")
        await app.send("Enter")
        await app.wait_for("✓ Debug log written")
        await app.quit()

    app = play(tmp_path, which, [{"text": "the answer"}], scenario)
    lines = (app.sandbox.agent_dir / "pi-debug.log").read_text(encoding="utf-8").split("\n")
    assert re.fullmatch(r"Debug output at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", lines[0])
    assert re.fullmatch(r"Terminal: \d+x\d+", lines[1])
    count = int(lines[2].removeprefix("Total lines: "))
    assert lines[3:5] == ["", "=== All rendered lines with visible widths ==="]
    rendered = lines[5 : 5 + count]
    assert all(re.fullmatch(rf"\[{i}\] \(w=\d+\) \".*\"", row) for i, row in enumerate(rendered))
    assert any("the answer" in json.loads(row.split(") ", 1)[1]) for row in rendered)
    assert lines[5 + count : 7 + count] == ["", "=== Agent messages (JSONL) ==="]
    # Ours starts with Pi 1.6's system message (Pi 0.85 has none).
    messages = [m for m in (json.loads(row) for row in lines[7 + count :] if row) if m["role"] != "system"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["content"] == [{"type": "text", "text": "the answer"}]
    assert lines[-1] == ""
