"""Numbers in tool arguments are drawn as Pi draws them (JavaScript's ``JSON.stringify``): ``3``,
not ``3.0``; ``123456789012345680000`` and ``1e+21``, not Python's float spellings. Two places
print arguments as JSON: an unknown tool's call line and the ``/tree`` label of a tool result."""

from __future__ import annotations

import re

from pi_coding_agent.app.interactive.components import ToolExecutionView
from pi_coding_agent.app.interactive.selectors._tree import format_tool_call
from pi_coding_agent.customize.themes import builtin_theme

ARGS = {"n": 3.0, "big": 123456789012345678901.0, "huge": 1e21, "small": 1e-7, "text": "é"}
JS_TEXT = '{"n":3,"big":123456789012345680000,"huge":1e+21,"small":1e-7,"text":"é"}'


def test_an_unknown_tools_call_line_spells_numbers_as_javascript() -> None:
    view = ToolExecutionView("mystery", ARGS, builtin_theme("dark", truecolor=False), "/", expanded=True)
    drawn = "\n".join(view.render(200))
    plain = re.sub(r"\x1b\[[0-9;]*m", "", drawn)
    assert JS_TEXT in plain
    assert "3.0" not in plain and "e+20" not in plain


def test_the_tree_label_of_a_tool_result_spells_numbers_as_javascript() -> None:
    assert format_tool_call("mystery", {"n": 3.0}) == '[mystery: {"n":3}]'
    assert format_tool_call("mystery", ARGS) == f"[mystery: {JS_TEXT[:40]}...]"
