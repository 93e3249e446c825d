"""One-shot runs: ``pi -p`` (text) and ``pi --mode json``.

Both send the first prompt (with its images) and then every further message as its own
prompt, each awaited. Text mode prints the text blocks of the final assistant message,
one per line, and nothing else on stdout: on a terminal through ``pi_tui.terminal_safe``
(no OSC, query, clear or cursor move from the model reaches it), to a pipe or a file byte
for byte (docs/security.md). JSON mode prints the session header and then
every session event as one JSON line.

Exit status: 0 when the last answer is a normal one; 1 with a one-line reason on stderr
when a prompt could not start or the last answer ended in an error or was aborted. JSON
mode uses the same rule; Pi 0.85 exits 0 there even when the model call failed (see
docs/cli.md).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import BinaryIO, Literal

from pi_ai import AssistantMessage, ImageContent, TextContent, encode
from pi_coding_agent.app.print_mode._json_event import to_json_event
from pi_coding_agent.runtime.agent_session import (
    AgentSession,
    AgentSessionEvent,
    AgentSessionRuntime,
    SessionError,
)

PrintMode = Literal["text", "json"]

_UNREACHABLE = r"connection (error|refused)|connect(ion)? attempts failed|fetch failed|ECONNREFUSED|getaddrinfo|ENOTFOUND"


def _failure(session: AgentSession) -> str | None:
    """Why the run failed, judged from the last message; ``None`` when it succeeded.

    When the provider could not be reached at all, the line says where pi tried to go.
    """
    messages = session.agent.state.messages
    last = messages[-1] if messages else None
    if not isinstance(last, AssistantMessage) or last.stop_reason not in ("error", "aborted"):
        return None
    reason = last.error_message or f"Request {last.stop_reason}"
    model = session.model
    if last.stop_reason == "error" and model is not None and re.search(_UNREACHABLE, reason, re.IGNORECASE):
        reason += f" - could not reach {model.base_url}; check that the server is running and the provider's baseUrl"
    return " ".join(reason.split())


async def run_print_mode(
    session: AgentSession,
    *,
    mode: PrintMode,
    initial_message: str | None,
    initial_images: Sequence[ImageContent] = (),
    messages: Sequence[str] = (),
    stdout: BinaryIO | None = None,
    stopped: Callable[[], bool] = lambda: False,
    runtime: AgentSessionRuntime | None = None,
) -> int:
    """Run the prompts; ``stopped()`` true (a signal arrived) skips the ones not yet sent.

    With a ``runtime`` every prompt goes to its current session, so a session an extension
    command replaced (``ctx.new_session``, ``fork``, ``switch_session``) takes the next
    prompts, and JSON mode goes on with the new session's events, as in Pi.
    """
    output = _Output(stdout if stdout is not None else sys.stdout.buffer)
    unsubscribe = None

    def current() -> AgentSession:
        return runtime.session if runtime is not None else session

    if mode == "json":
        output.write(encode(session.session_manager.get_header_data()) + b"\n")

        def write(event: AgentSessionEvent) -> None:
            output.write(encode(to_json_event(event)) + b"\n")

        unsubscribe = runtime.subscribe(write) if runtime is not None else session.subscribe(write)
    try:
        if initial_message is not None:
            await current().prompt(initial_message, initial_images)
        for message in messages:
            if stopped():
                break
            await current().prompt(message)
    except SessionError as error:
        print(str(error), file=sys.stderr)
        return 1
    finally:
        if unsubscribe is not None:
            unsubscribe()
    session = current()
    failure = _failure(session)
    if failure is not None:
        print(_for_terminal(failure) if sys.stderr.isatty() else failure, file=sys.stderr)
        return 1
    if mode == "text":
        messages_now = session.agent.state.messages
        last = messages_now[-1] if messages_now else None
        if isinstance(last, AssistantMessage):
            for block in last.content:
                if isinstance(block, TextContent):
                    text = _for_terminal(block.text) if output.is_terminal else block.text
                    output.write(text.encode("utf-8", "replace") + b"\n")
    return 0


def _for_terminal(text: str) -> str:
    """``text`` through the terminal-output policy; ``pi_tui`` is loaded only when a terminal
    is written to (a piped ``pi -p`` does not pay for it)."""
    from pi_tui import terminal_safe

    return terminal_safe(text)


class _Output:
    """stdout that tolerates a reader going away (``pi ... | head``).

    Once the pipe is closed, further output is dropped and the run goes on (its session
    is still recorded), as Pi does; stdout is pointed at /dev/null so that Python's own
    flush at exit does not complain either.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self.stream: BinaryIO | None = stream
        self.is_terminal = stream.isatty()
        """Text for a terminal passes the terminal-output policy; a pipe or a file gets the
        answer byte for byte."""

    def write(self, data: bytes) -> None:
        if self.stream is None:
            return
        try:
            self.stream.write(data)
            self.stream.flush()
        except BrokenPipeError:
            self.stream = None
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
