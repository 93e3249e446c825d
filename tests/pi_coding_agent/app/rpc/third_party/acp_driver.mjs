// An editor's side of the Agent Client Protocol, driving the pi-acp bridge (which runs
// `pi --mode rpc` from PATH) through the ACP SDK's ClientSideConnection, as Zed does.
//
//   node acp_driver.mjs PI_ACP_INDEX_JS ACP_SDK_JS PROMPTS_JSON
//
// Prints {initialize, session, turns: [{stopReason, text, thoughts, tools}], reopened} as JSON: per
// prompt, the agent's message text and thoughts as the editor assembled them from the
// bridge's session/update notifications, and each tool call's title and final status. Then the
// session is named (`/name`) and the editor starts the bridge again, lists the sessions and
// loads that one: `reopened` holds the listed titles and the history the bridge replays.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [bridge, sdkPath, promptsJson] = process.argv.slice(2);
const acp = await import(pathToFileURL(sdkPath).href);
const prompts = JSON.parse(promptsJson);

let turn = null;
let replay = null;
class Editor {
  async sessionUpdate({ update }) {
    if (replay !== null) {
      const { sessionUpdate: kind, content, title, status } = update;
      if (kind.endsWith("_chunk") || kind === "tool_call") replay.push({ kind, text: content?.text, title, status });
      return;
    }
    if (turn === null) return; // startup notices, before the first prompt
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") turn.text += update.content.text;
    else if (update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text") turn.thoughts += update.content.text;
    else if (update.sessionUpdate === "tool_call") turn.tools[update.toolCallId] = { title: update.title, status: update.status };
    else if (update.sessionUpdate === "tool_call_update" && turn.tools[update.toolCallId]) {
      if (update.status) turn.tools[update.toolCallId].status = update.status;
    }
  }
  async requestPermission(params) {
    return { outcome: { outcome: "selected", optionId: params.options[0].optionId } };
  }
  async readTextFile() { throw new Error("not offered"); }
  async writeTextFile() { throw new Error("not offered"); }
}

function startBridge() {
  const agent = spawn(process.execPath, [bridge], { stdio: ["pipe", "pipe", "inherit"], env: process.env });
  const connection = new acp.ClientSideConnection(
    () => new Editor(),
    acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout)),
  );
  return { agent, connection };
}
let { agent, connection } = startBridge();
const result = { turns: [] };
try {
  const init = await connection.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  result.initialize = { protocolVersion: init.protocolVersion, agent: init.agentInfo?.name };
  const session = await connection.newSession({ cwd: process.cwd(), mcpServers: [] });
  result.session = { hasId: typeof session.sessionId === "string", model: session.models?.currentModelId ?? null };
  for (const text of prompts) {
    turn = { text: "", thoughts: "", tools: {} };
    const answer = await connection.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text }] });
    result.turns.push({ stopReason: answer.stopReason, ...turn, tools: Object.values(turn.tools) });
  }
  await connection.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "/name demo" }] });
  agent.stdin.end();
  agent.kill("SIGTERM");
  ({ agent, connection } = startBridge());
  await connection.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const listed = await connection.listSessions({ cwd: process.cwd() });
  replay = [];
  await connection.loadSession({ sessionId: session.sessionId, cwd: process.cwd(), mcpServers: [] });
  result.reopened = {
    listed: listed.sessions.map((s) => ({ title: s.title, same: s.sessionId === session.sessionId })),
    replay,
  };
} finally {
  agent.stdin.end();
  agent.kill("SIGTERM");
}
process.stdout.write(JSON.stringify(result));
process.exit(0);
