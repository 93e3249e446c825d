"""Tool set selection, schemas, path resolution, and the per-file mutation queue."""

from __future__ import annotations

import asyncio
import base64
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pi_agent import AgentTool
from pi_ai import ImageContent, TextContent
from pi_coding_agent.core.tools import (
    ALL_TOOL_NAMES,
    DEFAULT_TOOL_NAMES,
    EditTool,
    ReadTool,
    ToolError,
    UnknownToolError,
    WriteTool,
    create_tools,
    parse_tool_names,
)

# Parameter names, types and required lists exactly as Pi 0.85 sends them (descriptions aside).
PI_SHAPES = {
    "read": ({"path": "string", "offset": "number", "limit": "number"}, ["path"]),
    "bash": ({"command": "string", "timeout": "number"}, ["command"]),
    "edit": ({"path": "string", "edits": "array"}, ["path", "edits"]),
    "write": ({"path": "string", "content": "string"}, ["path", "content"]),
    "grep": (
        {
            "pattern": "string",
            "path": "string",
            "glob": "string",
            "ignoreCase": "boolean",
            "literal": "boolean",
            "context": "number",
            "limit": "number",
        },
        ["pattern"],
    ),
    "find": ({"pattern": "string", "path": "string", "limit": "number"}, ["pattern"]),
    "ls": ({"path": "string", "limit": "number"}, None),
}


def test_default_set_and_selection(tmp_path: Path) -> None:
    assert (
        [t.name for t in create_tools(str(tmp_path))]
        == list(DEFAULT_TOOL_NAMES)
        == ["read", "bash", "edit", "write"]
    )
    tools = create_tools(str(tmp_path), ["ls", "grep", "ls"])
    assert [t.name for t in tools] == ["ls", "grep"]
    assert parse_tool_names(" read, ls ,") == ["read", "ls"]
    with pytest.raises(UnknownToolError, match="Unknown tool name: nope"):
        parse_tool_names("read,nope")
    with pytest.raises(UnknownToolError):
        create_tools(str(tmp_path), ["powershell"])


@pytest.mark.parametrize("name", ALL_TOOL_NAMES)
def test_schemas_match_pis_shape(tmp_path: Path, name: str) -> None:
    (tool,) = create_tools(str(tmp_path), [name])
    assert isinstance(tool, AgentTool) and tool.label == name and tool.description
    props, required = PI_SHAPES[name]
    schema = tool.parameters
    assert schema["type"] == "object"
    assert {key: value["type"] for key, value in schema["properties"].items()} == props
    assert schema.get("required") == required
    assert list(schema) == ["type", "required", "properties"] if required else ["type", "properties"]
    if name == "edit":
        item = schema["properties"]["edits"]["items"]
        assert item["required"] == ["oldText", "newText"]
        assert {k: v["type"] for k, v in item["properties"].items()} == {
            "oldText": "string",
            "newText": "string",
        }
    assert tool.to_tool().parameters is schema


async def test_paths_resolve_against_the_tool_cwd_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my file.txt").write_text("spaced\n")
    monkeypatch.chdir("/")
    result = await ReadTool(str(tmp_path)).execute("c", {"path": "@my\u00a0file.txt"}, None, None)
    assert result.content == [TextContent(text="spaced\n")]
    monkeypatch.setenv("HOME", str(tmp_path))
    result = await ReadTool("/").execute("c", {"path": "~/my file.txt"}, None, None)
    assert result.content == [TextContent(text="spaced\n")]


async def test_read_finds_macos_screenshot_names(tmp_path: Path) -> None:
    (tmp_path / "Screenshot 2024 at 10.00.00\u202fAM.png.txt").write_text("am\n")
    (tmp_path / "Capture d\u2019e\u0301cran.txt").write_text("fr\n")
    reader = ReadTool(str(tmp_path))
    assert (
        await reader.execute("c", {"path": "Screenshot 2024 at 10.00.00 AM.png.txt"}, None, None)
    ).content[0] == TextContent(text="am\n")
    assert (await reader.execute("c", {"path": "Capture d'\u00e9cran.txt"}, None, None)).content[
        0
    ] == TextContent(text="fr\n")


async def test_read_image_without_resizing_and_non_vision_note(tmp_path: Path) -> None:
    out = io.BytesIO()
    Image.new("RGB", (2500, 10), (1, 2, 3)).save(out, format="PNG")
    (tmp_path / "big.png").write_bytes(out.getvalue())
    raw = ReadTool(str(tmp_path), auto_resize_images=False, image_support=lambda: False)
    result = await raw.execute("c", {"path": "big.png"}, None, None)
    assert result.content[0] == TextContent(
        text="Read image file [image/png]\n[Current model does not support images. The image will be omitted from this request.]"
    )
    image = result.content[1]
    assert isinstance(image, ImageContent) and base64.b64decode(image.data) == out.getvalue()
    resized = await ReadTool(str(tmp_path)).execute("c", {"path": "big.png"}, None, None)
    shrunk = resized.content[1]
    assert isinstance(shrunk, ImageContent)
    assert Image.open(io.BytesIO(base64.b64decode(shrunk.data))).size == (2000, 8)


async def test_concurrent_edits_of_one_file_are_serialized(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("".join(f"v{i}=0\n" for i in range(20)))
    editor = EditTool(str(tmp_path))
    calls = [
        editor.execute(
            "c", {"path": "f.txt", "edits": [{"oldText": f"v{i}=0", "newText": f"v{i}=1"}]}, None, None
        )
        for i in range(20)
    ]
    await asyncio.gather(*calls)
    assert path.read_text() == "".join(f"v{i}=1\n" for i in range(20))


async def test_write_then_edit_same_file_in_call_order(tmp_path: Path) -> None:
    writer, editor = WriteTool(str(tmp_path)), EditTool(str(tmp_path))
    results: list[Any] = await asyncio.gather(
        writer.execute("c", {"path": "n/x.txt", "content": "one\n"}, None, None),
        editor.execute("c", {"path": "n/x.txt", "edits": [{"oldText": "one", "newText": "two"}]}, None, None),
    )
    assert len(results) == 2
    assert (tmp_path / "n" / "x.txt").read_text() == "two\n"


async def test_edit_keeps_untouched_lines_byte_for_byte_in_fuzzy_mode(tmp_path: Path) -> None:
    original = "a \u2014 b   \r\nuntouched \u201cquote\u201d  \r\ntarget   \r\n"
    (tmp_path / "f.txt").write_bytes(original.encode())
    await EditTool(str(tmp_path)).execute(
        "c", {"path": "f.txt", "edits": [{"oldText": "target\n", "newText": "done\n"}]}, None, None
    )
    assert (
        tmp_path / "f.txt"
    ).read_bytes().decode() == "a \u2014 b   \r\nuntouched \u201cquote\u201d  \r\ndone\r\n"


async def test_edit_error_leaves_file_untouched(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("same same\n")
    with pytest.raises(ToolError, match="Found 2 occurrences"):
        await EditTool(str(tmp_path)).execute(
            "c", {"path": "f.txt", "edits": [{"oldText": "same", "newText": "x"}]}, None, None
        )
    assert (tmp_path / "f.txt").read_text() == "same same\n"
