"""The ``codemode`` tool: runs a model-written script that calls the session's other tools.

The tools a script may call come from a seam, ``CodemodeHost.callable_tools`` (the session's
active tools today; MCP's indirect tools can be added there), never including ``codemode`` itself.
Each call goes through ``pi_agent.current_tool_runner()`` when the agent loop runs the tool, so
argument validation and the ``before_tool_call`` / ``after_tool_call`` hooks (extension handlers,
permission gates) apply as to the model's own calls. What a call resolves to in the script:
``structured_content`` for tools with an ``output_schema`` (also on failure, when there is one),
else the text; other failures reject with the error text.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_agent import (
    AgentTool,
    AgentToolResult,
    NestedToolOutcome,
    ToolFailure,
    ToolUpdateCallback,
    current_tool_runner,
)
from pi_ai import AbortSignal, ImageContent, TextContent
from pi_coding_agent.core.codemode import _workers
from pi_coding_agent.core.codemode._catalog import (
    CODEMODE_TOOL_NAME,
    DEFAULT_INLINE_BUDGET,
    GUIDELINES,
    SNIPPET,
    Loadout,
    Mode,
    Namespace,
    ToolFacts,
    declaration,
    describe_codemode,
    prepare_loadout,
)
from pi_coding_agent.core.codemode._format import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    CallRecord,
    arrange,
    error_text,
    header,
    join_texts,
    label_images,
    limit_output,
)
from pi_coding_agent.core.codemode._identifier import to_identifier
from pi_coding_agent.core.codemode._model_calls import ModelCalls, unshown_images_note
from pi_coding_agent.core.codemode._models import ModelsAccess, model_globals
from pi_coding_agent.core.codemode._sandbox import CallRejected, HostGlobal, HostTool, OutputItem, run_script
from pi_coding_agent.core.codemode._source import CodemodeSourceError, parse_source
from pi_coding_agent.core.tool_search import DEFAULT_LIMIT, Candidate, rank, search_document

STORE_ENTRY_TYPE = "codemode-store"
_ARGS_PREVIEW = 200
_ERROR_PREVIEW = 500
INSTALL_HINT = (
    "codemode needs the QuickJS sandbox, which is not installed: pip install 'pi-for-python[codemode]' "
    "(or pip install quickjs-ng)"
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "required": ["code"],
    "properties": {"code": {"type": "string", "description": "The JavaScript program, as raw source text."}},
}


@dataclass
class CodemodeHost:
    """What the tool needs from its session (every part optional)."""

    callable_tools: Callable[[], Sequence[AgentTool]] = field(default=lambda: ())
    """Every tool scripts may call (the seam for MCP's indirect tools)."""
    facts: ToolFacts = field(default_factory=ToolFacts)
    load_store: Callable[[], dict[str, Any]] = field(default=dict)
    """The ``store()`` values of the current branch."""
    save_store: Callable[[dict[str, Any], list[str]], None] | None = None
    """Record a successful script's writes (a ``codemode-store`` entry)."""
    mode: Callable[[], Mode] = field(default=lambda: "on")
    inline_budget: Callable[[], float | None] = field(default=lambda: DEFAULT_INLINE_BUDGET)
    prepare: Callable[[str], Awaitable[None]] | None = None
    """Awaited with the script before it runs: wait for the tools it may reach (MCP servers
    still connecting), so they are callable when it starts."""
    models: ModelsAccess | None = None
    """The catalogs behind the ``models`` global; ``None``: scripts have no ``models``."""


def read_store(entries: Sequence[Any]) -> dict[str, Any]:
    """The values ``load()`` sees: the ``codemode-store`` custom entries of a branch applied in
    order (each ``{"set": {...}, "delete": [...]}``)."""
    from pi_coding_agent.core.session import CustomEntry

    values: dict[str, Any] = {}
    for entry in entries:
        if not isinstance(entry, CustomEntry) or entry.custom_type != STORE_ENTRY_TYPE:
            continue
        data = entry.data
        if not isinstance(data, dict) or not isinstance(data.get("set"), dict) or not isinstance(data.get("delete"), list):
            continue
        for key in data["delete"]:
            values.pop(key, None)
        values.update(data["set"])
    return values


def _preview(value: Any, limit: int) -> str:
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text_of(result: AgentToolResult[Any]) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def script_value(tool: AgentTool, outcome: NestedToolOutcome) -> Any:
    """What ``await tools.<name>(...)`` gives the script (raises ``CallRejected`` to reject)."""
    result = outcome.result
    if tool.output_schema is not None and result.structured_content is not None:
        return result.structured_content
    text = _text_of(result)
    if outcome.is_error:
        raise CallRejected(text or f'Tool "{tool.name}" failed')
    return text


async def _run_alone(tool: AgentTool, call_id: str, args: dict[str, Any], signal: AbortSignal) -> NestedToolOutcome:
    """A nested call without the agent loop (the tool was called directly): validation only."""
    from pi_agent import validate_arguments

    try:
        checked = validate_arguments(tool.name, tool.parameters, tool.prepare_arguments(args))
        result = await tool.execute(call_id, checked, signal, None)
        return NestedToolOutcome(tool_call_id=call_id, result=result, is_error=False)
    except ToolFailure as error:
        failed = AgentToolResult[Any](content=[TextContent(text=str(error))], structured_content=error.structured_content)
        return NestedToolOutcome(tool_call_id=call_id, result=failed, is_error=True)
    except Exception as error:
        return NestedToolOutcome(
            tool_call_id=call_id, result=AgentToolResult(content=[TextContent(text=str(error) or type(error).__name__)]), is_error=True
        )


DISCOVERY_GLOBALS = re.compile(r"\b(searchTools|describeNamespace|describeTool|ALL_TOOLS)\b")
"""Globals with which a script may reach any tool."""


class CodemodeTool(AgentTool):
    name = CODEMODE_TOOL_NAME
    source_path = "builtin:codemode"
    """Where Pi 1.6 says the tool comes from (``getAllTools()``'s ``sourceInfo.path``)."""
    label = CODEMODE_TOOL_NAME
    exposure = "model-only"
    """Declared to the model, never called by other tools (Pi 1.6)."""
    parameters = PARAMETERS
    execution_mode = None
    prompt_snippet = SNIPPET
    prompt_guidelines = GUIDELINES

    def __init__(self, host: CodemodeHost | None = None) -> None:
        self.host = host or CodemodeHost()
        self.description = describe_codemode((), self.host.facts, models=self.host.models is not None)
        """Until the session's loadout (``prepare_loadout``) lists tools: the helpers only."""

    def reaches_tools(self, params: dict[str, Any]) -> str | list[str]:
        """The tools a script may reach (Pi 1.6's ``reachesTools``): every tool when it uses a
        discovery global, else the words of its source (``tools["mcp__docs__" + name]`` still
        names ``mcp__docs``)."""
        code = params.get("code")
        if not isinstance(code, str):
            return []
        return "all" if DISCOVERY_GLOBALS.search(code) else re.findall(r"\w+", code)

    def prepare_loadout(self, declared: Sequence[AgentTool], callable_tools: Sequence[AgentTool] | None = None) -> Loadout:
        """How the session presents ``declared`` (the active tools) while codemode is active; also
        sets this tool's description to the one the loadout gives it. ``callable_tools``: what
        scripts may call (default: the host's answer)."""
        reachable = self._callable() if callable_tools is None else list(callable_tools)
        loadout = prepare_loadout(
            declared, reachable, self.host.facts, self.host.mode(), self.host.inline_budget(),
            models=self.host.models is not None,
        )  # fmt: skip
        self.description = loadout.descriptions.get(CODEMODE_TOOL_NAME, self.description)
        return loadout

    def _callable(self) -> list[AgentTool]:
        return [tool for tool in self.host.callable_tools() if tool.name != CODEMODE_TOOL_NAME]

    async def execute(
        self, tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult[Any]:
        started = time.monotonic()
        try:
            code, options = parse_source(str(params.get("code", "")))
        except CodemodeSourceError as error:
            raise ToolFailure(str(error)) from None
        try:
            import quickjs  # noqa: F401
        except ImportError:
            raise ToolFailure(INSTALL_HINT) from None
        if self.host.prepare is not None:
            await self.host.prepare(code)
        run = _Run(self, tool_call_id, signal or AbortSignal(), on_update)
        run.publish()
        deadline_ms = options.timeout_ms
        waited = await self._admit(run, deadline_ms, started)
        if isinstance(waited, str):
            failed: list[TextContent | ImageContent] = [
                header(False, time.monotonic() - started),
                TextContent(text=f"Script error:\n{waited}\n\nThe script did not start."),
            ]
            raise ToolFailure(waited, content=failed, details=run.details())
        try:
            left = None if deadline_ms is None else max(1, round(deadline_ms - waited * 1000))
            result = await run_script(
                code,
                tools=run.host_tools(),
                host_globals=run.discovery(),
                store=self.host.load_store(),
                timeout_ms=left,
                signal=run.signal,
            )
        finally:
            _workers.release()
        for record in run.calls:
            if record.status == "running":
                record.status = "cancelled"
        output = list(result.output)
        if result.ok:
            if (result.store_set or result.store_delete) and self.host.save_store is not None:
                self.host.save_store(result.store_set, result.store_delete)
            if result.value_json is not None:
                value = json.loads(result.value_json)
                output.append(OutputItem("text", value if isinstance(value, str) else result.value_json))
        blocks = arrange(output)
        if result.error is not None:
            blocks.append(TextContent(text=error_text(result.error, run.calls)))
        shown = any(isinstance(block, ImageContent) for block in blocks)
        if run.model_calls.images and not shown:
            blocks.append(TextContent(text=unshown_images_note(run.model_calls.images)))
        limited, full_path = limit_output(join_texts(blocks), options.max_output_tokens if options.max_output_tokens is not None else DEFAULT_MAX_OUTPUT_TOKENS)
        content = [header(result.ok, time.monotonic() - started), *join_texts(label_images(limited))]
        details = run.details()
        if full_path:
            details["fullOutputPath"] = full_path
        if not result.ok:
            message = "\n".join(block.text for block in content if isinstance(block, TextContent))
            raise ToolFailure(message, content=content, details=details, usage=run.model_calls.result_usage())
        return AgentToolResult(content=content, details=details, usage=run.model_calls.result_usage())

    async def _admit(self, run: _Run, deadline_ms: int | None, started: float) -> float | str:
        """Wait for a free worker: the seconds waited, or why the script cannot start."""
        import asyncio

        limit = _workers.WORKER_WAIT_SECONDS if deadline_ms is None else min(deadline_ms / 1000, _workers.WORKER_WAIT_SECONDS)
        loop = asyncio.get_running_loop()
        aborted: asyncio.Future[None] = loop.create_future()
        remove = run.signal.add_listener(lambda: None if aborted.done() else aborted.set_result(None))
        try:
            outcome = await _workers.reserve(limit, aborted)
        finally:
            remove()
        if outcome == "reserved":
            return time.monotonic() - started
        if outcome == "aborted":
            reason = run.signal.reason
            return f"Script aborted: {reason if isinstance(reason, str | BaseException) and str(reason) else 'Execution aborted'}"
        if deadline_ms is not None and deadline_ms / 1000 <= _workers.WORKER_WAIT_SECONDS:
            return f"Script timed out: Execution timed out after {deadline_ms} ms while waiting for a free codemode worker"
        return (
            f"No codemode worker came free within {int(_workers.WORKER_WAIT_SECONDS)} seconds: all "
            f"{_workers.max_workers()} workers of this process are busy with other scripts. Try again when they are done."
        )


class _Run:
    """One call's nested calls and what its script can reach."""

    def __init__(self, tool: CodemodeTool, call_id: str, signal: AbortSignal, on_update: ToolUpdateCallback | None) -> None:
        self.tool = tool
        self.call_id = call_id
        self.signal = signal
        self.on_update = on_update
        self.calls: list[CallRecord] = []
        self.callable = tool._callable()
        facts = tool.host.facts
        self.samples = {t.name: declaration(t, facts.guidelines(t.name)) for t in self.callable}
        self.runner = current_tool_runner()
        self.model_calls = ModelCalls(call_id, self.calls, self.publish)

    def details(self) -> dict[str, Any]:
        return {"calls": [record.to_json() for record in self.calls]}

    def publish(self) -> None:
        if self.on_update is not None:
            self.on_update(AgentToolResult(content=[], details=self.details()))

    def host_tools(self) -> list[HostTool]:
        return [HostTool(t.name, self.samples[t.name], self._caller(t)) for t in self.callable]

    def _caller(self, tool: AgentTool) -> Callable[[Any, AbortSignal], Any]:
        async def call(args: Any, signal: AbortSignal) -> Any:
            record = CallRecord(id=f"{self.call_id}/?", name=tool.name, args=_preview(args, _ARGS_PREVIEW) if args is not None else "")
            self.calls.append(record)
            self.publish()
            began = time.perf_counter()
            arguments = args if isinstance(args, dict) else {}
            if self.runner is not None:
                outcome = await self.runner.run(tool, arguments, signal)
            else:
                outcome = await _run_alone(tool, f"{self.call_id}/{len(self.calls)}", arguments, signal)
            record.id = outcome.tool_call_id
            record.duration_ms = (time.perf_counter() - began) * 1000
            if outcome.is_error:
                record.status = "cancelled" if signal.aborted else "error"
                record.error = _preview(_text_of(outcome.result) or f'Tool "{tool.name}" failed', _ERROR_PREVIEW)
            else:
                record.status = "ok"
            self.publish()
            return script_value(tool, outcome)

        return call

    def discovery(self) -> list[HostGlobal]:
        facts = self.tool.host.facts
        tools = self.callable

        def entry(tool: AgentTool) -> dict[str, str]:
            return {"name": to_identifier(tool.name), "description": self.samples[tool.name]}

        async def search(args: list[Any], _signal: AbortSignal) -> Any:
            query = args[0] if args else None
            options = args[1] if len(args) > 1 and isinstance(args[1], dict) else {}
            if not isinstance(query, str):
                raise CallRejected("searchTools() takes a query string")
            limit = options.get("limit", DEFAULT_LIMIT)
            if limit is None:
                limit = DEFAULT_LIMIT
            if isinstance(limit, float) and limit.is_integer():
                limit = int(limit)
            if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
                raise CallRejected("searchTools(): limit must be a whole number above zero")
            namespace = options.get("namespace")
            if namespace is not None and not isinstance(namespace, str):
                raise CallRejected("searchTools(): namespace must be a string")
            documents = []
            for tool in tools:
                group = facts.namespace(tool.name)
                if namespace and (group is None or not group.matches(namespace)):
                    continue
                about = " ".join([group.name, group.description or "", group.instructions or ""]) if group else ""
                documents.append(search_document(Candidate(tool.name, tool.description, tool.parameters, about)))
            by_name = {tool.name: tool for tool in tools}
            return [entry(by_name[name]) for name in rank(query, documents, limit)]

        async def describe_tool(args: list[Any], _signal: AbortSignal) -> Any:
            name = args[0] if args else None
            if not isinstance(name, str):
                raise CallRejected("describeTool() takes a tool name")
            found = next((t for t in tools if t.name == name or to_identifier(t.name) == name), None)
            return None if found is None else self.samples[found.name]

        async def describe_namespace(args: list[Any], _signal: AbortSignal) -> Any:
            name = args[0] if args else None
            if not isinstance(name, str):
                raise CallRejected("describeNamespace() takes a namespace name")
            group: Namespace | None = None
            names: list[str] = []
            for tool in tools:
                own = facts.namespace(tool.name)
                if own is None or not own.matches(name):
                    continue
                group = group or own
                names.append(to_identifier(tool.name))
            if group is None:
                return None
            described: dict[str, Any] = {"name": group.name}
            if group.description:
                described["description"] = group.description
            if group.instructions:
                described["instructions"] = group.instructions
            described["tools"] = names
            return described

        models = self.tool.host.models
        return [
            HostGlobal("searchTools", search),
            HostGlobal("describeTool", describe_tool),
            HostGlobal("describeNamespace", describe_namespace),
            *(model_globals(models, self.model_calls) if models is not None else ()),
        ]
