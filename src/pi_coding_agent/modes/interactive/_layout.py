"""The screen's stack of areas, top to bottom, as in Pi's interactive mode.

header, transcript (chat), pending messages, status (the working indicator), widgets
above the editor, the editor, widgets below it, footer. Extensions reach the widget
areas, the status line and the footer through ``set_widget``/``set_status``/``set_footer``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_coding_agent.tui import TUI, Component, Container, StaticLines

if TYPE_CHECKING:
    from pi_coding_agent.modes.interactive.components import Footer

MAX_WIDGET_LINES = 10


class Layout:
    def __init__(self, tui: TUI, editor: Component, footer: Footer) -> None:
        self.tui = tui
        self.header = Container()
        self.chat = Container()
        self.pending = Container()
        self.status = Container()
        self.widgets_above = Container()
        self.editor_area = Container()
        self.widgets_below = Container()
        self.footer_area = Container()
        self.default_footer = footer
        self.editor_area.add_child(editor)
        self.footer_area.add_child(footer)
        self._widgets: dict[str, tuple[str, Component]] = {}
        for area in (
            self.header, self.chat, self.pending, self.status, self.widgets_above,
            self.editor_area, self.widgets_below, self.footer_area,
        ):  # fmt: skip
            tui.add_child(area)

    def set_widget(
        self, key: str, content: list[str] | Component | None, placement: str = "aboveEditor"
    ) -> None:
        """Show (or with ``None`` remove) a widget: lines or a component, above or below the editor."""
        self._widgets.pop(key, None)
        if content is not None:
            component = StaticLines(content[:MAX_WIDGET_LINES]) if isinstance(content, list) else content
            self._widgets[key] = ("belowEditor" if placement == "belowEditor" else "aboveEditor", component)
        self.widgets_above.children = [c for p, c in self._widgets.values() if p == "aboveEditor"]
        self.widgets_below.children = [c for p, c in self._widgets.values() if p == "belowEditor"]
        self.tui.request_render()

    def set_footer(self, footer: Component | None) -> None:
        self.footer_area.children = [footer or self.default_footer]
        self.tui.request_render()

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.default_footer.statuses.pop(key, None)
        else:
            self.default_footer.statuses[key] = text
        self.default_footer.invalidate()
        self.tui.request_render()
