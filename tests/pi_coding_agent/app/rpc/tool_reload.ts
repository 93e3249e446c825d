// Pi's side of test_pi16_tool_reload.py (ours: tool_reload.py): a tool "probe", "/off NAME" turns a
// tool off, "/reload-now" reloads the session as /reload does.
export default function (pi: any) {
  pi.registerTool({
    name: "probe",
    label: "probe",
    description: "A probe tool",
    parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "probed" }], details: {} }),
  });
  pi.registerCommand("off", {
    description: "Turn a tool off",
    handler: async (args: string) => pi.setActiveTools(pi.getActiveTools().filter((name: string) => name !== args.trim())),
  });
  pi.registerCommand("reload-now", {
    description: "Reload",
    handler: async (_args: string, ctx: any) => ctx.reload(),
  });
}
