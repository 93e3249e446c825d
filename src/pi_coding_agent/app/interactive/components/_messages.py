"""User and assistant messages, user bash runs, compaction and branch-summary cards."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_ai import AssistantMessage, TextContent, ThinkingContent, ToolCall
from pi_tui import (
    Box,
    Component,
    Container,
    DynamicBorder,
    Loader,
    Markdown,
    MarkdownTheme,
    Spacer,
    Text,
    terminal_safe,
    wrap_text_with_ansi,
)

if TYPE_CHECKING:
    from pi_coding_agent.core.messages import BashExecutionMessage
    from pi_coding_agent.customize.themes import Theme

BASH_PREVIEW_LINES = 20  # Pi's preview of a user bash run
ZONE_START = "\x1b]133;A\x07"
ZONE_END = "\x1b]133;B\x07\x1b]133;C\x07"


def mark_zone(lines: list[str], first: int = 0) -> list[str]:
    """Pi's semantic prompt marks (``OSC 133``) around a message, from line ``first``: the
    terminal's (and fullscreen mode's) previous/next prompt jumps stop there."""
    if len(lines) <= first:
        return lines
    lines = list(lines)
    lines[first] = ZONE_START + lines[first]
    lines[-1] = ZONE_END + lines[-1]
    return lines

MarkdownTransform = Callable[[str, dict[str, Any]], str]
"""Display-only rewrite of a message's Markdown (extensions' ``register_markdown_transformer``):
``transform(markdown, {"message_type", "is_streaming", "available_width"})``."""


class TransformedMarkdown(Markdown):
    """Markdown whose source goes through ``transform`` at each render (at that width)."""

    def __init__(self, transform: MarkdownTransform, message_type: str, streaming: Callable[[], bool],
                 *args: Any) -> None:  # fmt: skip
        super().__init__(*args)
        self.transform, self.message_type, self.streaming = transform, message_type, streaming
        self.source = self.text

    def set_text(self, text: str) -> None:
        self.source = text

    def render(self, width: int) -> list[str]:
        context = {"message_type": self.message_type, "is_streaming": self.streaming(),
                   "available_width": max(1, width - 2 * self.padding_x)}  # fmt: skip
        super().set_text(self.transform(self.source, context))
        return super().render(width)


def markdown(transform: MarkdownTransform | None, message_type: str, streaming: Callable[[], bool],
             *args: Any) -> Markdown:  # fmt: skip
    return Markdown(*args) if transform is None else TransformedMarkdown(transform, message_type, streaming, *args)


class UserMessageView(Container):
    def __init__(self, text: str, theme: Theme, markdown_theme: MarkdownTheme,
                 transform: MarkdownTransform | None = None) -> None:  # fmt: skip
        super().__init__()
        self.add_child(Spacer(1))
        box = Box(1, 1, lambda s: theme.bg("userMessageBg", s))
        style = lambda s: theme.fg("userMessageText", s)  # noqa: E731
        box.add_child(markdown(transform, "user", lambda: False, text, 0, 0, markdown_theme, style))
        self.add_child(box)

    def render(self, width: int) -> list[str]:
        return mark_zone(super().render(width), first=1)  # the box, after the spacer above it


class AssistantMessageView(Container):
    """Text and thinking blocks of one answer, updated while it streams."""

    def __init__(
        self, theme: Theme, markdown_theme: MarkdownTheme, hide_thinking: bool, padding: int = 1,
        transform: MarkdownTransform | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.transform = transform
        self.is_streaming = False
        self.theme = theme
        self.markdown_theme = markdown_theme
        self.hide_thinking = hide_thinking
        self.padding = padding
        self._blocks: list[Markdown | Text] = []
        self._message: AssistantMessage | None = None

    def update(self, message: AssistantMessage) -> None:
        self._message = message
        theme = self.theme
        visible = [
            block for block in message.content
            if isinstance(block, TextContent | ThinkingContent) and _block_text(block).strip()
        ]  # fmt: skip
        if len(visible) < len(self._blocks) or any(
            isinstance(view, Markdown) != isinstance(block, TextContent | ThinkingContent)
            for view, block in zip(self._blocks, visible, strict=False)
        ):
            self._blocks = []
        while len(self._blocks) < len(visible):
            block = visible[len(self._blocks)]
            if isinstance(block, ThinkingContent) and self.hide_thinking:
                self._blocks.append(
                    Text(theme.italic(theme.fg("thinkingText", "Thinking...")), self.padding, 0)
                )
            elif isinstance(block, ThinkingContent):
                style = lambda s: theme.italic(theme.fg("thinkingText", s))  # noqa: E731
                self._blocks.append(markdown(self.transform, "assistant-thinking", lambda: self.is_streaming,
                                             "", self.padding, 0, self.markdown_theme, style))  # fmt: skip
            else:
                self._blocks.append(markdown(self.transform, "assistant", lambda: self.is_streaming,
                                             "", self.padding, 0, self.markdown_theme))  # fmt: skip
        for view, block in zip(self._blocks, visible, strict=False):
            if isinstance(view, Markdown):
                view.set_text(_block_text(block).strip())
        self.children = []
        for view in self._blocks:
            self.children.append(Spacer(1))
            self.children.append(view)
        text = _stop_note(message)
        if text is not None:
            self.children.append(Spacer(1))
            self.children.append(Text(theme.fg("error", terminal_safe(text)), self.padding, 0))

    def render(self, width: int) -> list[str]:
        lines = super().render(width)
        message = self._message
        if message is not None and any(isinstance(block, ToolCall) for block in message.content):
            return lines
        return mark_zone(lines)

    def set_hide_thinking(self, hide: bool) -> None:
        self.hide_thinking = hide
        self._blocks = []
        if self._message is not None:
            self.update(self._message)


def _block_text(block: TextContent | ThinkingContent) -> str:
    return block.text if isinstance(block, TextContent) else block.thinking


class BashExecutionView(Container):
    """A ``!cmd`` / ``!!cmd`` run as Pi draws it: between two rules (dim for ``!!``), the
    command, the last :data:`BASH_PREVIEW_LINES` lines of output (all once expanded), a
    spinner while it runs, then how it ended."""

    def __init__(
        self, command: str, theme: Theme, exclude_from_context: bool, request_render: Callable[[], None]
    ) -> None:
        super().__init__()
        self.command = command
        self.theme = theme
        colour = "dim" if exclude_from_context else "bashMode"
        self.colour = colour
        self.output = ""
        self.expanded = False
        self.status: str | None = None
        self.full_output_path: str | None = None
        self.loader: Loader | None = Loader(
            "Running... (escape to cancel)",
            request_render,
            spinner_style=lambda s: theme.fg(colour, s),
            message_style=lambda s: theme.fg("muted", s),
        )
        self._body = Container()
        border = DynamicBorder(lambda s: theme.fg(colour, s))
        self.children = [Spacer(1), border, self._body, border]
        self._rebuild()

    def start(self) -> None:
        if self.loader is not None:
            self.loader.start()

    def append_output(self, chunk: str) -> None:
        self.output += terminal_safe(chunk.replace("\r\n", "\n").replace("\r", "\n"))
        self._rebuild()

    def finish(self, message: BashExecutionMessage) -> None:
        from msgspec import UNSET

        if self.loader is not None:
            self.loader.stop()
            self.loader = None
        self.output = terminal_safe(message.output)  # a session file's, on resume
        if message.cancelled:
            self.status = "cancelled"
        elif message.exit_code not in (0, None, UNSET):
            self.status = f"exit {message.exit_code}"
        if isinstance(message.full_output_path, str) and message.truncated:
            self.full_output_path = message.full_output_path
        self._rebuild()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        self._rebuild()

    def _rebuild(self) -> None:
        theme = self.theme
        lines = self.output.split("\n") if self.output else []  # a final newline shows as a blank line, as in Pi
        shown = lines if self.expanded else lines[-BASH_PREVIEW_LINES:]
        body: list[Component] = [Text(theme.fg(self.colour, theme.bold(f"$ {self.command}")), 1, 0)]
        if shown:
            output = "\n" + "\n".join(theme.fg("muted", line) for line in shown)
            body.append(Text(output, 1, 0) if self.expanded else _LastLines(output, BASH_PREVIEW_LINES))
        if self.loader is not None:
            body.append(self.loader)
        else:
            notes: list[str] = []
            if len(shown) < len(lines):
                notes.append(theme.fg("muted", f"... {len(lines) - len(shown)} more lines (ctrl+o to expand)"))
            if self.status == "cancelled":
                notes.append(theme.fg("warning", "(cancelled)"))
            elif self.status:
                notes.append(theme.fg("error", f"({self.status})"))
            if self.full_output_path:
                notes.append(theme.fg("warning", f"Output truncated. Full output: {self.full_output_path}"))
            if notes:
                body.append(Text("\n" + "\n".join(notes), 1, 0))
        self._body.children = body


class _LastLines:
    """The last ``count`` screen lines of a text wrapped to the width (a collapsed preview)."""

    def __init__(self, text: str, count: int) -> None:
        self.text = Text(text, 1, 0)
        self.count = count

    def render(self, width: int) -> list[str]:
        return self.text.render(width)[-self.count :]

    def invalidate(self) -> None:
        self.text.invalidate()


class SummaryCard(Container):
    """A compaction or branch summary (Pi's cards): ``[compaction]``/``[branch]``, then one line
    naming it, or the whole summary once Ctrl+O expanded the tool output."""

    def __init__(
        self, kind: str, title: str, summary: str, theme: Theme, markdown_theme: MarkdownTheme, *, expand_key: str = "ctrl+o"
    ) -> None:
        super().__init__()
        self.kind, self.title, self.summary = kind, title, summary
        self.theme = theme
        self.markdown_theme = markdown_theme
        self.expand_key = expand_key
        self.expanded = False
        self._rebuild()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        self._rebuild()

    def _rebuild(self) -> None:
        theme = self.theme
        box = Box(1, 1, lambda s: theme.bg("customMessageBg", s))
        box.add_child(Text(theme.fg("customMessageLabel", theme.bold(f"[{self.kind}]")), 0, 0))
        box.add_child(Spacer(1))
        if self.expanded:
            text = f"**{self.title}**\n\n{self.summary}"
            box.add_child(Markdown(text, 0, 0, self.markdown_theme, lambda s: theme.fg("customMessageText", s)))
        else:
            collapsed = self.title[:1] + self.title[1:].lower() if self.kind == "branch" else self.title
            line = theme.fg("customMessageText", f"{collapsed} (") + theme.fg("dim", self.expand_key)
            box.add_child(Text(line + theme.fg("customMessageText", " to expand)"), 0, 0))
        self.children = [Spacer(1), box]


def notice(text: str, theme: Theme, token: str = "muted") -> Container:
    """A one-off line in the transcript (warnings, errors, status)."""
    container = Container()
    container.add_child(Spacer(1))
    container.add_child(Text(theme.fg(token, terminal_safe(text)), 1, 0))
    return container


__all__ = [
    "AssistantMessageView",
    "BashExecutionView",
    "SummaryCard",
    "UserMessageView",
    "notice",
    "wrap_text_with_ansi",
]


def _stop_note(message: AssistantMessage) -> str | None:
    """The line under an answer that did not finish (Pi's wording); an answer with tool calls
    leaves an abort or error to its tool calls, which show it."""
    if message.stop_reason == "length":
        return "Response was truncated before completion."
    if any(isinstance(block, ToolCall) for block in message.content):
        return None
    if message.stop_reason == "aborted":
        reason = message.error_message
        return reason if reason and reason != "Request was aborted" else "Operation aborted"
    if message.stop_reason == "error":
        return f"Error: {message.error_message or 'Unknown error'}"
    return None
