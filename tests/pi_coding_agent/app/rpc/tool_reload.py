"""Our side of test_pi16_tool_reload.py (Pi's: ``tool_reload.ts``): a tool ``probe``,
``/off NAME`` turns a tool off, ``/reload-now`` reloads the session as ``/reload`` does."""


def setup(pi):
    pi.register_tool(
        name="probe",
        label="probe",
        description="A probe tool",
        parameters={"type": "object", "properties": {}},
        execute=lambda tool_call_id, params, signal, on_update, ctx: "probed",
    )

    async def off(args, ctx):
        pi.set_active_tools([name for name in pi.get_active_tools() if name != args.strip()])

    async def reload_now(args, ctx):
        await ctx.reload()

    pi.register_command("off", description="Turn a tool off", handler=off)
    pi.register_command("reload-now", description="Reload", handler=reload_now)
