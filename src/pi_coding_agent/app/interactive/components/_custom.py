"""What extensions draw in the transcript: custom messages, ``custom`` entries, and tools
with their own ``render_call`` / ``render_result``.

A renderer returns a list of lines, a string, or a TUI component (anything with
``render(width)``); ``None`` falls back to the default rendering. It gets the theme as one
more argument when it takes it (Pi passes ``(message, options, theme)``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_ai import content_text
from pi_coding_agent.app.interactive.components._tools import ToolExecutionView, text_output
from pi_coding_agent.core.messages import CustomRoleMessage
from pi_tui import Box, Component, Container, Markdown, Spacer, Text, terminal_safe

if TYPE_CHECKING:
    from pi_coding_agent.customize.themes import Theme


class _Lines:
    """A renderer's list of lines as a component (content: it passes the terminal-output policy)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def render(self, width: int) -> list[str]:
        return [line for text in self.lines for line in Text(terminal_safe(text), 0, 0).render(width)]

    def invalidate(self) -> None:
        return


def call_renderer(renderer: Callable[..., Any], theme: Theme, *args: Any) -> Any:
    """``renderer(*args)``, with the theme as one more argument when it takes it (Pi passes
    ``(message, options, theme)``; ours may leave the theme out)."""
    try:
        parameters = inspect.signature(renderer).parameters.values()
    except (TypeError, ValueError):
        return renderer(*args)
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    takes_more = any(p.kind == p.VAR_POSITIONAL for p in parameters) or len(positional) > len(args)
    return renderer(*args, theme) if takes_more else renderer(*args)


def as_component(rendered: Any) -> Component | None:
    """A renderer's answer as a component (``None`` when it gave nothing)."""
    if rendered is None:
        return None
    if callable(getattr(rendered, "render", None)):
        return rendered  # type: ignore[no-any-return]
    if isinstance(rendered, str):
        return _Lines(rendered.split("\n"))
    return _Lines([str(line) for line in rendered])


class CustomMessageView(Container):
    """A custom message: its renderer's component, or Pi's default card."""

    def __init__(self, message: CustomRoleMessage, renderer: Callable[..., Any] | None, theme: Theme,
                 markdown: Any, report: Callable[[BaseException], None]) -> None:  # fmt: skip
        super().__init__()
        self.message, self.renderer, self.theme, self.markdown, self.report = message, renderer, theme, markdown, report
        self.expanded = False
        self._rebuild()

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._rebuild()

    def _rebuild(self) -> None:
        rendered = None
        if self.renderer is not None:
            try:
                rendered = as_component(call_renderer(self.renderer, self.theme, self.message, {"expanded": self.expanded}))
            except Exception as error:  # Pi falls back to the default card
                self.report(error)
        if rendered is not None and hasattr(rendered, "fallback"):
            rendered.fallback = self._card()  # a renderer that answers later may give nothing
        self.children = [Spacer(1), rendered or self._card()]

    def _card(self) -> Component:
        theme = self.theme
        box = Box(1, 1, lambda s: theme.bg("customMessageBg", s))
        box.add_child(Text(theme.fg("customMessageLabel", f"\x1b[1m[{self.message.custom_type}]\x1b[22m"), 0, 0))
        box.add_child(Spacer(1))
        content = self.message.content
        text = content_text(content)
        box.add_child(Markdown(text, 0, 0, self.markdown, lambda s: theme.fg("customMessageText", s)))
        return box


class CustomEntryView(Container):
    """A ``custom`` entry drawn by its entry renderer (nothing when it returns nothing)."""

    def __init__(self, entry: Any, renderer: Callable[..., Any], theme: Theme) -> None:
        super().__init__()
        self.entry, self.renderer, self.theme = entry, renderer, theme
        self.expanded = False
        self._rebuild()

    @property
    def has_content(self) -> bool:
        return bool(self.children)

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded:
            self.expanded = expanded
            self._rebuild()

    def _rebuild(self) -> None:
        try:
            component = as_component(call_renderer(self.renderer, self.theme, self.entry, {"expanded": self.expanded}))
        except Exception as error:
            box = Box(1, 1, lambda s: self.theme.bg("customMessageBg", s))
            failure = terminal_safe(f"[{self.entry.custom_type}] renderer failed: {error}")
            box.add_child(Text(self.theme.fg("error", failure), 0, 0))
            component = box
        self.children = [Spacer(1), component] if component is not None else []

    def render(self, width: int) -> list[str]:
        if self.children and getattr(self.children[-1], "missing", False):
            return []  # a renderer that answered later gave nothing: the entry is not shown
        return super().render(width)


class ExtensionToolView(ToolExecutionView):
    """An extension tool whose definition renders its call and (or) its result."""

    def __init__(self, definition: Any, call_id: str, name: str, args: dict[str, Any], theme: Theme, *,
                 cwd: str, expanded: bool, report: Callable[[str, BaseException], None]) -> None:  # fmt: skip
        self.definition, self.call_id, self.report = definition, call_id, report
        super().__init__(name, args, theme, cwd, expanded=expanded)

    def _context(self) -> dict[str, Any]:
        ctx = self.ctx
        return {"args": ctx.args, "tool_call_id": self.call_id, "cwd": ctx.cwd, "expanded": ctx.expanded,
                "is_partial": ctx.partial, "is_error": ctx.is_error}  # fmt: skip

    def _render(self, which: str, *args: Any) -> Component | None:
        renderer = getattr(self.definition, which, None)
        if renderer is None:
            return None
        try:
            return as_component(call_renderer(renderer, self.theme, *args, self._context()))
        except Exception as error:
            self.report(f"tool:{self.name}:{which}", error)
            return None

    def _rebuild(self) -> None:
        super()._rebuild()
        if getattr(self.definition, "render_shell", "default") == "self":
            self._rebuild_bare()
            return
        box = self.children[-1]
        if not isinstance(box, Container):
            return
        call = self._render("render_call", self.ctx.args)
        if call is not None and box.children:
            box.children[0] = call
        if not (self.content or self.done):
            return
        from pi_agent import AgentToolResult

        result = AgentToolResult(content=list(self.content), details=self.details)
        options = {"expanded": self.ctx.expanded, "is_partial": self.ctx.partial}
        body = self._render("render_result", result, options)
        if body is not None:
            box.children[1:] = [Spacer(1), body]

    def _rebuild_bare(self) -> None:
        """``render_shell="self"``: the renderers' components one under the other, with no box
        (nor its colour or padding) around them, after one blank line, as Pi draws them."""
        call_text, result_text = self.renderers
        call = self._render("render_call", self.ctx.args) or Text(call_text(self.ctx), 0, 0)
        parts: list[Component] = [call]
        if self.content or self.done:
            from pi_agent import AgentToolResult

            result = AgentToolResult(content=list(self.content), details=self.details)
            options = {"expanded": self.ctx.expanded, "is_partial": self.ctx.partial}
            body = self._render("render_result", result, options)
            if body is None:
                lines = result_text(self.ctx, text_output(self.content), self.details)
                body = Text("\n".join(lines), 0, 0) if lines else None
            if body is not None:
                parts.append(body)
        self.children = [Spacer(1), *parts]

    def render(self, width: int) -> list[str]:
        if getattr(self.definition, "render_shell", "default") != "self":
            return super().render(width)
        lines = [line for part in self.children[1:] for line in part.render(width)]
        return ["", *lines] if lines else []
