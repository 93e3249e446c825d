// Runs one of Pi 0.85's built-in tools on a prepared directory and prints what it returned.
// Input (stdin, JSON): {tool, cwd, args, abortAfterMs?, ctx?}. Output: {result} or {error}.
// Used only by tools/gen_pi_tool_outputs.py to record Pi's answers as test expectations.
import { readFileSync } from "node:fs";

const home = process.env.PI_ORACLE_HOME ?? `${process.env.HOME}/.cache/pi-oracle-0.85.0`;
const tools = await import(`${home}/node_modules/@earendil-works/pi-coding-agent/dist/core/tools/index.js`);

const input = JSON.parse(readFileSync(0, "utf-8"));
const tool = tools.createTool(input.tool, input.cwd);
let args = input.args;
if (tool.prepareArguments) args = tool.prepareArguments(args);
const controller = new AbortController();
if (input.abortAfterMs !== undefined) setTimeout(() => controller.abort(), input.abortAfterMs);
const updates = [];
try {
	const result = await tool.execute("call_1", args, controller.signal, (u) => updates.push(u), input.ctx);
	finish({ result, updateCount: updates.length });
} catch (error) {
	finish({ error: error instanceof Error ? error.message : String(error) });
}

function finish(answer) {
	// Exit only once the pipe has taken everything: a large answer is written asynchronously.
	process.stdout.write(JSON.stringify(answer), () => process.exit(0));
}
