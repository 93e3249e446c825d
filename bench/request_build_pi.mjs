// Pi's side (0.85 or 1.6, whichever install is given) of bench/request_build.py: per-call request building for each API.
//   node request_build_pi.mjs <pi node_modules dir> <scenario.json>
// Reads commands on stdin, one JSON object per line, answers one JSON line each:
//   {"cmd": "body", "api": A}            -> {"body": the request body text of one call}
//   {"cmd": "time", "api": A, "n": N}    -> {"ms": [N per-call times], "transformMs": [N times of step 1]}
//   {"cmd": "quit"}
// One call = the coding agent's transformContext (the extension runner's emitContext, as Pi's
// AgentSession installs it even without extensions) + convertToLlm + streamSimple up to the
// onPayload hook + JSON.stringify of the payload (what the SDK sends as the body).
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [modulesDir, scenarioPath] = process.argv.slice(2);
// stdout carries the answers: notices the SDKs print (Vertex's key notice) go to stderr.
for (const name of ["log", "info", "warn", "debug"]) console[name] = console.error;
const load = (path) => import(pathToFileURL(`${modulesDir}/@earendil-works/${path}`).href);
const compat = await load("pi-ai/dist/compat.js");
const agentPkg = await load("pi-coding-agent/dist/index.js");
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));

// The AWS SDK sends Bedrock's image bytes as base64 in the JSON body: JSON.stringify does the same.
Uint8Array.prototype.toJSON = function toJSON() {
	return Buffer.from(this).toString("base64");
};
for (const [name, value] of Object.entries(scenario.env ?? {})) process.env[name] = value;

const runner = new agentPkg.ExtensionRunner([], agentPkg.createExtensionRuntime(), "/home/dev/project", null, null);
const cases = new Map();
for (const [api, spec] of Object.entries(scenario.apis)) {
	// The model as given (both sides build with the same definition), else from this Pi's catalog.
	const model = { ...(spec.modelData ?? compat.getModel(spec.provider, spec.model)), ...(spec.overrides ?? {}) };
	if (!model.id) throw new Error(`unknown model ${spec.provider}/${spec.model}`);
	cases.set(api, { model, history: spec.transcript, options: spec.options });
}

class Stop extends Error {}

/** One request build; resolves to [ms, body, ms spent in transformContext]. */
async function buildOnce(spec) {
	const messages = [...spec.history, { ...scenario.nextTurn }];
	let done;
	const finished = new Promise((resolve) => {
		done = resolve;
	});
	const start = performance.now();
	const transformed = await runner.emitContext(messages);
	const transformMs = performance.now() - start;
	const llmMessages = agentPkg.convertToLlm(transformed);
	const context = { systemPrompt: scenario.systemPrompt, messages: llmMessages, tools: scenario.tools };
	const stream = compat.streamSimple(spec.model, context, {
		...spec.options,
		onPayload: (payload) => {
			const body = JSON.stringify(payload);
			done([performance.now() - start, body, transformMs]);
			throw new Stop("captured");
		},
	});
	const result = await Promise.race([finished, stream.result().then((final) => [null, final])]);
	if (result[0] === null) throw new Error(`no payload: ${result[1].errorMessage}`);
	await stream.result();
	return result;
}

const lines = createInterface({ input: process.stdin });
const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
write({ node: process.version });
for await (const line of lines) {
	const command = JSON.parse(line);
	if (command.cmd === "quit") break;
	const spec = cases.get(command.api);
	if (command.cmd === "body") {
		write({ body: (await buildOnce(spec))[1] });
	} else {
		const ms = [];
		const transformMs = [];
		for (let i = 0; i < command.n; i++) {
			const [total, , transform] = await buildOnce(spec);
			ms.push(total);
			transformMs.push(transform);
		}
		write({ ms, transformMs });
	}
}
process.exit(0);
