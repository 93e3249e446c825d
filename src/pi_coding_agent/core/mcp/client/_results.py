"""What the model gets back from an MCP tool call, as Pi 1.6 builds it.

Text and images pass through; audio, resource links and binary resources become one-line
placeholders (binary resources are saved to a file whose path the line names); a result with no
content blocks but ``structuredContent`` becomes that JSON. An ``isError`` result with no text gets
a line saying the tool failed. Text over 20 KB keeps its first and last 10 KB around a
``…N chars truncated…`` marker, with the full text saved to a file named in the result.
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

from pi_agent import AgentToolResult, ToolFailure
from pi_ai import ImageContent, TextContent

MCP_OUTPUT_MAX_BYTES = 20 * 1024
READ_MCP_RESOURCE_TOOL = "read_mcp_resource"
Content = TextContent | ImageContent


def _save(data: bytes) -> str:
    from pi_coding_agent.core.tools import create_output_file

    path, descriptor = create_output_file("pi-mcp", keep=True)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
    return path


def _size(count: int) -> str:
    from pi_coding_agent.core.tools import format_size

    return str(format_size(count))


def _is_text_mime(mime: str | None) -> bool:
    if not mime:
        return False
    kind = mime.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind == "application/json" or kind.endswith(("+json", "+xml"))


def _resource_link(server: str, block: dict[str, Any], readable: bool) -> str:
    size = block.get("size")
    details = [part for part in (block.get("mimeType"), None if size is None else _size(int(size))) if part]
    shown = f" ({', '.join(details)})" if details else ""
    description = f": {block['description']}" if block.get("description") else ""
    read = f'. Read it with {READ_MCP_RESOURCE_TOOL} (server "{server}")' if readable else ""
    title = block.get("title") or block.get("name")
    return f'[Resource {block.get("uri")} "{title}"{shown}{description}{read}]'


def _block(server: str, block: dict[str, Any], readable: bool) -> Content:
    kind = block.get("type")
    if kind == "text":
        return TextContent(text=str(block.get("text", "")))
    if kind == "image":
        return ImageContent(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", "")))
    if kind == "audio":
        return TextContent(text=f"[audio {block.get('mimeType')} omitted]")
    if kind == "resource_link":
        return TextContent(text=_resource_link(server, block, readable))
    if kind == "resource":
        return resource_content(block.get("resource") or {})
    return TextContent(text=f"[unsupported MCP content {kind}]")


def resource_content(resource: dict[str, Any]) -> Content:
    """One resource's contents (an embedded block's, or what ``resources/read`` gave) for the model."""
    if "text" in resource:
        return TextContent(text=str(resource["text"]))
    mime = resource.get("mimeType")
    if isinstance(mime, str) and mime.startswith("image/"):
        return ImageContent(data=str(resource.get("blob", "")), mime_type=mime)
    uri = resource.get("uri")
    data = base64.b64decode(str(resource.get("blob", "")), validate=False)
    if _is_text_mime(mime):
        return TextContent(text=data.decode("utf-8", "replace"))
    kind = f"{mime or 'unknown type'}, {_size(len(data))}"
    try:
        return TextContent(text=f"[Binary resource {uri} ({kind}) saved to {_save(data)}]")
    except OSError as error:
        return TextContent(text=f"[Binary resource {uri} ({kind}) could not be saved: {error}]")


def _text_of(content: list[Content]) -> str:
    return "\n".join(block.text for block in content if isinstance(block, TextContent))


def _truncate_middle(text: str) -> tuple[str, int, int] | None:
    """``(cut text, total bytes, total lines)``, or ``None`` when it fits."""
    data = text.encode("utf-8")
    if len(data) <= MCP_OUTPUT_MAX_BYTES:
        return None

    def boundary(index: int) -> bool:
        return index >= len(data) or (data[index] & 0xC0) != 0x80

    head_end = MCP_OUTPUT_MAX_BYTES // 2
    while head_end > 0 and not boundary(head_end):
        head_end -= 1
    tail_start = len(data) - (MCP_OUTPUT_MAX_BYTES - MCP_OUTPUT_MAX_BYTES // 2)
    while tail_start < len(data) and not boundary(tail_start):
        tail_start += 1
    removed = data[head_end:tail_start].decode("utf-8")
    # JavaScript counts characters as code points here (Array.from).
    lines = text.count("\n") + 1 - (1 if text.endswith("\n") else 0)
    cut = f"{data[:head_end].decode('utf-8')}…{len(removed)} chars truncated…{data[tail_start:].decode('utf-8')}"
    return cut, len(data), lines


def limit_content(content: list[Content]) -> tuple[list[Content], str | None]:
    combined = _text_of(content)
    truncation = _truncate_middle(combined)
    if truncation is None:
        return content, None
    cut, total_bytes, total_lines = truncation
    path: str | None = None
    try:
        path = _save(combined.encode("utf-8"))
        where = f"\n\n[Full output: {path} (read it with offset/limit)]"
    except OSError as error:
        where = f"\n\n[Could not save the full output: {error}]"
    tokens = -(-total_bytes // 4)
    text = f"Warning: truncated output (original token count: {tokens})\nTotal output lines: {total_lines}\n\n{cut}{where}"
    images: list[Content] = [block for block in content if isinstance(block, ImageContent)]
    return [TextContent(text=text), *images], path


def convert_result(
    server: str, tool: str, result: dict[str, Any], *, readable_resources: bool = False
) -> AgentToolResult[Any]:
    """The tool result for a ``CallToolResult`` (as its wire JSON): ``details`` names the server,
    the tool and the full-output file; ``structured_content`` is the whole result without
    ``_meta``, what codemode scripts get. An ``isError`` result raises ``ToolFailure`` carrying
    the same (an error result for the model; scripts still resolve to the result)."""
    blocks = result.get("content") or []
    if blocks:
        content = [_block(server, block, readable_resources) for block in blocks]
    elif result.get("structuredContent") is not None:
        content = [TextContent(text=json.dumps(result["structuredContent"], indent=2, ensure_ascii=False))]
    else:
        content = []
    failed = result.get("isError") is True
    if failed and _text_of(content) == "":
        content.append(TextContent(text=f"MCP tool {server}/{tool} returned an error"))
    content, full_path = limit_content(content)
    details: dict[str, Any] = {"server": server, "tool": tool}
    if full_path:
        details["fullOutputPath"] = full_path
    script_result = {key: value for key, value in result.items() if key != "_meta"}
    converted = AgentToolResult(content=content, details=details, structured_content=script_result)
    if failed:
        # An error for the model, with the server's content; scripts still get the whole result.
        raise ToolFailure(
            _text_of(content), content=content, details=details, structured_content=script_result
        )
    return converted
