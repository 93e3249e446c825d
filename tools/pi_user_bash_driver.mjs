// Runs Pi 0.85's user-bash executor (what `!cmd` uses) for a list of commands.
// Input (stdin, JSON): {cwd, cases: [{command, abortAfterMs?}]}. Output: [BashResult].
// Used only by tools/gen_pi_tool_outputs.py to record expectations.
import { readFileSync } from "node:fs";

const home = process.env.PI_ORACLE_HOME ?? `${process.env.HOME}/.cache/pi-oracle-0.85.0`;
const core = `${home}/node_modules/@earendil-works/pi-coding-agent/dist/core`;
const { executeBashWithOperations } = await import(`${core}/bash-executor.js`);
const { createLocalBashOperations } = await import(`${core}/tools/bash.js`);

const input = JSON.parse(readFileSync(0, "utf-8"));
const results = [];
for (const item of input.cases) {
	const controller = new AbortController();
	if (item.abortAfterMs !== undefined) setTimeout(() => controller.abort(), item.abortAfterMs);
	try {
		const result = await executeBashWithOperations(item.command, input.cwd, createLocalBashOperations(), {
			signal: controller.signal,
		});
		results.push({ result });
	} catch (error) {
		results.push({ error: error instanceof Error ? error.message : String(error) });
	}
}
process.stdout.write(JSON.stringify(results), () => process.exit(0));
