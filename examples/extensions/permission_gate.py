"""Permission gate: ask before a dangerous bash command runs.

``pi -e examples/extensions/permission_gate.py``. With a user to ask (the interactive UI,
or an RPC client answering ``extension_ui_request``), a command matching one of the
patterns needs a yes; without one (``-p``, ``--mode json``) it is blocked outright.
"""

import re

DANGEROUS = [r"\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\b", r"\bsudo\b", r"\bchmod\s+-R\s+777\b", r">\s*/dev/sd"]


def is_dangerous(command: str) -> bool:
    return any(re.search(pattern, command) for pattern in DANGEROUS)


def setup(pi):
    async def gate(event, ctx):
        if event.tool_name != "bash":
            return None
        command = event.input.get("command", "")
        if not is_dangerous(command):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": f"Blocked dangerous command (no user to confirm): {command}"}
        allowed = await ctx.ui.confirm("Dangerous command", f"Allow `{command}`?")
        if allowed:
            return None
        return {"block": True, "reason": "Blocked by user"}

    pi.on("tool_call", gate)
