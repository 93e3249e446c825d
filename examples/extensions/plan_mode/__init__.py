"""Plan mode: explore and plan, change nothing.

``pi -e examples/extensions/plan_mode --plan`` starts in plan mode; ``/plan`` toggles it.
In plan mode only the read-only tools are active, a call to any other tool is blocked
(another extension's tool, say), and the system prompt says so. The state is stored in
the session (``plan-mode`` entries), so a resumed session comes back in the same mode.
"""

from .state import PLAN_PROMPT, READ_ONLY_TOOLS, PlanState


def setup(pi):
    state = PlanState()
    pi.register_flag("plan", type="boolean", description="Start in plan mode (read-only tools)", default=False)

    def apply(ctx):
        if state.enabled:
            state.saved_tools = state.saved_tools or pi.get_active_tools()
            pi.set_active_tools([t for t in state.saved_tools if t in READ_ONLY_TOOLS])
            ctx.ui.set_status("plan-mode", "plan mode")
        else:
            if state.saved_tools:
                pi.set_active_tools(state.saved_tools)
            state.saved_tools = []
            ctx.ui.set_status("plan-mode", None)

    def on_start(event, ctx):
        stored = state.restore(ctx.session_manager.get_branch())
        flag = bool(pi.get_flag("plan"))
        state.enabled = flag or bool(stored)
        changed = state.enabled != bool(stored)
        apply(ctx)
        if changed:
            pi.append_entry("plan-mode", state.entry())

    async def toggle(args, ctx):
        state.enabled = not state.enabled
        apply(ctx)
        pi.append_entry("plan-mode", state.entry())
        ctx.ui.notify("Plan mode on" if state.enabled else "Plan mode off", "info")

    def guard(event, ctx):
        if state.enabled and event.tool_name not in READ_ONLY_TOOLS:
            return {"block": True, "reason": f"Plan mode: {event.tool_name} is not allowed; only read-only tools are"}
        return None

    def prompt(event, ctx):
        if state.enabled:
            return {"system_prompt": event.system_prompt + "\n\n" + PLAN_PROMPT}
        return None

    pi.on("session_start", on_start)
    pi.on("tool_call", guard)
    pi.on("before_agent_start", prompt)
    pi.register_command("plan", toggle, description="Toggle plan mode (read-only exploration)")
