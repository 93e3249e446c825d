"""Generated text -> Pi's streaming events: thinking, an answer, or tool calls.

The grammar (``_grammar``) guarantees the shape: an optional ``<think>`` block, then either free
text or calls in one of ``CALL_FORMS``. The first characters after the thinking decide which; text
that could still be the start of a call or tag is held back until the next piece settles it. A tool
call starts once its name is complete; its deltas are the raw text of its ``arguments`` object, as
other adapters stream them.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable

from pi_ai._event_stream import AssistantMessageEventStream
from pi_ai._events import (
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pi_ai._messages import AssistantMessage, TextContent, ThinkingContent, ToolCall
from pi_ai._partial_json import PartialJson
from pi_ai.api.local._grammar import CALL_FORMS, THINK_CLOSE, THINK_OPEN
from pi_ai.api.local._notes import NoteFilter
from pi_ai.api.local._runaway import CallWatch

_ARGUMENTS_KEY = re.compile(r'"arguments"\s*:\s*')
_WRAPPER_CLOSE = re.compile(r"\}\s*$")
_NAME = re.compile(r'"name"\s*:\s*"((?:[^"\\]|\\.)*)"')
_FIRST_STRING = re.compile(r'\s*\{\s*"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"')


def _held_tail(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that is a proper beginning of ``tag``."""
    for size in range(min(len(text), len(tag) - 1), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


def _name_of(head: str) -> str:
    found = _NAME.search(head)
    return str(json.loads(f'"{found.group(1)}"')) if found else ""


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def answer_started(text: str) -> bool:
    """Whether the turn so far (``text``) is already known to be a plain answer: its first
    character after any thinking cannot begin a call. From then on no grammar is needed."""
    lead = text.lstrip()
    if lead.startswith(THINK_OPEN):
        closed = lead.find(THINK_CLOSE)
        if closed < 0:
            return False
        lead = lead[closed + len(THINK_CLOSE) :].lstrip()
    return bool(lead) and lead[0] not in "<`{"


class _JsonEnd:
    """Finds where a JSON object ends, fed one piece at a time (strings and escapes respected)."""

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False
        self.escaped = False

    def feed(self, text: str) -> int:
        """Index in ``text`` just past the closing brace, or -1 when the object is still open."""
        for index, char in enumerate(text):
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif char == "\\":
                    self.escaped = True
                elif char == '"':
                    self.in_string = False
            elif char == '"':
                self.in_string = True
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth == 0:
                    return index + 1
        return -1


class _Call:
    """One call being streamed: its raw JSON so far, and the block once the name is known."""

    def __init__(self, closing: str | None, raw: str = "") -> None:
        self.closing = closing
        self.json_end = _JsonEnd() if closing is None else None
        self.raw = raw
        self.block: ToolCall | None = None
        self.index = -1
        self.arguments_at = -1
        self.first_told = False
        self.sent = ""
        self.parser = PartialJson()
        self.watch = CallWatch()


class TurnParser:
    """``hold_calls``: keep finished calls back (``held``, each also passed to ``on_held``) instead of
    streaming them, so the caller can still drop some (``release_calls`` streams the rest).
    ``on_first_argument`` hears ``(tool, key, value)`` once a call's first argument is a complete
    string, so the caller can stop there and have the call written again (``rewind_call``).

    A call that repeats itself or grows too long (``_runaway``) is cut off: ``cut`` names why,
    ``on_cut`` is told (the caller stops the generation), and the rest of the turn is ignored.
    The answer's text goes through a ``NoteFilter`` of ``hidden_notes``; with ``hold_text`` it is
    kept back (``held_text``) until ``release_text``."""

    def __init__(
        self,
        stream: AssistantMessageEventStream,
        output: AssistantMessage,
        *,
        thinking: bool,
        hold_calls: bool = False,
        on_held: Callable[[ToolCall], None] | None = None,
        on_first_argument: Callable[[str, str, str], None] | None = None,
        on_cut: Callable[[str], None] | None = None,
        hidden_notes: tuple[str, ...] = (),
        hold_text: bool = False,
    ) -> None:
        self.stream = stream
        self.output = output
        self._state = "start" if thinking else "lead"
        self._pending = ""
        self._text: TextContent | None = None
        self._thinking: ThinkingContent | None = None
        self._call: _Call | None = None
        self._hold = hold_calls
        self._on_held = on_held
        self._on_first_argument = on_first_argument
        self.held: list[ToolCall] = []
        self._fed = ""
        self._call_start = 0
        self._call_state = "lead"
        self._on_cut = on_cut
        self.cut: str | None = None
        self.cut_streamed = False
        self._notes = NoteFilter(hidden_notes)
        self._hidden_notes = hidden_notes
        self.hold_text = hold_text
        self.held_text = ""

    def _push_start(self, event_type: type[TextStartEvent] | type[ThinkingStartEvent] | type[ToolCallStartEvent]) -> int:
        index = len(self.output.content) - 1
        self.stream.push(event_type(content_index=index, partial=self.output))
        return index

    # ------------------------------------------------------------------ feeding

    def feed(self, piece: str) -> None:
        if self.cut is not None:
            return  # the rest of a call that was cut off
        self._fed += piece
        self._pending += piece
        while self._pending and self._step():
            pass

    def _step(self) -> bool:
        """Consume what can be decided; False when the rest must wait for more text."""
        state = self._state
        if state == "cut":
            self._pending = ""
            return False
        if state == "start":
            return self._start()
        if state == "think":
            return self._think()
        if state in ("lead", "between"):
            return self._lead()
        if state == "text":
            self._text_delta(self._pending)
            self._pending = ""
            return False
        return self._call_text()

    def _start(self) -> bool:
        if self._pending.startswith(THINK_OPEN):
            self._pending = self._pending[len(THINK_OPEN) :]
            self._thinking = ThinkingContent(thinking="")
            self.output.content.append(self._thinking)
            self._push_start(ThinkingStartEvent)
            self._state = "think"
            return True
        if THINK_OPEN.startswith(self._pending):
            return False
        self._state = "lead"
        return True

    def _think(self) -> bool:
        found = self._pending.find(THINK_CLOSE)
        end = found if found >= 0 else len(self._pending) - _held_tail(self._pending, THINK_CLOSE)
        if end:
            self._thinking_delta(self._pending[:end])
        if found < 0:
            self._pending = self._pending[end:]
            return False
        self._pending = self._pending[found + len(THINK_CLOSE) :]
        self._close_thinking()
        return True

    def _lead(self) -> bool:
        """At the start of the turn (or between calls): a call form, or (first only) the answer."""
        stripped = self._pending.lstrip()
        if not stripped:
            return False
        for opening, closing in CALL_FORMS:
            if stripped.startswith(opening):
                self._call_start, self._call_state = len(self._fed) - len(stripped), self._state
                keep = opening if closing is None else ""
                self._pending = stripped[len(opening) :]
                self._call = _Call(closing)
                if keep:
                    self._pending = keep + self._pending
                self._state = "call"
                return True
        if any(opening.startswith(stripped) for opening, _ in CALL_FORMS):
            return False
        if self._state == "between":
            self._pending = ""  # the grammar allows nothing else after a call
            return False
        self._pending = stripped
        self._state = "text"
        return True

    def _call_text(self) -> bool:
        call = self._call
        assert call is not None
        if call.json_end is not None:
            end = call.json_end.feed(self._pending)
            piece, self._pending = (self._pending, "") if end < 0 else (self._pending[:end], self._pending[end:])
            self._call_delta(call, piece)
            if end < 0 or self._state == "cut":
                return False
        else:
            assert call.closing is not None
            found = self._pending.find(call.closing)
            end = found if found >= 0 else len(self._pending) - _held_tail(self._pending, call.closing)
            if end:
                self._call_delta(call, self._pending[:end])
            if self._state == "cut":
                return False
            if found < 0:
                self._pending = self._pending[end:]
                return False
            self._pending = self._pending[found + len(call.closing) :]
        self._call = None
        self._state = "between"
        self._finish_call(call)
        return True

    # ------------------------------------------------------------------ thinking and text

    def _thinking_delta(self, text: str) -> None:
        assert self._thinking is not None
        self._thinking.thinking += text
        index = self.output.content.index(self._thinking)
        self.stream.push(ThinkingDeltaEvent(content_index=index, delta=text, partial=self.output))

    def _close_thinking(self) -> None:
        assert self._thinking is not None
        self._thinking.thinking = self._thinking.thinking.strip()
        index = self.output.content.index(self._thinking)
        self.stream.push(ThinkingEndEvent(content_index=index, content=self._thinking.thinking, partial=self.output))
        self._state = "lead"

    def _text_delta(self, text: str) -> None:
        text = self._notes.feed(text)
        self._show_text(text)

    def _show_text(self, text: str) -> None:
        if self._text is None and not self.held_text:
            text = text.lstrip()
        if not text:
            return
        if self.hold_text:
            self.held_text += text
            return
        if self._text is None:
            self._text = TextContent(text="")
            self.output.content.append(self._text)
            self._push_start(TextStartEvent)
        self._text.text += text
        index = self.output.content.index(self._text)
        self.stream.push(TextDeltaEvent(content_index=index, delta=text, partial=self.output))

    def _close_text(self) -> None:
        self._show_text(self._notes.flush())
        if self._text is None:
            return
        text, self._text = self._text, None
        text.text = text.text.rstrip()
        index = self.output.content.index(text)
        self.stream.push(TextEndEvent(content_index=index, content=text.text, partial=self.output))

    # ------------------------------------------------------------------ tool calls

    def _start_block(self, call: _Call, name: str) -> None:
        call.block = ToolCall(id=new_call_id(), name=name, arguments={})
        if self._hold:
            return
        self.output.content.append(call.block)
        call.index = self._push_start(ToolCallStartEvent)

    def _call_delta(self, call: _Call, text: str) -> None:
        call.raw += text
        reason = call.watch.check(call.raw, call.block.arguments if call.block is not None else None)
        if reason is not None:
            self._cut_call(call, reason)
            return
        if call.block is None:
            found = _ARGUMENTS_KEY.search(call.raw)
            if found is None:
                return
            self._start_block(call, _name_of(call.raw[: found.start()]))
            call.arguments_at = found.end()
        self._send_arguments(call, final=False)

    def _send_arguments(self, call: _Call, *, final: bool) -> None:
        """Stream the ``arguments`` text, holding back the brace that may close the wrapper."""
        text = call.raw[call.arguments_at :]
        closing = _WRAPPER_CLOSE.search(text)
        visible = text[: closing.start()] if closing else text
        if final:
            visible = visible.rstrip()
        delta = visible[len(call.sent) :]
        if not delta or call.block is None:
            return
        call.sent = visible
        call.block.arguments = call.parser.feed(delta)
        if not call.first_told and self._on_first_argument is not None:
            found = _FIRST_STRING.match(call.raw, call.arguments_at)
            if found is not None:
                call.first_told = True
                key, value = (json.loads(f'"{group}"') for group in found.groups())
                self._on_first_argument(call.block.name, key, value)
        if not self._hold:
            self.stream.push(ToolCallDeltaEvent(content_index=call.index, delta=delta, partial=self.output))

    def _cut_call(self, call: _Call, reason: str) -> None:
        """Give up the call being written: nothing of it is kept but the fact (``cut``)."""
        self.cut, self.cut_streamed = reason, call.index >= 0
        self._call, self._pending, self._state = None, "", "cut"
        if self._on_cut is not None:
            self._on_cut(reason)

    def _finish_call(self, call: _Call) -> None:
        try:
            parsed = json.loads(call.raw)
        except ValueError:
            parsed = None
        if call.block is None:
            name = parsed.get("name") if isinstance(parsed, dict) else _name_of(call.raw)
            self._start_block(call, str(name or ""))
            call.arguments_at = len(call.raw)
        self._send_arguments(call, final=True)
        assert call.block is not None
        if isinstance(parsed, dict) and isinstance(parsed.get("arguments"), dict):
            call.block.arguments = parsed["arguments"]
        if self._hold:
            self.held.append(call.block)
            if self._on_held is not None:
                self._on_held(call.block)
            return
        self.stream.push(ToolCallEndEvent(content_index=call.index, tool_call=call.block, partial=self.output))

    def release_calls(self) -> None:
        """Stream the held calls (each as start, one delta with its arguments, end)."""
        held, self.held, self._hold = self.held, [], False
        for block in held:
            self.output.content.append(block)
            index = self._push_start(ToolCallStartEvent)
            arguments = json.dumps(block.arguments, ensure_ascii=False)
            self.stream.push(ToolCallDeltaEvent(content_index=index, delta=arguments, partial=self.output))
            self.stream.push(ToolCallEndEvent(content_index=index, tool_call=block, partial=self.output))

    def rewind_call(self) -> str:
        """Forget the call being written (held calls stay); the turn's text before it is returned,
        and the text fed next must be that call, written again."""
        self._fed = self._fed[: self._call_start]
        self._call, self._pending, self._state = None, "", self._call_state
        return self._fed

    def drop_calls(self, *, hold: bool = False) -> None:
        """Forget the held calls; the parser then takes a fresh turn (the caller generates it again),
        holding its calls back too with ``hold``."""
        self.held = []
        self._hold = hold
        self._state = "lead"
        self._pending = ""
        self._fed = ""
        self._call = None
        self.cut = None
        self.drop_text(hold=self.hold_text)

    def drop_text(self, *, hold: bool = False) -> None:
        """Forget the answer's text kept back (``hold_text``); the next text is held with ``hold``."""
        self.held_text, self.hold_text = "", hold
        self._notes = NoteFilter(self._hidden_notes)
        self._text = None
        self._state = "lead"
        self._pending = ""
        self._fed = ""

    def release_text(self) -> None:
        """Stream the answer's text kept back (start, one delta, end)."""
        text, self.held_text, self.hold_text = self.held_text, "", False
        self._show_text(text)
        self._close_text()

    # ------------------------------------------------------------------ end

    def finish(self) -> None:
        """Deliver what was held back and close the open block (the output may have been cut)."""
        rest, self._pending = self._pending, ""
        if self._state in ("start", "lead", "text") and rest.strip():
            self._text_delta(rest.lstrip())
        elif self._state == "think":
            if rest:
                self._thinking_delta(rest)
            self._close_thinking()
        elif self._state == "call" and self._call is not None:
            call, self._call = self._call, None
            call.raw += rest
            self._finish_call(call)
        self._close_text()

    @property
    def has_tool_calls(self) -> bool:
        return any(isinstance(block, ToolCall) for block in self.output.content)
