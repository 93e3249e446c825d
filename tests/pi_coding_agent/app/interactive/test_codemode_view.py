"""A codemode call in the transcript: the script's first line (all of it once expanded), a row
per tool call the script made with its status, then the output."""

from __future__ import annotations

import re

from pi_ai import TextContent
from pi_coding_agent.app.interactive.components import ToolExecutionView
from pi_coding_agent.customize.themes import builtin_theme

CODE = 'const a = await tools.read({ path: "a.txt" });\nreturn a.length;'
DETAILS = {"calls": [
    {"id": "c/1", "name": "read", "args": '{"path":"a.txt"}', "status": "ok", "durationMs": 3},
    {"id": "c/2", "name": "bash", "args": '{"command":"false"}', "status": "error", "error": "boom"},
]}  # fmt: skip


def _plain(view: ToolExecutionView) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(view.render(120)))


def test_collapsed_and_expanded_codemode_calls() -> None:
    theme = builtin_theme("dark", truecolor=False)
    view = ToolExecutionView("codemode", {"code": CODE}, theme, "/", expanded=False)
    view.set_result([TextContent(text="Script completed\nWall time 0.1 seconds\nOutput:\n"), TextContent(text="42")], DETAILS, False, False)
    collapsed = _plain(view)
    assert 'codemode const a = await tools.read({ path: "a.txt" }); (2 lines)' in collapsed
    assert '✓ read {"path":"a.txt"}' in collapsed and '✗ bash {"command":"false"}' in collapsed
    assert "Script completed" in collapsed and "42" in collapsed
    view.set_expanded(True)
    assert "return a.length;" in _plain(view)
