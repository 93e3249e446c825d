"""``local``: a GGUF model run in this process by llama.cpp (our own binding), with no server and no key.

``model.baseUrl`` is the path of the GGUF file (``file://`` allowed). Each turn is rendered with the
model's own chat template, constrained by a grammar built from the offered tools (``_grammar``), and
streamed as Pi's events; errors are values, an abort stops generation between tokens or inside the
prompt evaluation. The loaded model stays in memory, so later turns reuse the evaluated prompt
prefix (reported as ``cacheRead`` tokens). The llama.cpp library is loaded on the first request only
(``use_library`` names it; the coding agent's setup does).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_ai._abort import AbortError
from pi_ai._context import Context
from pi_ai._event_stream import AssistantMessageEventStream, error_text, now_ms, start_stream
from pi_ai._events import DoneEvent, StartEvent
from pi_ai._messages import AssistantMessage, ToolCall, ToolResultMessage, Usage, UserMessage
from pi_ai._model import Model
from pi_ai._options import SimpleStreamOptions, StreamOptions
from pi_ai._registry import ApiImplementation
from pi_ai._simple_options import base_options
from pi_ai.api._accumulator import StreamAccumulator
from pi_ai.api._common import provider_options
from pi_ai.api.local._chat import chat_messages, render_prompt, template_knows_tools
from pi_ai.api.local._copy import CopiedText, CopyRule, CopySource, enforceable, plain_value
from pi_ai.api.local._engine import Engine, EngineError, Generated, load_engine, use_prefix_cache
from pi_ai.api.local._grammar import first_argument, turn_grammar
from pi_ai.api.local._llama_lib import use_library
from pi_ai.api.local._output import TurnParser, answer_started
from pi_ai.api.local._runaway import cut_error, cut_note

__all__ = [
    "ANSWER_CHECK_OPTION",
    "API",
    "COPY_SOURCE_OPTION",
    "HIDDEN_NOTES_OPTION",
    "OPTIONS",
    "UNDO_OPTION",
    "CopiedText",
    "CopySource",
    "EngineError",
    "LocalOptions",
    "UndoSource",
    "model_file",
    "stream",
    "stream_simple",
    "use_library",
    "use_prefix_cache",
]

AnswerCheck = Callable[[str], str | None]
"""``answer text -> note``: a note when the answer must not be accepted; the turn is then written
again once, with the note added to the request."""

UndoSource = Callable[[str, dict[str, Any]], list[tuple[str, dict[str, Any]]]]
"""``(tool, arguments) -> [(tool, arguments), ...]``: the calls that would undo that call."""

DEFAULT_TEMPERATURE = 0.0
"""Greedy decoding unless asked otherwise: small models follow the tool format most reliably so."""


@dataclass(kw_only=True)
class LocalOptions(StreamOptions):
    tool_choice: str | None = None
    """``none`` offers no tools for this turn, ``required`` makes it call at least one; anything
    else lets the model choose."""
    copy_source: CopySource | None = None
    """Which arguments of a call must be copied from a text (``_copy``): asked when a call's first
    argument has been written. Through ``stream_simple``: ``extra[COPY_SOURCE_OPTION]``."""
    undo_source: UndoSource | None = None
    """The calls that would undo a call (``_undo_keys``): made after it succeeded in the same task,
    they count as repeats. Through ``stream_simple``: ``extra[UNDO_OPTION]``."""
    answer_check: AnswerCheck | None = None
    """Asked about a turn's answer before it is shown (the answer is held back until the turn
    ends). Through ``stream_simple``: ``extra[ANSWER_CHECK_OPTION]``."""
    hidden_notes: tuple[str, ...] = ()
    """The caller's own notes to the model (besides this module's): never shown as answer text
    (``_notes``). Through ``stream_simple``: ``extra[HIDDEN_NOTES_OPTION]``."""


OPTIONS = LocalOptions

COPY_SOURCE_OPTION = "copySource"
UNDO_OPTION = "undoSource"
ANSWER_CHECK_OPTION = "answerCheck"
HIDDEN_NOTES_OPTION = "hiddenNotes"


def model_file(model: Model) -> str:
    return model.base_url.removeprefix("file://")


TOOL_HINT = (
    "Do the task yourself with the tools: read the files and run the commands you need, make the changes, "
    "then reply with a short summary. Never tell the user what to run or change: do it. "
    "Stop once the task is done: never undo, delete or rewrite your own changes."
)
"""Added to the system prompt when tools are offered: small models otherwise explain how to do a
task instead of doing it (bench/local_tasks.py, docs/providers/local.md)."""

ANSWER_NUDGE = "(Those tool calls are done. Reply to the user now in a sentence or two; no more tool calls.)"
"""Added for one regenerated turn only, after the model repeated calls it had just made."""

RETRY_TEMPERATURE = 0.7
"""Sampling temperature of a regenerated turn: greedy decoding led the 1.5B to the same calls again."""

RETRY_NUDGE = "(Those exact calls were just made and one failed; making them again fails the same way. Read its error and do something else.)"
"""The same, when one of the repeated calls had failed: the regenerated turn may call tools."""

OWN_NOTES = (TOOL_HINT, ANSWER_NUDGE, RETRY_NUDGE, cut_note("repeated"), cut_note("too-long"))
"""What this module tells the model; never shown as the answer's text (``_notes``)."""


def _prompt_tokens(
    engine: Engine, model: Model, context: Context, offer_tools: bool, nudge: str | None = None
) -> list[int]:
    if not engine.chat_template:
        raise EngineError(f"model file {engine.path} has no chat template; use an instruct (chat) model")
    tools = list(context.tools or ()) if offer_tools else []
    native = template_knows_tools(engine.chat_template)
    system = f"{context.system_prompt}\n\n{TOOL_HINT}" if tools and context.system_prompt else context.system_prompt
    scoped = Context(system_prompt=system, messages=context.messages, tools=tools or None)
    messages = chat_messages(model, scoped, native_tools=native)
    if nudge:
        messages.append({"role": "user", "content": nudge})
    prompt = render_prompt(
        engine.chat_template, bos=engine.bos_text, eos=engine.eos_text, messages=messages,
        tools=tools if native else [],
    )
    tokens = engine.tokenize(prompt)
    if len(tokens) >= engine.n_ctx:
        # Worded like llama.cpp's server so the agent recognises an overflow and compacts.
        raise EngineError(
            f"prompt has {len(tokens)} tokens, but the configured context size is {engine.n_ctx} tokens"
        )
    return tokens


def _fixed_prefix(engine: Engine, model: Model, context: Context, offer_tools: bool, tokens: list[int]) -> int:
    """How many leading ``tokens`` are the system prompt and tools, the same on every run of a
    project (their KV state is kept on disk): the prompt's common prefix with the same context
    without messages."""
    bare = _prompt_tokens(engine, model, Context(system_prompt=context.system_prompt, messages=[], tools=context.tools),
                          offer_tools)
    count = 0
    for mine, theirs in zip(tokens, bare, strict=False):
        if mine != theirs:
            break
        count += 1
    return count


async def _generate(
    engine: Engine, tokens: list[int], *, grammar: str, max_tokens: int, temperature: float,
    on_text: Callable[[str], None], options: LocalOptions, fixed: int = 0,
) -> Generated:
    """Run the blocking generation on a worker thread, delivering text on this loop's thread."""
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[Generated] = loop.create_future()

    def deliver(call: Callable[..., Any], *args: Any) -> None:
        try:
            loop.call_soon_threadsafe(call, *args)
        except RuntimeError:  # the loop is gone (the run was abandoned): nobody is listening
            engine.request_abort()

    def settle(result: Generated | None, error: BaseException | None) -> None:
        if finished.done():
            return
        if error is not None:
            finished.set_exception(error)
        else:
            assert result is not None
            finished.set_result(result)

    so_far: list[str] = []

    def hand_over(text: str) -> bool:
        deliver(on_text, text)
        if so_far and so_far[0] == "":
            return True
        so_far.append(text)
        if answer_started("".join(so_far)):
            so_far[:] = [""]  # decided: an answer; no need to keep the text
            return True
        return False

    def work() -> None:
        try:
            with engine.lock:
                result = engine.generate(
                    tokens, grammar=grammar, max_tokens=max_tokens, temperature=temperature, on_text=hand_over,
                    fixed=fixed,
                )
            deliver(settle, result, None)
        except BaseException as error:
            deliver(settle, None, error)

    signal = options.signal
    remove = signal.add_listener(engine.request_abort) if signal is not None else None
    threading.Thread(target=work, name="pi-local-generate", daemon=True).start()
    try:
        return await finished
    except asyncio.CancelledError:
        engine.request_abort()
        raise
    finally:
        if remove is not None:
            remove()


RECENT_TURNS = 2
"""A turn must call a tool when one of this many turns before it had a failed call..."""
MAX_FAILED_TURNS = 4
"""...unless this many turns of the current task already failed (then the model may give up)."""


def _must_act(context: Context) -> bool:
    """Whether this turn must call a tool: one of the ``RECENT_TURNS`` turns before it made a call
    that failed.

    Left free, Qwen2.5-Coder 1.5B gave up after a failed call (or the read that followed it) and
    explained what the user should change (docs/providers/local-bench.md). The turn that answers
    the user's message stays free: forcing a call there turned "what is 2 + 3?" into a tool run."""
    turns: list[bool] = []  # newest first: whether each assistant turn of this task had a failed call
    failed_after = False
    for message in reversed(context.messages):
        if isinstance(message, UserMessage):
            break
        if isinstance(message, AssistantMessage):
            turns.append(failed_after)
            failed_after = False
        elif isinstance(message, ToolResultMessage) and message.is_error:
            failed_after = True
    return any(turns[:RECENT_TURNS]) and sum(turns) <= MAX_FAILED_TURNS


def _call_key(call: ToolCall) -> str:
    return _key(call.name, call.arguments)


def _key(name: str, arguments: dict[str, Any]) -> str:
    return f"{name}\0{json.dumps(arguments, sort_keys=True)}"


def _undo_keys(context: Context, undo: UndoSource) -> set[str]:
    """Keys of the calls that would undo a call of this task (since the user's last message)
    that succeeded. The 1.5B renamed a function in two files, then renamed it back in one."""
    failed = {m.tool_call_id for m in context.messages if isinstance(m, ToolResultMessage) and m.is_error}
    keys: set[str] = set()
    for message in reversed(context.messages):
        if isinstance(message, UserMessage):
            break
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolCall) and block.id not in failed:
                    keys.update(_key(name, arguments) for name, arguments in undo(block.name, block.arguments))
    return keys


def _without_repeats(calls: list[ToolCall], done: set[str]) -> list[ToolCall]:
    """``calls`` less those just made and those already made earlier in this turn."""
    kept: list[ToolCall] = []
    seen = set(done)
    for call in calls:
        key = _call_key(call)
        if key not in seen:
            kept.append(call)
        seen.add(key)
    return kept


def _just_done_calls(context: Context) -> tuple[list[str], bool]:
    """Calls that cannot help if made again, and whether one of them failed.

    Those are the calls of the last assistant turn (nothing came after their results: the tools
    see the same files and give the same results), and those of the turns before it while every
    call since failed (a failed call changed nothing). Small models loop on both: the same call
    again, or a failed edit and a failed test run in turn."""
    messages = context.messages
    keys: list[str] = []
    failed = False
    index = len(messages)
    while index > 0:
        start = index
        while start > 0 and isinstance(messages[start - 1], ToolResultMessage):
            start -= 1
        results = messages[start:index]
        if not results or start == 0 or not isinstance(messages[start - 1], AssistantMessage):
            break
        assistant = messages[start - 1]
        assert isinstance(assistant, AssistantMessage)
        keys.extend(_call_key(block) for block in assistant.content if isinstance(block, ToolCall))
        all_failed = all(isinstance(result, ToolResultMessage) and result.is_error for result in results)
        failed = failed or any(isinstance(result, ToolResultMessage) and result.is_error for result in results)
        if not all_failed:
            break
        index = start - 1
    return sorted(set(keys)), failed


MAX_COPY_RULES = 4
"""Calls of one turn that may be written again under a copy rule (each new value is one rule)."""


class _Copying:
    """The copy rules of one turn, learnt as its calls write their first arguments: a value with a
    rule stops the generation, and the call is written again under the rule (``_sample``)."""

    def __init__(self, source: CopySource | None, tools: list[Any], engine: Engine) -> None:
        self.source = source
        self.engine = engine
        self.first = {tool.name: first_argument(tool) for tool in tools} if source is not None else {}
        self.rules: list[CopyRule] = []
        self.pending: CopyRule | None = None
        self.asked: set[tuple[str, str]] = set()

    @property
    def active(self) -> bool:
        return any(self.first.values())

    def hear(self, tool: str, key: str, value: str) -> None:
        if self.source is None or self.first.get(tool) != key or len(self.rules) >= MAX_COPY_RULES:
            return
        if (tool, value) in self.asked or not plain_value(value):
            return
        self.asked.add((tool, value))
        copied = self.source(tool, key, value)
        if copied is not None and enforceable(copied):
            self.pending = CopyRule(tool, key, value, copied)
            self.engine.request_stop()

    def take_pending(self) -> CopyRule | None:
        rule, self.pending = self.pending, None
        if rule is not None:
            self.rules.append(rule)
        return rule


async def _sample(
    engine: Engine, tokens: list[int], grammar: Callable[[bool], str], parser: TurnParser, copying: _Copying, *,
    max_tokens: int, temperature: float, options: LocalOptions, fixed: int = 0,
) -> Generated:
    """One turn after ``tokens``, fed to ``parser``; a call stopped by a copy rule is written again
    under it, the turn's text before the call added to the prompt (so the KV cache keeps it)."""
    prompt, resume, produced = tokens, False, 0
    first: Generated | None = None
    while True:
        generated = await _generate(
            engine, prompt, grammar=grammar(resume), max_tokens=max(1, max_tokens - produced),
            temperature=temperature, on_text=parser.feed, options=options, fixed=fixed,
        )
        first = first or generated
        produced += generated.output_tokens
        if copying.take_pending() is None or generated.finish_reason == "aborted":
            break
        prompt, resume = tokens + engine.tokenize(parser.rewind_call()), True
    parser.finish()
    return Generated(
        generated.finish_reason, first.prompt_tokens, first.reused_tokens, produced, first.prefill_seconds,
        first.first_token_seconds, first.restored_tokens,
    )


TIMINGS_ENV = "PI_LOCAL_TIMINGS"


def _report_timings(generated: Generated) -> None:
    """With ``PI_LOCAL_TIMINGS=1``, one line per turn on stderr: where the time went."""
    if os.environ.get(TIMINGS_ENV, "") in ("", "0"):
        return
    fresh = generated.prompt_tokens - generated.reused_tokens
    print(
        f"pi: local turn: prompt {generated.prompt_tokens} tokens ({generated.reused_tokens} reused, "
        f"{generated.restored_tokens} of them from the prefix cache), prefill {fresh} tokens in "
        f"{generated.prefill_seconds:.1f}s, first token after {generated.first_token_seconds:.1f}s, "
        f"{generated.output_tokens} tokens",
        file=sys.stderr, flush=True,
    )


def _usage(generated: Generated) -> Usage:
    fresh = generated.prompt_tokens - generated.reused_tokens
    return Usage(
        input=fresh,
        output=generated.output_tokens,
        cache_read=generated.reused_tokens,
        total_tokens=generated.prompt_tokens + generated.output_tokens,
    )


async def _run(stream: AssistantMessageEventStream, model: Model, context: Context, options: LocalOptions) -> None:
    output = AssistantMessage(
        content=[], api=model.api, provider=model.provider, model=model.id, stop_reason="pending",
        timestamp=now_ms(),
    )
    stream.partial = output
    signal = options.signal
    try:
        if signal is not None:
            signal.raise_if_aborted()
        engine = await asyncio.to_thread(load_engine, model_file(model), model.context_window)
        offer_tools = bool(context.tools) and options.tool_choice != "none"
        tokens = _prompt_tokens(engine, model, context, offer_tools)
        fixed = _fixed_prefix(engine, model, context, offer_tools, tokens)
        room = engine.n_ctx - len(tokens)
        max_tokens = max(1, min(options.max_tokens or model.max_tokens, room))
        temperature = options.temperature if options.temperature is not None else DEFAULT_TEMPERATURE
        stream.push(StartEvent(partial=output))
        done, failed = _just_done_calls(context) if offer_tools else ([], False)
        done_calls = set(done)
        if offer_tools and options.undo_source is not None:
            done_calls |= _undo_keys(context, options.undo_source)
        seen: set[str] = set()
        copying = _Copying(options.copy_source if offer_tools else None, context.tools or [], engine)

        def check_repeat(call: ToolCall) -> None:
            key = _call_key(call)
            if key in done_calls or key in seen:
                engine.request_stop()  # a loop: what follows would be more of it
            seen.add(key)

        parser = TurnParser(
            stream, output, thinking=model.reasoning, hold_calls=bool(done_calls) or copying.active,
            on_held=check_repeat, on_first_argument=copying.hear, on_cut=lambda _reason: engine.request_stop(),
            hidden_notes=(*OWN_NOTES, *options.hidden_notes), hold_text=options.answer_check is not None,
        )
        calls_only = options.tool_choice == "required" or (offer_tools and _must_act(context))

        def grammar(resume: bool) -> str:
            tools = context.tools or [] if offer_tools else []
            return turn_grammar(tools, thinking=model.reasoning, calls_only=calls_only, copies=copying.rules, resume=resume)

        generated = await _sample(
            engine, tokens, grammar, parser, copying, max_tokens=max_tokens, temperature=temperature, options=options,
            fixed=fixed,
        )
        _report_timings(generated)

        async def again(nudge: str, calls_allowed: bool) -> Generated:
            """The turn written again after ``nudge`` (in the request only), its counts added up."""
            seen.clear()
            more = await _sample(
                engine, _prompt_tokens(engine, model, context, offer_tools, nudge=nudge),
                grammar if calls_allowed else lambda _resume: turn_grammar([], thinking=False), parser, copying,
                max_tokens=max_tokens, temperature=max(temperature, RETRY_TEMPERATURE), options=options,
            )
            return Generated(
                more.finish_reason, generated.prompt_tokens, generated.reused_tokens,
                generated.output_tokens + more.output_tokens, generated.prefill_seconds,
                generated.first_token_seconds, generated.restored_tokens,
            )

        if parser.cut is not None and generated.finish_reason != "aborted":
            # A call that looped or grew too long: never run; written again once when nothing of it was shown.
            reason = parser.cut
            if parser.cut_streamed:
                raise EngineError(cut_error(reason))
            parser.drop_calls(hold=True)
            generated = await again(cut_note(reason), offer_tools)
            if parser.cut is not None:
                raise EngineError(cut_error(parser.cut))
        for nudge, calls_allowed in ((RETRY_NUDGE, True), (ANSWER_NUDGE, False)) if failed else ((ANSWER_NUDGE, False),):
            made = bool(parser.held)
            parser.held = _without_repeats(parser.held, done_calls)
            if not made or parser.held or generated.finish_reason != "stop":
                break
            # Only calls just made: ask for something else (the prompt is still in the cache).
            parser.drop_calls(hold=calls_allowed)
            generated = await again(nudge, calls_allowed)
        if options.answer_check is not None and parser.held_text and generated.finish_reason == "stop":
            note = options.answer_check(parser.held_text)
            if note is not None:  # not accepted as the answer: written again once, after the note
                parser.drop_calls(hold=True)
                parser.drop_text()
                generated = await again(note, offer_tools)
        if parser.cut is not None and generated.finish_reason != "aborted":
            raise EngineError(cut_error(parser.cut))
        parser.release_text()
        parser.release_calls()
        output.usage = _usage(generated)
        if generated.finish_reason == "aborted" or (signal is not None and signal.aborted):
            raise AbortError("Request was aborted")
        output.raw_stop_reason = generated.finish_reason
        if generated.finish_reason == "length":
            output.stop_reason = "length"
        else:
            output.stop_reason = "toolUse" if parser.has_tool_calls else "stop"
        stream.push(DoneEvent(reason=output.stop_reason, message=output))
    except Exception as error:
        StreamAccumulator(stream, output).error(error_text(error), aborted=signal is not None and signal.aborted)


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    resolved = provider_options(options, LocalOptions)
    return start_stream(model, lambda s: _run(s, model, context, resolved), signal=resolved.signal)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    options = options or SimpleStreamOptions()
    base = base_options(model, context, options)
    # Pi's clamp keeps 4 096 tokens of the window free because it estimates the prompt; here the
    # prompt is counted exactly and the cap cut to the room left (``_run``), so windows of 4 096
    # tokens or less keep a usable cap instead of 1.
    base["max_tokens"] = options.max_tokens if options.max_tokens is not None else model.max_tokens
    copy_source = base["extra"].get(COPY_SOURCE_OPTION)
    undo_source = base["extra"].get(UNDO_OPTION)
    answer_check = base["extra"].get(ANSWER_CHECK_OPTION)
    hidden = base["extra"].get(HIDDEN_NOTES_OPTION)
    return stream(
        model, context,
        LocalOptions(
            **base, tool_choice=options.tool_choice, copy_source=copy_source if callable(copy_source) else None,
            undo_source=undo_source if callable(undo_source) else None,
            answer_check=answer_check if callable(answer_check) else None,
            hidden_notes=tuple(str(note) for note in hidden) if isinstance(hidden, (list, tuple)) else (),
        ),
    )


API = ApiImplementation(api="local", stream=stream, stream_simple=stream_simple)
