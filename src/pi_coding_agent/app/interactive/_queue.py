"""Messages written while the agent works (Pi's message queue).

Enter queues a steering message (delivered after the current turn's tool calls), Alt+Enter
a follow-up (delivered once the agent is done); both are listed above the editor with the
key that takes them back. Alt+Up takes every queued message back into the editor, and
Escape does the same while aborting the run. During a compaction the session refuses new
prompts, so messages wait here and are sent once it ends.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from pi_coding_agent.runtime.agent_session import SessionError
from pi_tui import Spacer, TruncatedText

if TYPE_CHECKING:
    from pi_ai import ImageContent
    from pi_coding_agent.app.interactive._layout import Layout
    from pi_coding_agent.app.interactive._parts import Notices, Renderer, Spawn, TextEditor
    from pi_coding_agent.customize.themes import Theme
    from pi_coding_agent.runtime.agent_session import AgentSession
    from pi_tui import Component, Keybindings

Delivery = Literal["steer", "followUp"]


class CommandCheck(Protocol):
    """Whether a text is an extension's command (those run at once, even during a compaction)."""

    def is_command(self, text: str) -> bool: ...


class QueueHost(Protocol):
    """What the queue works with: the session it queues into, the editor it takes text
    from and gives it back to, the area above the editor where it lists what waits."""

    @property
    def session(self) -> AgentSession: ...
    @property
    def editor(self) -> TextEditor: ...
    @property
    def transcript(self) -> Notices: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def tui(self) -> Renderer: ...
    @property
    def theme(self) -> Theme: ...
    @property
    def keys(self) -> Keybindings: ...
    @property
    def extensions(self) -> CommandCheck: ...
    @property
    def pending_bash(self) -> Sequence[Component]: ...
    @property
    def spawn(self) -> Spawn: ...
    def editor_history(self, text: str) -> None: ...
    def start_prompt(
        self, text: str, images: Sequence[ImageContent] = (), on_accepted: Callable[[], None] | None = None
    ) -> None: ...


@dataclass
class Held:
    text: str
    delivery: Delivery


class MessageQueue:
    def __init__(self, host: QueueHost) -> None:
        self.host = host
        self.held: list[Held] = []
        """Messages written during a compaction, sent when it ends."""

    def queued(self) -> tuple[list[str], list[str]]:
        session = self.host.session
        steering = [*session.get_steering_messages(), *(h.text for h in self.held if h.delivery == "steer")]
        follow_up = [
            *session.get_follow_up_messages(),
            *(h.text for h in self.held if h.delivery == "followUp"),
        ]
        return steering, follow_up

    def refresh(self) -> None:
        """Redraw the queue list (the user commands held during the run stay below it)."""
        host = self.host
        theme = host.theme
        steering, follow_up = self.queued()
        lines: list[object] = []
        if steering or follow_up:
            lines.append(Spacer(1))
            lines += [TruncatedText(theme.fg("dim", f"Steering: {text}"), 1) for text in steering]
            lines += [TruncatedText(theme.fg("dim", f"Follow-up: {text}"), 1) for text in follow_up]
            hint = f"↳ {host.keys.display('app.message.dequeue')} to edit all queued messages"
            lines.append(TruncatedText(theme.fg("dim", hint), 1))
        host.layout.pending.children = [*lines, *host.pending_bash]  # type: ignore[list-item]
        host.tui.request_render()

    def submit(self, text: str, delivery: Delivery) -> None:
        """Queue ``text`` behind the running answer (or behind the running compaction)."""
        host = self.host
        host.editor_history(text)
        host.editor.set_text("")
        if host.session.is_compacting and not host.extensions.is_command(text):  # those run at once, as in Pi
            self.held.append(Held(text, delivery))
            host.transcript.status("Queued message for after compaction")
            self.refresh()
            return
        host.spawn(self._queue(text, delivery))

    async def _queue(self, text: str, delivery: Delivery) -> None:
        try:
            await self.host.session.prompt(text, streaming_behavior=delivery)
        except SessionError as error:
            self.host.transcript.error(str(error))
        self.refresh()

    def take_back(self, abort: bool = False) -> int:
        """Every queued message back into the editor (before what is typed there); the count."""
        host = self.host
        steering, follow_up = host.session.clear_queue()
        held = (
            [h.text for h in self.held if h.delivery == "steer"],
            [h.text for h in self.held if h.delivery == "followUp"],
        )
        self.held.clear()
        everything = [*steering, *held[0], *follow_up, *held[1]]
        if everything:
            current = host.editor.get_text()
            host.editor.set_text(
                "\n\n".join(text for text in ["\n\n".join(everything), current] if text.strip())
            )
        self.refresh()
        if abort:
            host.spawn(host.session.abort())
        return len(everything)

    def dequeue(self) -> None:
        restored = self.take_back()
        if restored == 0:
            self.host.transcript.status("No queued messages to restore")
        else:
            self.host.transcript.status(
                f"Restored {restored} queued message{'s' if restored > 1 else ''} to editor"
            )

    async def flush_held(self, will_retry: bool = False) -> None:
        """After a compaction: the first held message becomes the prompt, the rest queue behind it."""
        if not self.held:
            return
        held, self.held = self.held, []
        self.refresh()
        session = self.host.session
        try:
            if will_retry or session.is_streaming:
                for message in held:
                    await session.prompt(message.text, streaming_behavior=message.delivery)
                return
            first, rest = held[0], held[1:]

            async def queue_rest() -> None:
                for message in rest:
                    await session.prompt(message.text, streaming_behavior=message.delivery)
                self.refresh()

            self.host.start_prompt(first.text, on_accepted=lambda: self.host.spawn(queue_rest()))
        except SessionError as error:
            self.host.transcript.error(
                f"Failed to send queued message{'s' if len(held) > 1 else ''}: {error}"
            )
        self.refresh()
