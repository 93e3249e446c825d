"""The prompts queued while a run is active: steering (delivered after the current turn's
tool calls) and follow-ups (delivered when the agent would stop).

The agent holds the queued messages; this keeps their texts, in order, and announces the
texts waiting in both queues with ``queue_update`` whenever they change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pi_agent import Agent, AgentMessage
from pi_ai import ImageContent, TextContent, UserMessage, content_text, now_ms
from pi_coding_agent.runtime.agent_session._events import AgentSessionEvent, QueueUpdateEvent


def user_message(text: str, images: Sequence[ImageContent] | None) -> UserMessage:
    content: list[TextContent | ImageContent] = [TextContent(text=text), *(images or ())]
    return UserMessage(content=content, timestamp=now_ms())


class PromptQueue:
    def __init__(self, agent: Agent, emit: Callable[[AgentSessionEvent], None]) -> None:
        self._agent = agent
        self._emit = emit
        self._steering: list[str] = []
        self._follow_up: list[str] = []

    @property
    def pending_count(self) -> int:
        return len(self._steering) + len(self._follow_up)

    def steering_texts(self) -> list[str]:
        return list(self._steering)

    def follow_up_texts(self) -> list[str]:
        return list(self._follow_up)

    def steer(self, text: str, images: Sequence[ImageContent] | None) -> None:
        self._steering.append(text)
        self._announce()
        self._agent.steer(user_message(text, images))

    def follow_up(self, text: str, images: Sequence[ImageContent] | None) -> None:
        self._follow_up.append(text)
        self._announce()
        self._agent.follow_up(user_message(text, images))

    def clear(self) -> tuple[list[str], list[str]]:
        """Drop every queued message; the (steering, follow-up) texts that were waiting."""
        steering, follow_up = self._steering, self._follow_up
        self._steering, self._follow_up = [], []
        self._agent.clear_all_queues()
        self._announce()
        return steering, follow_up

    def dequeue(self, message: AgentMessage) -> None:
        """A queued user message is being delivered: it leaves the queue it came from."""
        text = content_text(message.content, "") if isinstance(message, UserMessage) else ""
        if not text:
            return
        for queue in (self._steering, self._follow_up):
            if text in queue:
                queue.remove(text)
                self._announce()
                return

    def _announce(self) -> None:
        self._emit(QueueUpdateEvent(list(self._steering), list(self._follow_up)))
