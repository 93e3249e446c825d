"""The screen's stack of areas, top to bottom, as in Pi's interactive mode.

document (header, then the transcript), pending messages (the queue and user commands
held while the agent works), status (working and retry indicators), widgets above the
editor, the editor area (the editor, or a selector or dialog in its place), widgets below
it, the footer. In fullscreen mode the document scrolls and the rest stays at the bottom.
"""

from __future__ import annotations

from pi_tui import TUI, Component, Container, Spacer, Text, terminal_safe

MAX_WIDGET_LINES = 10
Placement = str


class Layout:
    def __init__(self, tui: TUI, editor: Component, footer: Component) -> None:
        self.tui = tui
        self.header = Container()
        self.chat = Container()
        self.document = Container()
        self.document.add_child(self.header)
        self.document.add_child(self.chat)
        self.pending = Container()
        self.status = Container()
        self.widgets_above = Container()
        self.editor_area = Container()
        self.widgets_below = Container()
        self.footer_area = Container()
        self.editor_area.add_child(editor)
        self.footer_area.add_child(footer)
        self._widgets: dict[str, tuple[Placement, Component]] = {}
        self._arrange_widgets()
        for area in (
            self.document, self.pending, self.status, self.widgets_above,
            self.editor_area, self.widgets_below, self.footer_area,
        ):  # fmt: skip
            tui.add_child(area)

    def show_in_editor_area(self, component: Component) -> None:
        self.editor_area.children = [component]
        self.tui.request_render()

    def set_widget(self, key: str, component: Component | None, placement: Placement = "aboveEditor") -> None:
        """Show (or with ``None`` remove) a widget above or below the editor."""
        previous = self._widgets.pop(key, None)
        if previous is not None:
            _dispose(previous[1])
        if component is not None:
            self._widgets[key] = ("belowEditor" if placement == "belowEditor" else "aboveEditor", component)
        self._arrange_widgets()

    def clear_widgets(self) -> None:
        for _, component in self._widgets.values():
            _dispose(component)
        self._widgets.clear()
        self._arrange_widgets()

    def _arrange_widgets(self) -> None:
        above = [c for p, c in self._widgets.values() if p == "aboveEditor"]
        below = [c for p, c in self._widgets.values() if p == "belowEditor"]
        # Pi keeps one empty line above the editor when there is no widget, and one before them.
        self.widgets_above.children = [Spacer(1), *above]
        self.widgets_below.children = below
        self.tui.request_render()

    def set_footer(self, footer: Component) -> None:
        self.footer_area.children = [footer]
        self.tui.request_render()


def widget_lines(lines: list[str], muted: object) -> Container:
    """An extension's ``set_widget(key, lines)``: at most ten lines, then a truncation note."""
    container = Container()
    for line in lines[:MAX_WIDGET_LINES]:
        container.add_child(Text(terminal_safe(line), 1, 0))
    if len(lines) > MAX_WIDGET_LINES and callable(muted):
        container.add_child(Text(muted("... (widget truncated)"), 1, 0))
    return container


def _dispose(component: object) -> None:
    dispose = getattr(component, "dispose", None)
    if callable(dispose):
        dispose()
