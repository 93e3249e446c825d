"""What the ``codemode`` tool tells the model: its description (helpers, then the tools it lists,
grouped by namespace, within a token budget), and the note declared tools get in ``on`` mode.

The wording is ours (docs/codemode.md); the shape follows Pi 1.6: ``Nested tools:``, a
``## <namespace>`` heading per namespace, a ``### `id` `` section per tool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pi_agent import AgentTool
from pi_coding_agent.core.codemode._declarations import describe_output, render_declaration
from pi_coding_agent.core.codemode._identifier import to_identifier

CODEMODE_TOOL_NAME = "codemode"
DEFAULT_INLINE_BUDGET = 3000
CHARS_PER_TOKEN = 4
Exposure = Literal["direct", "codemode", "deferred", "hidden", "model-only"]
Mode = Literal["on", "only"]

INTRO = """Runs a JavaScript program that can call the other tools, so that only what the program prints reaches you. Send the program itself as raw text (not JSON, no markdown fence). It runs as the body of an async function in a QuickJS sandbox: top-level `await` and `return` work; there is no Node, file system, network or timer API.
- `await tools.<name>({ ...args })` gives a string, or an object when the tool's declaration returns one, and throws an Error when the call fails. A tool that returns an object may also resolve with it on failure: check its fields. Calls still running when the program ends are cancelled.
- The first line may set options: `// @options: {"max_output_tokens": 10000, "timeout_ms": 60000}`"""

GLOBALS = """Globals:
- Output: `text(value)`, `image(dataUrlOrImageBlock)`, `console.log(...)` and a top-level `return`; `exit()` stops the program early. When there are several text items each starts with a `==> text N/M <==` line, and console lines come after everything else in one `<console_output>` block. `image()` also saves the image to a temp file and names the path.
- `store(key, value)` and `load(key)` keep JSON values from one codemode call to the next.
- `ALL_TOOLS`, `await searchTools(query, { limit?, namespace? })`, `await describeTool(name)` and `await describeNamespace(name)` find tools that are not listed here, such as MCP tools."""

MODELS_LINE = """
- `models` reads the model catalog by type (`"chat"`, `"image"`, `"classifier"`): `await models.getModelsOfType(type, provider?)`, `await models.getAvailableOfType(type, provider?)` (only providers with credentials), `await models.getModelOfType(type, provider, id)`."""

SNIPPET = "Run a JavaScript program that calls the other tools"
GUIDELINES = (
    "Use codemode to run independent tool calls together (Promise.allSettled), chain them, or cut large "
    "output down, rather than making many separate calls.",
)


@dataclass(frozen=True, slots=True)
class Namespace:
    """A group of tools (an MCP server): listed under one heading; scripts read ``instructions``
    with ``describeNamespace()`` and may name it by an alias."""

    name: str
    aliases: tuple[str, ...] = ()
    description: str | None = None
    instructions: str | None = None

    def matches(self, query: str) -> bool:
        wanted = to_identifier(query)
        return any(name == query or to_identifier(name) == wanted for name in (self.name, *self.aliases))


@dataclass(frozen=True, slots=True)
class ToolFacts:
    """What codemode needs to know of the tools beyond the tools themselves (the seam MCP fills):
    exposure, namespace and prompt guidelines by tool name."""

    exposure: Callable[[str], Exposure] = field(default=lambda _name: "direct")
    namespace: Callable[[str], Namespace | None] = field(default=lambda _name: None)
    guidelines: Callable[[str], Sequence[str]] = field(default=lambda _name: ())


def exposure_of(tool: AgentTool, facts: ToolFacts) -> str:
    """An extension tool's own ``exposure``, else what the facts say (MCP tools)."""
    own = getattr(tool, "exposure", None)
    return own if isinstance(own, str) and own != "direct" else facts.exposure(tool.name)


def script_description(tool: AgentTool, guidelines: Sequence[str] = ()) -> str:
    """A tool's description with its prompt guidelines as bullets (the system prompt has them
    only for declared tools); no guidelines given: the tool's own ``prompt_guidelines``."""
    guidelines = guidelines or tuple(getattr(tool, "prompt_guidelines", ()) or ())
    bullets = [f"- {line.strip()}" for line in guidelines if line.strip()]
    return f"{tool.description.strip()}\n\n" + "\n".join(bullets) if bullets else tool.description


def declaration(tool: AgentTool, guidelines: Sequence[str] = ()) -> str:
    return render_declaration(tool.name, script_description(tool, guidelines), tool.parameters, tool.output_schema)


def _section(tool: AgentTool, guidelines: Sequence[str]) -> str:
    ident = to_identifier(tool.name)
    heading = f"### `{ident}`" if ident == tool.name else f"### `{ident}` (`{tool.name}`)"
    return f"{heading}\n{declaration(tool, guidelines).strip()}"


@dataclass
class _Group:
    namespace: Namespace | None
    entries: list[tuple[str, str, int]] = field(default_factory=list)
    """(tool name, section, cost in tokens)"""


def _fit(groups: Sequence[_Group], budget: float | None) -> set[str]:
    """Tools whose sections fit the budget: rounds in which every group places its cheapest
    remaining tool, a group dropping out once its next tool does not fit, so every namespace
    shows some tools before any shows all."""
    if budget is None:
        return {name for group in groups for name, _, _ in group.entries}
    queues = [sorted(group.entries, key=lambda entry: entry[2]) for group in groups]
    shown: set[str] = set()
    left = budget
    live = [queue for queue in queues if queue]
    while live:
        still: list[list[tuple[str, str, int]]] = []
        for queue in live:
            name, _, cost = queue[0]
            if cost > left:
                continue
            left -= cost
            shown.add(name)
            queue.pop(0)
            if queue:
                still.append(queue)
        live = still
    return shown


def describe_codemode(
    listed: Sequence[AgentTool],
    facts: ToolFacts,
    inline_budget: float | None = DEFAULT_INLINE_BUDGET,
    *,
    models: bool = False,
) -> str:
    """The tool's description, listing ``listed`` (``deferred`` tools never); ``models``: the
    scripts have the ``models`` global."""
    tools = [tool for tool in listed if tool.name != CODEMODE_TOOL_NAME and exposure_of(tool, facts) != "deferred"]
    parts = [INTRO, GLOBALS + (MODELS_LINE if models else "")]
    if not tools:
        return "\n\n".join(parts)
    groups: dict[str, _Group] = {"": _Group(None)}
    for tool in tools:
        namespace = facts.namespace(tool.name)
        key = f"ns:{namespace.name}" if namespace else ""
        group = groups.setdefault(key, _Group(namespace))
        section = _section(tool, facts.guidelines(tool.name))
        group.entries.append((tool.name, section, -(-len(section) // CHARS_PER_TOKEN)))
    ordered = sorted(groups.values(), key=lambda group: (group.namespace is not None, group.namespace.name if group.namespace else ""))
    shown = _fit(ordered, inline_budget)
    lines = ["Nested tools:"]
    for group in ordered:
        visible = [entry for entry in group.entries if entry[0] in shown]
        if group.namespace is not None:
            missing = "" if len(visible) == len(group.entries) else " (tools not listed)" if not visible else " (some tools not listed)"
            about = (group.namespace.description or "").strip()
            lines.append(f"## {group.namespace.name}{missing}" + (f"\n{about}" if about else ""))
        lines.extend(section for _, section, _ in visible)
    parts.append("\n\n".join(lines))
    return "\n\n".join(parts)


def declared_note(tool: AgentTool) -> str:
    """A declared tool's description in ``on`` mode: how scripts call it and what they get."""
    return (
        f"{tool.description.strip()}\n\nIn codemode scripts: `tools.{to_identifier(tool.name)}(args)` "
        f"resolves to {describe_output(tool.output_schema)}."
    )


@dataclass(frozen=True, slots=True)
class Loadout:
    """How the active tools are presented while ``codemode`` is active."""

    descriptions: dict[str, str]
    """Replacement descriptions by tool name (``codemode``'s own included)."""
    hidden: list[str]
    """Active tools whose declarations requests leave out (``only`` mode)."""


def prepare_loadout(
    declared: Sequence[AgentTool],
    callable_tools: Sequence[AgentTool],
    facts: ToolFacts,
    mode: Mode,
    inline_budget: float | None,
    *,
    models: bool = False,
) -> Loadout:
    """``on``: declared callable tools get the script note, and codemode lists the callable tools
    that are not ``direct``. ``only``: codemode lists every callable tool, and the declared
    ``direct`` ones are hidden from the model."""
    callable_tools = [tool for tool in callable_tools if tool.name != CODEMODE_TOOL_NAME]
    callable_names = {tool.name for tool in callable_tools}
    descriptions: dict[str, str] = {}
    if mode == "on":
        for tool in declared:
            if tool.name in callable_names:
                descriptions[tool.name] = declared_note(tool)
    is_direct = [exposure_of(tool, facts) == "direct" for tool in callable_tools]
    listed = callable_tools if mode == "only" else [tool for tool, direct in zip(callable_tools, is_direct, strict=True) if not direct]
    descriptions[CODEMODE_TOOL_NAME] = describe_codemode(listed, facts, inline_budget, models=models)
    declared_names = {tool.name for tool in declared}
    hidden = (
        [tool.name for tool, direct in zip(callable_tools, is_direct, strict=True) if direct and tool.name in declared_names]
        if mode == "only"
        else []
    )
    return Loadout(descriptions, hidden)
