"""The transcript: what the session said, as components in the chat area.

``Transcript`` turns stored messages (``render_messages``, on start, after a compaction,
a tree navigation or a session switch) and live session events (``on_event``) into
message, tool, bash and summary components, and adds the one-line notices Pi shows
(``status``: dim, consecutive ones replace each other; ``warning``; ``error``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_agent import (
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage, content_text
from pi_coding_agent.app.interactive._cache_notices import AnswerKey, answer_key
from pi_coding_agent.app.interactive.components import (
    AssistantMessageView,
    BashExecutionView,
    MarkdownTransform,
    SummaryCard,
    ToolExecutionView,
    UserMessageView,
)
from pi_coding_agent.core.messages import BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage
from pi_coding_agent.customize.themes import Theme
from pi_tui import Component, Container, MarkdownTheme, Spacer, Text, terminal_safe


@dataclass
class TranscriptStyle:
    theme: Theme
    markdown: MarkdownTheme
    hide_thinking: bool = False
    tools_expanded: bool = False
    output_pad: int = 1
    markdown_transform: MarkdownTransform | None = None
    """The extensions' Markdown transformers, chained (``None`` without any)."""
    show_images: bool = True
    """``terminal.showImages``: ``False`` shows tool results' images as Pi's text line."""


class Transcript:
    def __init__(
        self, chat: Container, style: TranscriptStyle, cwd: str, request_render: Callable[[], None]
    ) -> None:
        self.chat = chat
        self.style = style
        self.cwd = cwd
        self.request_render = request_render
        self.streaming: AssistantMessageView | None = None
        self.tools: dict[str, ToolExecutionView] = {}
        self._last_status: tuple[Spacer, Text] | None = None
        self.retry_attempt: Callable[[], int] = lambda: 0
        self.expand_key = "ctrl+o"
        self.custom_view: Callable[[object], Component | None] = lambda _item: None
        """Extension renderings: custom messages and ``custom`` entries (``ExtensionBridge``)."""
        self.tool_view: Callable[[str, str, Any, bool], ToolExecutionView | None] = lambda *_: None
        """An extension tool's own rendering of its call and result, when it has one."""

    # ------------------------------------------------------------------ adding

    def add(self, component: Component) -> None:
        self.chat.add_child(component)
        setter = getattr(component, "set_expanded", None)
        if callable(setter):
            setter(self.style.tools_expanded)
        self.request_render()

    def clear(self) -> None:
        self.chat.clear()
        self.streaming = None
        self.tools.clear()
        self._last_status = None

    def status(self, text: str) -> None:
        """A dim line; right after another status line it replaces that one (no log spam)."""
        children = self.chat.children
        last = self._last_status
        if last is not None and len(children) >= 2 and children[-2] is last[0] and children[-1] is last[1]:
            last[1].set_text(self.style.theme.fg("dim", terminal_safe(text)))
            self.request_render()
            return
        spacer, line = Spacer(1), Text(self.style.theme.fg("dim", terminal_safe(text)), 1, 0)
        self.chat.add_child(spacer)
        self.chat.add_child(line)
        self._last_status = (spacer, line)
        self.request_render()

    def notice(self, text: str) -> None:
        """A warning-coloured line without the ``Warning:`` prefix (Pi's cost notices)."""
        self._line(text, "warning")

    def warning(self, text: str) -> None:
        self._line(f"Warning: {text}", "warning")

    def error(self, text: str) -> None:
        self._line(f"Error: {text}", "error", self.style.output_pad)

    def _line(self, text: str, token: str, padding: int = 1) -> None:
        self.chat.add_child(Spacer(1))
        self.chat.add_child(Text(self.style.theme.fg(token, terminal_safe(text)), padding, 0))
        self.request_render()

    # ------------------------------------------------------------------ stored messages

    def render_messages(self, messages: Sequence[object], notices: Mapping[AnswerKey, str] | None = None) -> None:
        """Stored messages in order: tool results join the tool call that asked for them;
        ``notices`` (by ``answer_key``) follow the answer they belong to."""
        self.tools.clear()
        waiting: dict[str, ToolExecutionView] = {}
        for message in messages:
            if isinstance(message, AssistantMessage):
                self.add(self._assistant_view(message))
                failure = _failure_text(message, self.retry_attempt())
                for block in message.content:
                    if not isinstance(block, ToolCall):
                        continue
                    view = self._new_tool(block.id, block.name, block.arguments)
                    if failure is not None:
                        view.set_result([TextContent(text=failure)], None, True, False)
                    else:
                        waiting[block.id] = view
                notice = notices.get(answer_key(message)) if notices and failure is None else None
                if notice is not None:
                    self.notice(notice)
            elif isinstance(message, ToolResultMessage):
                result_view = waiting.pop(message.tool_call_id, None)
                if result_view is not None:
                    result_view.set_result(list(message.content), message.details, message.is_error, False)
            else:
                self.add_message(message)
        self.tools.update(waiting)

    def add_message(self, message: object) -> None:
        """A user, bash, compaction or branch-summary message (not assistant or tool result)."""
        style = self.style
        if isinstance(message, UserMessage):
            text = content_text(message.content, "")
            if text:
                self.add(UserMessageView(text, style.theme, style.markdown, style.markdown_transform))
        elif isinstance(message, BashExecutionMessage):
            view = BashExecutionView(
                message.command, style.theme, bool(message.exclude_from_context), self.request_render
            )
            view.finish(message)
            self.add(view)
        elif isinstance(message, CompactionSummaryMessage):
            title = f"Compacted from {message.tokens_before:,} tokens"
            self.add(SummaryCard("compaction", title, message.summary, style.theme, style.markdown, expand_key=self.expand_key))
        elif isinstance(message, BranchSummaryMessage):
            self.add(SummaryCard("branch", "Branch Summary", message.summary, style.theme, style.markdown, expand_key=self.expand_key))
        else:
            custom = self.custom_view(message)
            if custom is not None:
                self.add(custom)

    # ------------------------------------------------------------------ live events

    def on_event(self, event: object) -> None:
        if getattr(event, "parent_tool_call_id", None) is not None:
            return  # a call another tool made: that tool's view shows it (codemode's rows)
        if isinstance(event, MessageStartEvent):
            self._message_start(event.message)
        elif isinstance(event, MessageUpdateEvent):
            self._message_update(event.message)
        elif isinstance(event, MessageEndEvent):
            self._message_end(event.message)
        elif isinstance(event, ToolExecutionStartEvent):
            self._tool(event.tool_call_id, event.tool_name, event.args).mark_started()
        elif isinstance(event, ToolExecutionUpdateEvent):
            view = self.tools.get(event.tool_call_id)
            partial = event.partial_result
            if view is not None and partial is not None:
                view.set_result(list(partial.content), partial.details, False, True)
        elif isinstance(event, ToolExecutionEndEvent):
            view = self.tools.pop(event.tool_call_id, None)
            if view is not None:
                view.set_result(list(event.result.content), event.result.details, event.is_error, False)
        else:
            return
        self.request_render()

    def run_ended(self) -> None:
        """``agent_end``: an answer still marked as streaming is dropped, tool views forgotten."""
        if self.streaming is not None:
            self.chat.remove_child(self.streaming)
            self.streaming = None
        self.tools.clear()

    def _message_start(self, message: object) -> None:
        if isinstance(message, AssistantMessage):
            self.streaming = self._assistant_view(message)
            self.streaming.is_streaming = True
            self.add(self.streaming)
        elif not isinstance(message, ToolResultMessage):
            self.add_message(message)

    def _message_update(self, message: object) -> None:
        if self.streaming is None or not isinstance(message, AssistantMessage):
            return
        self.streaming.update(message)
        for block in message.content:
            if isinstance(block, ToolCall):
                view = self.tools.get(block.id)
                if view is None:
                    self._new_tool(block.id, block.name, block.arguments)
                else:
                    view.update_args(block.arguments)

    def _message_end(self, message: object) -> None:
        if not isinstance(message, AssistantMessage) or self.streaming is None:
            return
        failure = _failure_text(message, self.retry_attempt())
        if message.stop_reason == "aborted" and failure is not None:
            # Pi's interactive mode rewrites the reason before the message is stored; so do we,
            # so both write the same file.
            message.error_message = failure
        self.streaming.is_streaming = False
        self.streaming.update(message)
        if failure is not None:
            for view in self.tools.values():
                view.set_result([TextContent(text=failure)], None, True, False)
            self.tools.clear()
        self.streaming = None

    def _assistant_view(self, message: AssistantMessage) -> AssistantMessageView:
        style = self.style
        view = AssistantMessageView(style.theme, style.markdown, style.hide_thinking, style.output_pad,
                                    style.markdown_transform)  # fmt: skip
        view.update(message)
        return view

    def _tool(self, call_id: str, name: str, args: Any) -> ToolExecutionView:
        return self.tools.get(call_id) or self._new_tool(call_id, name, args)

    def _new_tool(self, call_id: str, name: str, args: Any) -> ToolExecutionView:
        expanded = self.style.tools_expanded
        view = self.tool_view(call_id, name, args, expanded) or ToolExecutionView(
            name, args, self.style.theme, self.cwd, expanded=expanded, show_images=self.style.show_images
        )
        self.tools[call_id] = view
        self.add(view)
        return view

    # ------------------------------------------------------------------ display switches

    def set_expanded(self, expanded: bool) -> None:
        self.style.tools_expanded = expanded
        for child in self.chat.children:
            setter = getattr(child, "set_expanded", None)
            if callable(setter):
                setter(expanded)

    def set_hide_thinking(self, hide: bool) -> None:
        self.style.hide_thinking = hide
        for child in self.chat.children:
            if isinstance(child, AssistantMessageView):
                child.set_hide_thinking(hide)


def _failure_text(message: AssistantMessage, retry_attempt: int) -> str | None:
    """What the tool calls of an aborted or failed answer show (Pi's wording)."""
    if message.stop_reason == "aborted":
        if retry_attempt > 0:
            return f"Aborted after {retry_attempt} retry attempt{'s' if retry_attempt > 1 else ''}"
        return "Operation aborted"
    if message.stop_reason == "error":
        return message.error_message or "Error"
    return None
