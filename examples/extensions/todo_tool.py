"""A custom tool with its own renderer: a todo list the model keeps.

The list lives in each result's ``details`` (so a branch or a resumed session has the
list of that point); ``render_call`` / ``render_result`` give the lines the interactive
UI shows instead of the raw text.
"""

PARAMETERS = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["list", "add", "done"]},
        "text": {"type": "string", "description": "The item (add) or its number (done)"},
    },
    "required": ["action"],
}


def setup(pi):
    items = []

    def restore(event, ctx):
        items.clear()
        for entry in ctx.session_manager.get_branch():
            message = getattr(entry, "message", None)
            if getattr(message, "role", None) == "toolResult" and message.tool_name == "todo":
                details = message.details if isinstance(message.details, dict) else {}
                items[:] = details.get("items", [])

    def execute(tool_call_id, params, signal, on_update, ctx):
        action = params["action"]
        if action == "add":
            items.append({"text": params.get("text", ""), "done": False})
        elif action == "done":
            index = int(params.get("text", "0")) - 1
            if not 0 <= index < len(items):
                raise ValueError(f"no item {index + 1}")
            items[index]["done"] = True
        listing = "\n".join(f"{i + 1}. [{'x' if it['done'] else ' '}] {it['text']}" for i, it in enumerate(items))
        return {"content": listing or "(empty list)", "details": {"items": [dict(it) for it in items]}}

    def render_call(args, context):
        return [f"todo {args.get('action', '')} {args.get('text', '')}".rstrip()]

    def render_result(result, options, context):
        details = result.details if isinstance(result.details, dict) else {}
        todo = details.get("items", [])
        done = sum(1 for item in todo if item["done"])
        lines = [f"✓ {done}/{len(todo)} done"]
        if options.get("expanded"):
            lines += [("  ✓ " if item["done"] else "  ○ ") + item["text"] for item in todo]
        return lines

    pi.on("session_start", restore)
    pi.register_tool(
        name="todo",
        label="Todo",
        description="Keep a todo list: list, add an item, or mark item N done",
        parameters=PARAMETERS,
        execute=execute,
        prompt_snippet="Keep a todo list for multi-step work",
        prompt_guidelines=["Use todo to track multi-step tasks; mark items done as you finish them."],
        render_call=render_call,
        render_result=render_result,
    )
