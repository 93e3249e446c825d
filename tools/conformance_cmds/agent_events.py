"""``agent-events``: run OUR ``Agent`` the way the oracle runs Pi's (``oracle/lib/agent.mjs``).

Same input, same output shape: scripted assistant turns served by our faux provider (fixed
chunk size, optional ``tokensPerSecond`` pacing), canned tool results, the oracle's extended
controls (injections at the n-th event, tool-call hook rules, throwing callbacks), and the
same event summaries.

One adaptation keeps the faux provider's usage estimate equal to Pi's: Pi hands its
``AgentTool`` objects to the provider, so the faux provider's prompt text (whose length sets
``usage.input``) contains each tool's ``label``; our loop hands pi-ai ``Tool``\\ s, which have
none. The stream function below shows the faux provider the tools as Pi's JSON would.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from conformance_cmds._common import Rejected
from pi_agent import (
    AfterToolCallContext,
    AfterToolCallResult,
    Agent,
    AgentEvent,
    AgentMessage,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    TurnContext,
    agent_message_from_dict,
    tool_result_to_json,
)
from pi_ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    SimpleStreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    convert,
    to_builtins,
)
from pi_ai.faux import FauxModelSpec, register_faux_provider

__all__ = ["Rejected", "run"]

EVENT_TYPES = (
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
)
EXTENDED_FIELDS = (
    "tokensPerSecond",
    "steeringMode",
    "followUpMode",
    "steerAt",
    "followUpAt",
    "abortAt",
    "beforeToolCall",
    "afterToolCall",
    "transformContext",
    "transformContextThrowsAt",
    "convertToLlmThrowsAt",
    "listenerThrowsAt",
    "shouldStopAfterTurn",
)
WAIT_FOR_ABORT_LIMIT_S = 10.0


class InputError(Exception):
    """Unusable input (the oracle exits 2 for these)."""


class NotBuilt(Exception):
    """A part this command needs is not built yet."""


def run(request: dict[str, Any]) -> dict[str, Any]:
    try:
        return asyncio.run(_run(request))
    except InputError as error:
        print(f"conformance: invalid input: {error}", file=sys.stderr)
        sys.exit(2)
    except NotBuilt as error:
        sys.stdout.write(json.dumps({"error": {"name": "NotBuilt", "message": str(error)}}) + "\n")
        sys.exit(3)


# --------------------------------------------------------------------------- helpers


def zero_timestamps(value: Any) -> Any:
    """``timestamp`` and Pi 1.6's ``durationMs`` as 0: clock readings, never compared."""
    if isinstance(value, list):
        return [zero_timestamps(item) for item in value]
    if isinstance(value, dict):
        return {
            key: 0
            if key in ("timestamp", "durationMs") and isinstance(item, int | float) and not isinstance(item, bool)
            else zero_timestamps(item)
            for key, item in value.items()
        }
    return value


def message_json(message: Any) -> Any:
    return zero_timestamps(to_builtins(message))


def to_message(value: Any) -> AgentMessage:
    if isinstance(value, str):
        value = {"role": "user", "content": [{"type": "text", "text": value}], "timestamp": 0}
    elif isinstance(value, dict):
        value = {"timestamp": 0, **value}
    else:
        raise InputError(f"a message must be a string or an object, got {value!r}")
    try:
        return agent_message_from_dict(value)
    except ValueError as error:
        raise InputError(f"bad message {json.dumps(value)[:200]}: {error}") from None


def as_list(value: Any, field: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [value]
    raise InputError(f"{field} must be an object or a list of objects")


def content_blocks(value: Any) -> list[TextContent | ImageContent]:
    return convert(value or [], list[TextContent | ImageContent])  # type: ignore[no-any-return]


def scripted_response(spec: Any, counter: list[int]) -> AssistantMessage:
    spec = {"content": spec} if isinstance(spec, str) else spec
    raw = spec.get("content")
    raw_blocks = [{"type": "text", "text": raw}] if isinstance(raw, str) else (raw or [])
    blocks = []
    for raw_block in raw_blocks:
        block = raw_block
        if block.get("type") == "toolCall":
            block = {"arguments": {}, **block}
            if block.get("id") is None:
                counter[0] += 1
                block["id"] = f"call_{counter[0]}"
        blocks.append(block)
    content = convert(blocks, list[TextContent | ThinkingContent | ToolCall])
    has_call = any(isinstance(block, ToolCall) for block in content)
    return AssistantMessage(
        content=content,
        api="faux",
        provider="faux",
        model="faux-model",
        usage=convert(spec["usage"], Usage) if spec.get("usage") else Usage(),
        stop_reason=spec.get("stopReason") or ("toolUse" if has_call else "stop"),
        error_message=spec.get("errorMessage"),
        response_id=spec.get("responseId"),
        timestamp=0,
    )


class ScriptedTool(AgentTool):
    """The oracle's canned tool: each call consumes the next scripted result."""

    def __init__(self, spec: dict[str, Any], log: list[dict[str, Any]]) -> None:
        self.name = spec["name"]
        self.label = spec.get("label", spec["name"])
        self.description = spec.get("description", "")
        self.parameters = spec.get("parameters") or {"type": "object", "properties": {}}
        if spec.get("executionMode"):
            self.execution_mode = spec["executionMode"]
        self._results = list(spec.get("results") or ([spec["result"]] if spec.get("result") else []))
        self._log = log

    def pi_json(self) -> dict[str, Any]:
        """What ``JSON.stringify`` makes of the oracle's tool object."""
        out = {
            "name": self.name,
            "label": self.label,
            "description": self.description,
            "parameters": self.parameters,
        }
        if self.execution_mode is not None:
            out["executionMode"] = self.execution_mode
        return out

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: Callable[[AgentToolResult[Any]], None] | None,
    ) -> AgentToolResult[Any]:
        self._log.append(
            {"toolCallId": tool_call_id, "toolName": self.name, "params": json.loads(json.dumps(params))}
        )
        spec = self._results.pop(0) if self._results else {"content": [{"type": "text", "text": "ok"}]}
        for update in spec.get("updates") or []:
            if on_update is not None:
                on_update(
                    AgentToolResult(
                        content=content_blocks(update.get("content")), details=update.get("details")
                    )
                )
        if spec.get("delayMs"):
            await asyncio.sleep(spec["delayMs"] / 1000)
        if spec.get("waitForAbort"):
            await wait_for_abort(signal, tool_call_id)
        if spec.get("throw") is not None:
            raise RuntimeError(str(spec["throw"]))
        return AgentToolResult(
            content=content_blocks(spec.get("content")),
            details=spec.get("details"),
            terminate=spec.get("terminate"),
        )


async def wait_for_abort(signal: AbortSignal | None, tool_call_id: str) -> None:
    """Like the oracle's ``abortedPromise``: one wake-up when the signal fires (one turn of the
    loop if it already has), and a watchdog that fails the case if it never does."""
    if signal is None:
        raise InputError(f"waitForAbort: tool call {tool_call_id} got no abort signal")
    loop = asyncio.get_running_loop()
    if signal.aborted:
        await asyncio.sleep(0)
        return
    fired: asyncio.Future[None] = loop.create_future()

    def give_up() -> None:
        print(
            f"conformance: waitForAbort: the abort signal never fired for tool call {tool_call_id}",
            file=sys.stderr,
        )
        sys.stdout.flush()
        os._exit(2)

    watchdog = loop.call_later(WAIT_FOR_ABORT_LIMIT_S, give_up)
    signal.add_listener(lambda: fired.done() or fired.set_result(None))
    await fired
    watchdog.cancel()


class PiToolView:
    """Encodes like the oracle's JS tool object, for the faux provider's prompt-size estimate."""

    def __init__(self, tool: AgentTool) -> None:
        self.tool = tool

    def __pi_json__(self) -> dict[str, Any]:
        if isinstance(self.tool, ScriptedTool):
            return self.tool.pi_json()
        return {
            "name": self.tool.name,
            "label": self.tool.label,
            "description": self.tool.description,
            "parameters": self.tool.parameters,
        }


# --------------------------------------------------------------------------- event summaries


def summarize(event: AgentEvent) -> dict[str, Any]:
    kind = event.type
    if kind in ("agent_start", "turn_start"):
        return {"type": kind}
    if kind == "agent_end":
        return {
            "type": kind,
            "messageRoles": [m.role for m in event.messages],  # type: ignore[union-attr]
            "messages": message_json(event.messages),
        }  # type: ignore[union-attr]
    if kind == "turn_end":
        message = event.message  # type: ignore[union-attr]
        out = {"type": kind, "role": message.role}
        if isinstance(message, AssistantMessage):
            out["stopReason"] = message.stop_reason
        out["toolResultIds"] = [r.tool_call_id for r in event.tool_results]  # type: ignore[union-attr]
        return out
    if kind == "message_start":
        message = event.message  # type: ignore[union-attr]
        out = {"type": kind, "role": message.role}
        if message.role != "assistant":
            out["message"] = message_json(message)
        return out
    if kind == "message_update":
        inner_event = to_builtins(event.assistant_message_event)  # type: ignore[union-attr]
        inner = {"type": inner_event["type"]}
        for key in ("contentIndex", "delta", "content", "toolCall", "reason"):
            if key in inner_event:
                inner[key] = inner_event[key]
        return {"type": kind, "role": event.message.role, "assistantMessageEvent": inner}  # type: ignore[union-attr]
    if kind == "message_end":
        message = event.message  # type: ignore[union-attr]
        out = {"type": kind, "role": message.role}
        if message.role == "toolResult":
            out["toolCallId"] = message.tool_call_id
        out["message"] = message_json(message)
        return out
    if kind == "tool_execution_start":
        return {
            "type": kind,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,  # type: ignore[union-attr]
            "args": event.args,
        }  # type: ignore[union-attr]
    if kind == "tool_execution_update":
        return {
            "type": kind,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,  # type: ignore[union-attr]
            "partialResult": tool_result_to_json(event.partial_result),
        }  # type: ignore[union-attr]
    return {
        "type": kind,
        "toolCallId": event.tool_call_id,
        "toolName": event.tool_name,  # type: ignore[union-attr]
        "isError": event.is_error,
        "result": tool_result_to_json(event.result),
    }  # type: ignore[union-attr]


# --------------------------------------------------------------------------- controls


class Trigger:
    """Fires on the nth AgentEvent of type ``on`` that passes every optional filter."""

    def __init__(self, spec: Any, field: str) -> None:
        if not isinstance(spec, dict) or spec.get("on") not in EVENT_TYPES:
            raise InputError(f'{field}: "on" must be one of {", ".join(EVENT_TYPES)}')
        nth = spec.get("nth", 1)
        if not isinstance(nth, int) or isinstance(nth, bool) or nth < 1:
            raise InputError(f'{field}: "nth" must be an integer >= 1')
        self.spec = spec
        self.on = spec["on"]
        self.nth = nth
        self.seen = 0

    def matches(self, event: AgentEvent, summary: dict[str, Any]) -> bool:
        spec = self.spec
        if event.type != self.on:
            return False
        message = getattr(event, "message", None)
        if "role" in spec and (message.role if message is not None else None) != spec["role"]:
            return False
        if "toolName" in spec and getattr(event, "tool_name", None) != spec["toolName"]:
            return False
        if "toolCallId" in spec and getattr(event, "tool_call_id", None) != spec["toolCallId"]:
            return False
        if "assistantEvent" in spec:
            inner = getattr(event, "assistant_message_event", None)
            if (inner.type if inner is not None else None) != spec["assistantEvent"]:
                return False
        self.seen += 1
        return self.seen == self.nth


class Injection:
    def __init__(self, kind: str, trigger: Trigger, message: Any, throw_message: Any) -> None:
        self.kind = kind
        self.trigger = trigger
        self.message = message
        self.throw_message = throw_message
        self.fired_at: int | None = None


def throw_at(value: Any, field: str, default: Callable[[int], str]) -> tuple[int, str] | None:
    if value is None:
        return None
    spec = {"call": value} if isinstance(value, int) and not isinstance(value, bool) else value
    call = spec.get("call") if isinstance(spec, dict) else None
    if not isinstance(call, int) or isinstance(call, bool) or call < 1:
        raise InputError(f'{field} must be a call number >= 1 or {{"call": N, "message"?: string}}')
    return call, spec.get("message", default(call))


def make_transform(kind: Any) -> Callable[[list[AgentMessage]], list[AgentMessage]] | None:
    if kind is None:
        return None
    if kind == "identity":
        return lambda messages: messages
    if kind == "dropFirstUser":

        def drop_first_user(messages: list[AgentMessage]) -> list[AgentMessage]:
            index = next((i for i, m in enumerate(messages) if m.role == "user"), None)
            return messages if index is None else [*messages[:index], *messages[index + 1 :]]

        return drop_first_user
    keep = kind.get("keepLast") if isinstance(kind, dict) else None
    if isinstance(keep, int) and not isinstance(keep, bool) and keep >= 0:
        return lambda messages: [] if keep == 0 else messages[-keep:]
    raise InputError('transformContext must be "identity", "dropFirstUser" or {"keepLast": N}')


def rule_matches(rule: dict[str, Any], call: ToolCall) -> bool:
    if rule.get("tool") is not None and rule["tool"] != "*" and rule["tool"] != call.name:
        return False
    return not (rule.get("toolCallId") is not None and rule["toolCallId"] != call.id)


def coding_agent_converter() -> Callable[[list[AgentMessage]], Any]:
    try:
        from pi_coding_agent.core.messages import convert_to_llm  # type: ignore[import-not-found,unused-ignore]
    except ImportError as error:
        raise NotBuilt(
            f"convertToLlm 'coding-agent' needs pi_coding_agent.core.messages.convert_to_llm (issue #4): {error}"
        ) from None
    converter: Callable[[list[AgentMessage]], Any] = convert_to_llm
    return converter


# --------------------------------------------------------------------------- the run


async def _run(request: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(request, dict):
        raise InputError("input must be an object")
    chunk = max(1, request.get("chunkTokens") or 4)
    faux = register_faux_provider(
        api="faux",
        provider="faux",
        models=[FauxModelSpec(id="faux-model", name="Faux Model", reasoning=bool(request.get("reasoning")))],
        token_size=(chunk, chunk),
        tokens_per_second=request.get("tokensPerSecond") or None,
    )
    counter = [0]
    faux.set_responses([scripted_response(r, counter) for r in request.get("responses") or []])

    converter = request.get("convertToLlm")
    convert_to_llm = None
    if converter == "coding-agent":
        convert_to_llm = coding_agent_converter()
    elif converter not in (None, "agent-default"):
        raise Rejected('convertToLlm must be "agent-default" or "coding-agent"')

    extended = any(request.get(key) is not None for key in EXTENDED_FIELDS)
    for key in ("steeringMode", "followUpMode"):
        if key in request and request[key] not in ("one-at-a-time", "all"):
            raise InputError(f'{key} must be "one-at-a-time" or "all"')
    injections: list[Injection] = []
    for field, kind in (
        ("steerAt", "steer"),
        ("followUpAt", "followUp"),
        ("abortAt", "abort"),
        ("listenerThrowsAt", "throw"),
    ):
        for spec in as_list(request.get(field), field):
            message = spec.get("message") if kind in ("steer", "followUp") else None
            if kind in ("steer", "followUp") and message is None:
                raise InputError(f'{field}: every entry needs a "message"')
            injections.append(Injection(kind, Trigger(spec, field), message, spec.get("message")))

    hook_calls: list[dict[str, Any]] = []
    before_rules = as_list(request.get("beforeToolCall"), "beforeToolCall")
    after_rules = as_list(request.get("afterToolCall"), "afterToolCall")
    transform = make_transform(request.get("transformContext"))
    transform_throw = throw_at(
        request.get("transformContextThrowsAt"),
        "transformContextThrowsAt",
        lambda n: f"transformContext failed on call {n}",
    )
    transform_context = None
    if transform_throw is not None or transform is not None:
        inner_transform = transform or (lambda messages: messages)
        transform_calls = [0]

        async def transform_context(
            messages: list[AgentMessage], signal: AbortSignal | None
        ) -> list[AgentMessage]:
            transform_calls[0] += 1
            if transform_throw is not None and transform_calls[0] == transform_throw[0]:
                raise RuntimeError(transform_throw[1])
            return inner_transform(messages)

    convert_throw = throw_at(
        request.get("convertToLlmThrowsAt"),
        "convertToLlmThrowsAt",
        lambda n: f"convertToLlm failed on call {n}",
    )
    stop_after = request.get("shouldStopAfterTurn")
    if stop_after is not None and (
        not isinstance(stop_after, int) or isinstance(stop_after, bool) or stop_after < 1
    ):
        raise InputError("shouldStopAfterTurn must be a turn number >= 1")

    tool_log: list[dict[str, Any]] = []
    llm_calls: list[dict[str, Any]] = []

    def stream_fn(model: Model, context: Context, options: SimpleStreamOptions) -> Any:
        call: dict[str, Any] = {
            "systemPrompt": context.system_prompt,
            "messages": message_json(context.messages),
            "tools": [tool.name for tool in context.tools or []],
        }
        if options.reasoning is not None:
            call["reasoning"] = options.reasoning
        llm_calls.append(call)
        views = (
            None
            if context.tools is None
            else [PiToolView(tools_by_name[tool.name]) for tool in context.tools]
        )
        shown = Context(system_prompt=context.system_prompt, messages=context.messages, tools=views)  # type: ignore[arg-type]
        return faux.stream(model, shown, options)

    async def before_tool_call(
        ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        call = ctx.tool_call
        record: dict[str, Any] = {
            "hook": "beforeToolCall",
            "toolCallId": call.id,
            "toolName": call.name,
            "args": json.loads(json.dumps(ctx.args)),
        }
        hook_calls.append(record)
        rule = next((r for r in before_rules if rule_matches(r, call)), None)
        if rule is None:
            return None
        if rule.get("throw") is not None:
            record["threw"] = str(rule["throw"])
            raise RuntimeError(str(rule["throw"]))
        returned = {key: rule[key] for key in ("block", "reason", "terminate") if key in rule}
        record["returned"] = returned
        return BeforeToolCallResult(
            block=bool(returned.get("block")),
            reason=returned.get("reason"),
            terminate=returned.get("terminate"),
        )

    async def after_tool_call(
        ctx: AfterToolCallContext, signal: AbortSignal | None
    ) -> AfterToolCallResult | None:
        call = ctx.tool_call
        record: dict[str, Any] = {
            "hook": "afterToolCall",
            "toolCallId": call.id,
            "toolName": call.name,
            "args": json.loads(json.dumps(ctx.args)),
            "result": tool_result_to_json(ctx.result),
            "isError": ctx.is_error,
        }
        hook_calls.append(record)
        rule = next((r for r in after_rules if rule_matches(r, call)), None)
        if rule is None:
            return None
        if rule.get("throw") is not None:
            record["threw"] = str(rule["throw"])
            raise RuntimeError(str(rule["throw"]))
        returned = {key: rule[key] for key in ("content", "details", "isError", "terminate") if key in rule}
        record["returned"] = returned
        content = returned.get("content")
        return AfterToolCallResult(
            content=content_blocks(content) if content is not None else None,
            details=returned.get("details"),
            is_error=returned.get("isError"),
            terminate=returned.get("terminate"),
        )

    turns_completed = [0]

    def should_stop(turn: TurnContext, signal: AbortSignal | None) -> bool:
        turns_completed[0] += 1
        return bool(stop_after) and turns_completed[0] >= stop_after

    tools = [ScriptedTool(spec, tool_log) for spec in request.get("tools") or []]
    tools_by_name = {tool.name: tool for tool in tools}
    agent = Agent(
        system_prompt=request.get("systemPrompt") or "",
        model=faux.get_model(),
        thinking_level=request.get("thinkingLevel") or "off",
        tools=tools,
        messages=[to_message(m) for m in request.get("messages") or []],
        stream_fn=stream_fn,
        convert_to_llm=convert_to_llm,
        transform_context=transform_context,
        tool_execution=request.get("toolExecution") or "parallel",
        steering_mode=request.get("steeringMode") or "one-at-a-time",
        follow_up_mode=request.get("followUpMode") or "one-at-a-time",
        should_stop_after_turn=should_stop if stop_after else None,
        before_tool_call=before_tool_call if before_rules else None,
        after_tool_call=after_tool_call if after_rules else None,
    )
    if convert_throw is not None:
        inner_convert = agent.convert_to_llm
        convert_calls = [0]

        async def throwing_convert(messages: list[AgentMessage]) -> Any:
            convert_calls[0] += 1
            if convert_calls[0] == convert_throw[0]:
                raise RuntimeError(convert_throw[1])
            result = inner_convert(messages)
            return await result if asyncio.iscoroutine(result) else result

        agent.convert_to_llm = throwing_convert

    events: list[dict[str, Any]] = []

    def listener(event: AgentEvent, signal: AbortSignal) -> None:
        summary = summarize(event)
        events.append(summary)
        to_throw: str | None = None
        for injection in injections:
            if injection.fired_at is not None or not injection.trigger.matches(event, summary):
                continue
            injection.fired_at = len(events) - 1
            if injection.kind == "steer":
                agent.steer(to_message(injection.message))
            elif injection.kind == "followUp":
                agent.follow_up(to_message(injection.message))
            elif injection.kind == "abort":
                agent.abort()
            elif to_throw is None:
                to_throw = injection.throw_message or f"listener failed on {event.type}"
        if to_throw is not None:
            raise RuntimeError(to_throw)

    agent.subscribe(listener)
    for message in request.get("steering") or []:
        agent.steer(to_message(message))
    for message in request.get("followUps") or []:
        agent.follow_up(to_message(message))

    prompt = request.get("prompt")
    try:
        if prompt is None:
            await agent.continue_()
        elif isinstance(prompt, str):
            await agent.prompt(prompt)
        elif isinstance(prompt, list):
            await agent.prompt([to_message(m) for m in prompt])
        else:
            await agent.prompt(to_message(prompt))
    except (ValueError, RuntimeError) as error:
        raise Rejected(str(error)) from None
    await agent.wait_for_idle()

    out: dict[str, Any] = {
        "eventTypes": [event["type"] for event in events],
        "events": events,
        "llmCalls": llm_calls,
        "toolCalls": tool_log,
        "finalMessages": message_json(agent.state.messages),
        "errorMessage": agent.state.error_message,
        "pendingResponses": faux.pending_response_count,
    }
    if extended:
        out["injections"] = [
            {"kind": i.kind, "on": i.trigger.on, "nth": i.trigger.nth, "firedAtEvent": i.fired_at}
            for i in injections
        ]
        if before_rules or after_rules:
            out["hookCalls"] = hook_calls
        out["hasQueuedMessages"] = agent.has_queued_messages()
    return out
