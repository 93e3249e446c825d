// Pi's side of test_pi16_lifecycle.py: every ctx.ui method at session_start (see ui_calls.py).
// Each call is followed by a notify naming it and what it returned, so the RPC output shows which
// calls sent a request. session_shutdown is recorded to PI_TEST_RECORD; /bye asks for shutdown.
import { appendFileSync } from "node:fs";

export default function (pi: any) {
  const record = (line: string) => appendFileSync(process.env.PI_TEST_RECORD as string, line + "\n");
  pi.on("session_start", (_event: any, ctx: any) => {
    const ui = ctx.ui;
    const calls: [string, () => unknown][] = [
      ["on_terminal_input", () => typeof ui.onTerminalInput(() => undefined)],
      ["set_working_message", () => ui.setWorkingMessage("busy")],
      ["set_working_visible", () => ui.setWorkingVisible(false)],
      ["set_working_indicator", () => ui.setWorkingIndicator({ frames: ["."] })],
      ["set_hidden_thinking_label", () => ui.setHiddenThinkingLabel("hidden")],
      ["set_widget_lines", () => ui.setWidget("w", ["one", "two"], { placement: "belowEditor" })],
      ["set_widget_factory", () => ui.setWidget("f", () => ({ render: () => [], invalidate: () => undefined }))],
      ["set_widget_none", () => ui.setWidget("w", undefined)],
      ["set_footer", () => ui.setFooter(undefined)],
      ["set_header", () => ui.setHeader(undefined)],
      ["set_title", () => ui.setTitle("a title")],
      ["paste_to_editor", () => ui.pasteToEditor("pasted")],
      ["set_editor_text", () => ui.setEditorText("typed")],
      ["get_editor_text", () => ui.getEditorText()],
      ["add_autocomplete_provider", () => ui.addAutocompleteProvider((p: any) => p)],
      ["set_editor_component", () => ui.setEditorComponent(undefined)],
      ["get_editor_component", () => ui.getEditorComponent()],
      ["get_all_themes", () => ui.getAllThemes()],
      ["get_theme", () => ui.getTheme("dark")],
      ["set_theme", () => ui.setTheme("light")],
      ["get_tools_expanded", () => ui.getToolsExpanded()],
      ["set_tools_expanded", () => ui.setToolsExpanded(true)],
      ["set_status", () => ui.setStatus("k", "v")],
    ];
    for (const [name, call] of calls) {
      const result = call();
      ui.notify(JSON.stringify([name, result ?? null]), "info");
    }
    ui.custom(() => undefined).then((r: unknown) => ui.notify(JSON.stringify(["custom", r ?? null]), "info"));
  });
  pi.on("session_shutdown", (event: any) => record(`session_shutdown ${event.reason}`));
  pi.registerCommand("bye", { handler: async (_args: string, ctx: any) => ctx.shutdown() });
}
