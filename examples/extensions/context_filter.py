"""A context filter: what the model sees is trimmed, the session keeps everything.

Before each model call, tool results older than the last ``KEEP_RESULTS`` are replaced by
a one-line stub, and user messages starting with ``#private`` are left out.
"""

from pi_ai import TextContent, ToolResultMessage

KEEP_RESULTS = 1
STUB = "[older tool output omitted by context_filter]"


def setup(pi):
    def trim(event, ctx):
        messages = [m for m in event.messages if not (m.role == "user" and _text(m).startswith("#private"))]
        results = [i for i, m in enumerate(messages) if isinstance(m, ToolResultMessage)]
        for index in results[:-KEEP_RESULTS] if KEEP_RESULTS else results:
            messages[index].content = [TextContent(text=STUB)]
        return {"messages": messages}

    pi.on("context", trim)


def _text(message):
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(getattr(block, "text", "") for block in content)
