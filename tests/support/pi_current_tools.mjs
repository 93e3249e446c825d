// Pi 1.6's startup tool selection, through its library: for each case, createAgentSession with the
// settings files of `agentDir` and `cwd/.pi` and the `tools` / `excludeTools` / `noTools` options,
// then the session's active tool names. Run by tests/support/oracle.py's run_current_library.
//
// Input (stdin): [{cwd, agentDir, tools?, excludeTools?, noTools?}]
// Output: [{tools: [...]} | {error: "message"}], in input order.
import { join } from "node:path";

const { load } = await import(join(process.env.PI_CURRENT_HOME, "oracle-loader.mjs"));
const pi = await load("@earendil-works/pi-coding-agent");

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const answers = [];
for (const { cwd, agentDir, tools, excludeTools, noTools } of cases) {
  try {
    const { session } = await pi.createAgentSession({
      cwd,
      agentDir,
      settingsManager: pi.SettingsManager.create(cwd, agentDir),
      sessionManager: pi.SessionManager.inMemory(cwd),
      tools,
      excludeTools,
      noTools,
    });
    answers.push({ tools: session.getActiveToolNames() });
    session.dispose();
  } catch (error) {
    answers.push({ error: error instanceof Error ? error.message : String(error) });
  }
}
process.stdout.write(JSON.stringify(answers));
process.exit(0);
