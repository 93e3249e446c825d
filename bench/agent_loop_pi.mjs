// Pi 0.85's side of bench/agent_loop.py: the same scenario on pi-agent-core's Agent.
//   node agent_loop_pi.mjs <pi node_modules dir> <scenario.json>
// Answers run requests on stdin with per-run timings (ms). See bench/agent_loop.py for the method.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [modulesDir, scenarioPath] = process.argv.slice(2);
const load = (name) => import(pathToFileURL(`${modulesDir}/@earendil-works/${name}/dist/index.js`).href);
const ai = await load("pi-ai");
const core = await load("pi-agent-core");
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));

const TOOL_PARAMETERS = scenario.toolParameters;

/** The faux provider's events for every scripted response, recorded outside the timed run. */
async function recordFaux(live) {
	const faux = ai.createFauxCore({
		api: "faux",
		provider: "faux",
		models: [{ id: "faux-model", name: "Faux Model" }],
		tokenSize: { min: scenario.chunkTokens, max: scenario.chunkTokens },
	});
	faux.setResponses(structuredClone(scenario.responses));
	if (live) return { faux, recorded: null };
	const recorded = [];
	for (let i = 0; i < scenario.responses.length; i++) {
		const events = [];
		for await (const event of faux.streamSimple(faux.getModel(), { systemPrompt: "", messages: [] }, {})) {
			events.push(event);
		}
		recorded.push(events);
	}
	return { faux, recorded };
}

async function runOnce(live) {
	const { faux, recorded } = await recordFaux(live);
	let providerMs = 0;
	let toolMs = 0;
	let call = 0;
	const streamFn = live
		? (model, context, options) => faux.streamSimple(model, context, options)
		: () => {
				const start = performance.now();
				const stream = ai.createAssistantMessageEventStream();
				for (const event of recorded[call++]) stream.push(event);
				providerMs += performance.now() - start;
				return stream;
			};
	const tool = {
		name: "work",
		label: "Work",
		description: "Do one unit of work.",
		parameters: TOOL_PARAMETERS,
		async execute(toolCallId, params) {
			const start = performance.now();
			const result = { content: [{ type: "text", text: `step ${params.step} part ${params.part} ok` }], details: undefined };
			toolMs += performance.now() - start;
			return result;
		},
	};
	const agent = new core.Agent({
		initialState: {
			systemPrompt: "You are a benchmark.",
			model: faux.getModel(),
			tools: [tool],
			messages: structuredClone(scenario.transcript),
		},
		streamFn,
	});
	let events = 0;
	agent.subscribe(() => {
		events += 1;
	});
	const start = performance.now();
	await agent.prompt("go");
	const totalMs = performance.now() - start;
	return { totalMs, providerMs, toolMs, events, messages: agent.state.messages.length };
}

// Serve runs on request so bench/agent_loop.py can interleave them with its own runs: each
// stdin line "overhead" or "live" performs one run and answers with one JSON line.
import { createInterface } from "node:readline";

process.stdout.write(`${JSON.stringify({ ready: true, node: process.version })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
	const mode = line.trim();
	if (mode === "quit" || mode === "") break;
	const result = await runOnce(mode === "live");
	process.stdout.write(`${JSON.stringify(result)}\n`);
}
