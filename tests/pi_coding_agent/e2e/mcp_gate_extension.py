"""An extension for the MCP pipeline test: records the MCP tools ``get_all_tools`` reports (with
their annotations), blocks calls of tools that are not read-only, and records the results it sees."""

import json
import os


def _write(record):
    with open(os.environ["PI_TEST_RECORD"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def setup(pi):
    def gate(event, ctx):
        if not event.tool_name.startswith("mcp__"):
            return None
        tools = {
            tool["name"]: tool.get("annotations")
            for tool in pi.get_all_tools()
            if tool["name"].startswith("mcp__")
        }
        _write({"call": event.tool_name, "annotations": tools.get(event.tool_name)})
        if not (tools.get(event.tool_name) or {}).get("readOnlyHint"):
            return {"block": True, "reason": "only read-only MCP tools may run"}
        return None

    def seen(event, ctx):
        if event.tool_name.startswith("mcp__"):
            _write({"result": event.tool_name, "is_error": event.is_error})

    pi.on("tool_call", gate)
    pi.on("tool_result", seen)
