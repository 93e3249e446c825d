"""Components of TypeScript extensions in our TUI: Node renders them, we draw their lines.

A ``RemoteComponent`` stands in our component tree for a component that lives in the Node
host (``ui.mjs``) under an id. Our renderer is synchronous and Node is another process, so
``render(width)`` returns the last lines Node sent and, when the width is new, asks Node for
lines at that width; the answer (and every later change Node pushes, after the component's
``requestRender`` or ``invalidate``) is stored and a new frame is requested. Keys the
component gets while focused are forwarded to its ``handleInput`` in Node.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from pi_tui import truncate_to_width


class ComponentLink(Protocol):
    """What a remote component needs of the host: its requests to Node and the last lines."""

    lines: dict[str, list[str]]
    completing: set[str]

    def send(
        self, op: str, fields: dict[str, Any], on_answer: Callable[[Any], None] | None = None
    ) -> None: ...

    def sync_theme(self) -> None: ...


class RemoteComponent:
    def __init__(self, link: ComponentLink, cid: str, spec: dict[str, Any] | None = None) -> None:
        self.link = link
        self.cid = cid
        self.spec = spec
        """What Node builds the component from (a renderer's arguments); sent with the first render."""
        self._width: int | None = None
        self._focused = False
        self.missing = False
        """Node's renderer gave no component (a message renderer returning ``undefined``)."""
        self.fallback: Any = None
        """What shows instead then (Pi's default card of a custom message), set by the view."""

    def render(self, width: int) -> list[str]:
        if width != self._width:
            self._width = width
            fields: dict[str, Any] = {"cid": self.cid, "width": width}
            if self.spec is not None:
                fields["spec"], self.spec = self.spec, None
            self.link.send("uiRender", fields, self._answered)
        if self.missing and self.fallback is not None:
            return list(self.fallback.render(width))
        return [truncate_to_width(line, width) for line in self.link.lines.get(self.cid, [])]

    def _answered(self, answer: Any) -> None:
        lines = answer.get("lines") if isinstance(answer, dict) else None
        self.missing = not isinstance(lines, list)
        self.link.lines[self.cid] = [str(line) for line in lines] if isinstance(lines, list) else []
        if isinstance(answer, dict):
            note_completing(self.link.completing, self.cid, answer.get("completing"))

    def handle_input(self, data: str) -> None:
        self.link.send("uiInput", {"cid": self.cid, "data": data})

    def invalidate(self) -> None:
        """Our theme may have changed: Node gets its colours, then invalidates and redraws."""
        self.link.sync_theme()

    @property
    def focused(self) -> bool:
        return self._focused

    @focused.setter
    def focused(self, value: bool) -> None:
        if value != self._focused:
            self._focused = value
            self.link.send("uiFocus", {"cid": self.cid, "focused": value})

    def dispose(self) -> None:
        self.link.lines.pop(self.cid, None)
        self.link.completing.discard(self.cid)
        self.link.send("uiDispose", {"cid": self.cid})


class RemoteEditor(RemoteComponent):
    """An extension's editor (``setEditorComponent``): our mode reads its text (kept here as
    Node reports each change) and hears its submissions."""

    def __init__(self, link: ComponentLink, cid: str) -> None:
        super().__init__(link, cid)
        self.on_submit: Callable[[str], None] | None = None
        self.on_change: Callable[[str], None] | None = None
        self._text = ""

    def get_text(self) -> str:
        return self._text

    @property
    def completion_open(self) -> bool:
        """Node's editor shows its completion list (in the lines we draw): our app keys then
        leave Escape to it, which closes the list, as Pi's ``CustomEditor`` does."""
        return self.cid in self.link.completing

    def set_text(self, text: str) -> None:
        self._text = text
        self.link.send("uiSetText", {"cid": self.cid, "text": text})

    def changed(self, text: str) -> None:
        self._text = text
        if self.on_change is not None:
            self.on_change(text)

    def submitted(self, text: str) -> None:
        self._text = ""
        if self.on_submit is not None:
            self.on_submit(text)


def note_completing(completing: set[str], cid: str, flag: Any) -> None:
    """Keep whether the component under ``cid`` shows its completion list (Node's word)."""
    if flag is True:
        completing.add(cid)
    else:
        completing.discard(cid)


def overlay_options(given: Any) -> Any:
    """Pi's ``OverlayOptions`` (camelCase JSON) as ours; ``None`` when none were given."""
    from pi_tui import OverlayOptions

    if not isinstance(given, dict):
        return None
    names = {"width": "width", "minWidth": "min_width", "maxHeight": "max_height", "anchor": "anchor",
             "offsetX": "offset_x", "offsetY": "offset_y", "row": "row", "col": "col", "margin": "margin"}  # fmt: skip
    fields = {ours: given[theirs] for theirs, ours in names.items() if given.get(theirs) is not None}
    if not isinstance(fields.get("margin", 0), int):
        fields.pop("margin")
    return OverlayOptions(**fields)


class ComponentCalls:
    """Node's requests to show a component: ``custom`` (until Node says it is done), a widget,
    the header and the footer. Each is shown through the mode's UI (the interactive one has
    them; elsewhere Node does not ask)."""

    def __init__(self, link: ComponentLink) -> None:
        self.link = link
        self._closers: dict[str, Callable[[], None]] = {}
        self.editor: RemoteEditor | None = None

    def editor_event(self, kind: str, cid: str, text: str) -> None:
        """Node's editor changed its text or submitted it."""
        editor = self.editor
        if editor is None or editor.cid != cid:
            return
        if kind == "editorSubmit":
            editor.submitted(text)
        else:
            editor.changed(text)

    def close(self, cid: str) -> None:
        closer = self._closers.pop(cid, None)
        if closer is not None:
            closer()

    async def answer(self, ui: Any, method: str, given: dict[str, Any]) -> Any:
        cid = given.get("cid")
        if method == "setEditorComponent":
            self.editor = RemoteEditor(self.link, cid) if isinstance(cid, str) else None
            editor = self.editor
            with contextlib.suppress(AttributeError):
                ui.set_editor_component((lambda *_: editor) if editor is not None else None)
            return None
        component = RemoteComponent(self.link, str(cid)) if isinstance(cid, str) else None
        if method == "custom" and component is not None:
            return await self._custom(ui, component, given)
        factory = (lambda *_: component) if component is not None else None
        if method == "setWidgetComponent":
            with contextlib.suppress(AttributeError):
                ui.set_widget(str(given.get("key")), factory, given.get("placement"))
        elif method == "setHeader":
            with contextlib.suppress(AttributeError):
                ui.set_header(factory)
        elif method == "setFooter":
            with contextlib.suppress(AttributeError):
                ui.set_footer(factory)
        return None

    async def _custom(self, ui: Any, component: RemoteComponent, given: dict[str, Any]) -> None:
        custom = getattr(ui, "custom", None)
        if custom is None:
            return None

        def factory(_tui: Any, _theme: Any, _keys: Any, done: Callable[[Any], None]) -> RemoteComponent:
            self._closers[component.cid] = lambda: done(None)
            return component

        try:
            await custom(
                factory,
                overlay=bool(given.get("overlay")),
                overlay_options=overlay_options(given.get("overlayOptions")),
            )
        finally:
            self._closers.pop(component.cid, None)
        return None
