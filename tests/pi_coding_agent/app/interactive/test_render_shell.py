"""A Python extension tool with ``render_shell="self"`` is drawn as Pi 1.6 draws a
``renderShell: "self"`` tool: a blank line, then its renderers' lines with no box around them
(no background colour, no padding); the default shell keeps the padded, coloured box.
(TypeScript tools beside Pi 1.6: ``customize/ts_extensions/test_typescript_ui_api.py``.)"""

from __future__ import annotations

import re
from typing import Any

from pi_ai import TextContent
from pi_coding_agent.app.interactive.components import ExtensionToolView
from pi_coding_agent.customize.extensions import ToolDefinition
from pi_coding_agent.customize.themes import builtin_theme


def _view(shell: str, *, with_result: bool = True) -> ExtensionToolView:
    def render_call(args: dict[str, Any], _context: dict[str, Any]) -> list[str]:
        return [f"FRAME CALL {args['label']}"]

    definition = ToolDefinition(
        name="frame",
        description="draws a frame",
        parameters={"type": "object", "properties": {}},
        execute=lambda *_: "framed",
        render_call=render_call,
        render_result=(lambda result, _options, _context: [f"FRAME RESULT {result.details}"])
        if with_result
        else None,
        render_shell="self" if shell == "self" else "default",
    )
    view = ExtensionToolView(definition, "c1", "frame", {"label": "north"}, builtin_theme("dark", truecolor=False),
                             cwd="/", expanded=False, report=lambda *_: None)  # fmt: skip
    view.set_result([TextContent(text="framed north")], "north", False, False)
    return view


def test_a_self_shell_has_no_box() -> None:
    drawn = _view("self").render(40)
    assert drawn == ["", "FRAME CALL north", "FRAME RESULT north"]


def test_a_self_shell_without_a_result_renderer_shows_the_output_unboxed() -> None:
    drawn = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in _view("self", with_result=False).render(40)]
    assert drawn[:2] == ["", "FRAME CALL north"]
    assert "framed north" in drawn[2:]


def test_the_default_shell_is_a_padded_coloured_box() -> None:
    drawn = _view("default").render(40)
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in drawn]
    assert plain[0] == ""
    assert any(line.startswith(" FRAME CALL north") for line in plain)
    assert all(len(line) == 40 for line in plain[1:])  # the box's background fills each line
