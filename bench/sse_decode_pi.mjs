// Pi 0.85's side of bench/sse_decode.py: feed SSE bodies in fixed-size chunks to pi-ai's own
// stream() through an in-memory fetch (no network), so the time is the SDK request plumbing
// (constant) plus reading and decoding the body chunk by chunk.
//
// - "anthropic": Pi's own SSE decoder (iterateSseMessages in anthropic-messages); the events
//   are named "bench", which Pi skips without parsing their data, so only decoding is timed.
// - "openai": the OpenAI SDK's decoder (Pi's openai-completions adapter); the SDK also runs
//   JSON.parse on each event's data.
//
// Input (stdin): {home, budgetSeconds, cases: [{name, format, eventBytes, events, chunkSize, group,
// runs}]}, each group's cases from the largest chunk size down. Output: {name: {seconds: [...],
// bytes, sha256, chunksRead} | {skipped: true}}. A case whose run takes more than budgetSeconds
// is not repeated, and the later (smaller-chunk, slower) cases of its group are skipped.
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";

const input = JSON.parse(await new Promise((resolve) => {
	const parts = [];
	process.stdin.on("data", (part) => parts.push(part));
	process.stdin.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
}));
const compat = await import(pathToFileURL(`${input.home}/node_modules/@earendil-works/pi-ai/dist/compat.js`).href);

// Must match bench/sse_decode.py's payload(): ASCII with a 2-byte and a 4-byte character
// (45 bytes), repeated to about the event size.
const PATTERN = "abcdefghijklmnopqrstuvwxyz0123456789 é😀 ";

function payload(size) {
	return PATTERN.repeat(Math.max(1, Math.floor(size / Buffer.byteLength(PATTERN, "utf8"))));
}

function body(format, eventBytes, events) {
	const data = payload(eventBytes);
	const one = format === "anthropic" ? `event: bench\ndata: ${data}\n\n` : `data: {"p":"${data}"}\n\n`;
	return Buffer.from(one.repeat(events), "utf8");
}

function model(format) {
	return {
		id: "bench-model",
		name: "bench",
		api: format === "anthropic" ? "anthropic-messages" : "openai-completions",
		provider: format === "anthropic" ? "anthropic" : "openai",
		baseUrl: format === "anthropic" ? "http://127.0.0.1:9" : "http://127.0.0.1:9/v1",
		reasoning: false,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 200000,
		maxTokens: 32000,
	};
}

const context = { systemPrompt: "sys", messages: [{ role: "user", content: "go", timestamp: 0 }], tools: [] };

async function once(format, bytes, chunkSize) {
	let offset = 0;
	let chunksRead = 0;
	const fetch = async () => {
		const stream = new ReadableStream(
			{
				pull(controller) {
					if (offset >= bytes.length) {
						controller.close();
						return;
					}
					controller.enqueue(bytes.subarray(offset, offset + chunkSize));
					offset += chunkSize;
					chunksRead++;
				},
			},
			{ highWaterMark: 0 },
		);
		return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
	};
	const started = performance.now();
	const result = compat.stream(model(format), context, { apiKey: "bench-key", maxRetries: 0, fetch });
	for await (const _event of result) {
		// no events: the bench events carry nothing Pi turns into message events
	}
	await result.result();
	const seconds = (performance.now() - started) / 1000;
	if (offset < bytes.length) throw new Error(`body not read to the end (${offset} of ${bytes.length})`);
	return { seconds, chunksRead };
}

// Warm up both adapters (module loading, JIT) before anything is timed.
for (const format of ["anthropic", "openai"]) {
	for (let i = 0; i < 3; i++) await once(format, body(format, 1024, 64), 256);
}

const out = {};
const overBudget = new Set();
for (const spec of input.cases) {
	if (overBudget.has(spec.group)) {
		out[spec.name] = { skipped: true };
		continue;
	}
	const bytes = body(spec.format, spec.eventBytes, spec.events);
	const seconds = [];
	let chunksRead = 0;
	for (let i = 0; i < spec.runs; i++) {
		const run = await once(spec.format, bytes, spec.chunkSize);
		seconds.push(run.seconds);
		chunksRead = run.chunksRead;
		if (run.seconds > input.budgetSeconds) {
			overBudget.add(spec.group);
			break;
		}
	}
	out[spec.name] = {
		seconds,
		bytes: bytes.length,
		sha256: createHash("sha256").update(bytes).digest("hex"),
		chunksRead,
	};
}
process.stdout.write(JSON.stringify(out));
