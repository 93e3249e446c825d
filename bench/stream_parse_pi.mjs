// Pi 0.85's side of bench/stream_parse.py: stream each case from the given loopback server with
// pi-ai's own stream(), count events, time each run. Input (stdin): {home, runs, warmup, cases:
// [{name, api, provider, baseUrl, runs?, warmup?}]}. Output: {name: {seconds: [...], events}}.
import { pathToFileURL } from "node:url";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const compat = await import(pathToFileURL(`${input.home}/node_modules/@earendil-works/pi-ai/dist/compat.js`).href);

const context = { systemPrompt: "sys", messages: [{ role: "user", content: "go", timestamp: 0 }], tools: [] };

async function once(model) {
	const stream = compat.stream(model, context, { apiKey: "bench-key", maxRetries: 0 });
	let events = 0;
	const started = performance.now();
	for await (const _event of stream) events++;
	const message = await stream.result();
	const seconds = (performance.now() - started) / 1000;
	if (message.stopReason === "error") throw new Error(message.errorMessage);
	return { seconds, events };
}

const out = {};
for (const spec of input.cases) {
	const model = {
		id: "bench-model",
		name: "bench",
		api: spec.api,
		provider: spec.provider,
		baseUrl: spec.baseUrl,
		reasoning: false,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 200000,
		maxTokens: 32000,
	};
	const runs = spec.runs ?? input.runs;
	for (let i = 0; i < (spec.warmup ?? input.warmup); i++) await once(model);
	const seconds = [];
	let events = 0;
	for (let i = 0; i < runs; i++) {
		const result = await once(model);
		seconds.push(result.seconds);
		events = result.events;
	}
	out[spec.name] = { seconds, events };
}
process.stdout.write(JSON.stringify(out));
