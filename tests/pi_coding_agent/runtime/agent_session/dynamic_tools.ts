// Shared by ours and Pi 1.6 in test_tools_added_mid_run.py: Pi 1.6's dynamic tool loading. "lookup"
// is registered inactive; the "loader" tool turns it on while it runs (what Pi 0.85 recorded as the
// result's addedToolNames).
export default function (pi: any) {
  pi.registerTool({
    name: "lookup",
    label: "lookup",
    defaultActive: false,
    description: "Looks a word up",
    parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
    execute: async (_id: string, params: any) => ({ content: [{ type: "text", text: `found ${params.word}` }], details: {} }),
  });
  pi.registerTool({
    name: "loader",
    label: "loader",
    description: "Makes the lookup tool available",
    parameters: { type: "object", properties: {} },
    execute: async () => {
      pi.setActiveTools([...pi.getActiveTools(), "lookup"]);
      return { content: [{ type: "text", text: "lookup is available now" }], details: {} };
    },
  });
}
