"""Pi's context as the prompt text a local model expects, through the GGUF's own chat template.

Messages become the OpenAI-shaped dicts that Hugging Face chat templates read (``tool_calls`` with
object arguments, ``tool`` messages for results). A template that knows tools (Qwen2.5's) lists
them itself; for one that does not, the same instructions are added to the system message and calls
and results are written into the text. Images are replaced by a note: these models read text only.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pi_ai._context import Context, Tool
from pi_ai._messages import AssistantMessage, ImageContent, TextContent, ToolCall, UserMessage
from pi_ai._model import Model
from pi_ai._text import content_text
from pi_ai._transcript import conversation
from pi_ai._transform_messages import transform_messages
from pi_ai.api.local._grammar import CALL_FORMS

_IMAGE_NOTE = "(an image was attached; this model cannot see images)"


def _text_of(content: str | Sequence[TextContent | ImageContent]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(item.text if isinstance(item, TextContent) else _IMAGE_NOTE for item in content)


def _call_text(call: ToolCall) -> str:
    opening, closing = CALL_FORMS[0]
    return f"{opening}{json.dumps({'name': call.name, 'arguments': call.arguments}, ensure_ascii=False)}{closing}"


def tool_specs(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


def tool_instructions(tools: Sequence[Tool]) -> str:
    """The tool section for templates that do not render tools (wording after Qwen2.5's)."""
    listing = "\n".join(json.dumps(spec, ensure_ascii=False) for spec in tool_specs(tools))
    return (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        f"Function signatures, within <tools></tools>:\n<tools>\n{listing}\n</tools>\n\n"
        "To call a function, reply with a JSON object of its name and arguments within "
        '<tool_call></tool_call> tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n'
        "</tool_call>"
    )


def chat_messages(model: Model, context: Context, *, native_tools: bool) -> list[dict[str, Any]]:
    system = context.system_prompt or ""
    if context.tools and not native_tools:
        system = f"{system}\n\n{tool_instructions(context.tools)}".strip()
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in transform_messages(conversation(context), model):
        if isinstance(message, UserMessage):
            messages.append({"role": "user", "content": _text_of(message.content)})
        elif isinstance(message, AssistantMessage):
            messages.append(_assistant(message, native_tools=native_tools))
        elif native_tools:
            messages.append({"role": "tool", "content": _text_of(message.content)})
        else:
            messages.append({"role": "user", "content": f"<tool_response>\n{_text_of(message.content)}\n</tool_response>"})
    return messages


def _assistant(message: AssistantMessage, *, native_tools: bool) -> dict[str, Any]:
    text = content_text(message.content, "")
    calls = [block for block in message.content if isinstance(block, ToolCall)]
    if not native_tools:
        return {"role": "assistant", "content": "\n".join([text, *map(_call_text, calls)]).strip()}
    out: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        out["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in calls
        ]
    return out


def render_prompt(template: str, *, bos: str, eos: str, messages: list[dict[str, Any]], tools: Sequence[Tool]) -> str:
    """The prompt text, ending where the assistant's turn begins.

    Rendered as Hugging Face's ``transformers`` renders chat templates: a sandboxed Jinja
    environment with ``trim_blocks``/``lstrip_blocks``, loop controls, ``tojson`` without ASCII
    escaping, ``raise_exception`` and ``strftime_now``; ``{% generation %}`` tags pass through."""
    return str(
        _environment(template).render(
            messages=messages, tools=tool_specs(tools) if tools else None, bos_token=bos, eos_token=eos,
            add_generation_prompt=True, raise_exception=_raise, strftime_now=_strftime_now,
        )
    )


def _raise(message: str) -> None:
    raise ValueError(message)


def _strftime_now(form: str) -> str:
    return datetime.now().strftime(form)


def _tojson(
    value: Any, ensure_ascii: bool = False, indent: int | None = None, separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


@functools.lru_cache(maxsize=4)
def _environment(template: str) -> Any:
    """The compiled template (jinja2 is loaded on first use: the runtime's setup installs it)."""
    import jinja2
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class PassGeneration(jinja2.ext.Extension):  # type: ignore[misc]
        """``{% generation %}...{% endgeneration %}`` marks training spans; rendering ignores it."""

        tags = {"generation"}  # noqa: RUF012 (jinja's own class attribute)

        def parse(self, parser: Any) -> Any:
            parser.stream.skip(1)
            return parser.parse_statements(("name:endgeneration",), drop_needle=True)

    environment = ImmutableSandboxedEnvironment(
        loader=jinja2.BaseLoader(), trim_blocks=True, lstrip_blocks=True,
        extensions=[PassGeneration, jinja2.ext.loopcontrols],
    )
    environment.filters["tojson"] = _tojson
    return environment.from_string(template)


def template_knows_tools(template: str) -> bool:
    return "tools" in template and "tool_call" in template
