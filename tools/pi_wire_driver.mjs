// Runs Pi 0.85's stream()/streamSimple() for wire APIs whose SDK the shared oracle cannot
// redirect (the AWS SDK speaks node:http, not fetch): the model's baseUrl points straight at
// a server this script starts on 127.0.0.1, and every request it receives is reported.
// Used only by tools/gen_wire_cases.py to record expectations.
//
// Input (stdin, JSON):
//   model: a partial Model (baseUrl is replaced by the loopback URL + model.basePath)
//          or {ref: "provider/id", ...overrides};
//   context, options (apiKey not defaulted), fn ("streamSimple" | "stream" | "generateImages":
//   then model is {imageRef: "provider/id", ...overrides} and the output has `result`;
//   "imagesModels": the same through `builtinImagesModels({credentials})`, which resolves the
//   key itself, from `credentials` ({provider: credential}, an in-memory store) or the
//   environment; the output adds `credentialsAfter`);
//   env: variables set before Pi is loaded (nothing else from the caller's environment
//        reaches Pi: AWS_*, GOOGLE_*, HOME are cleared first);
//   files: {name: text} written into a fresh HOME-like folder, "$DIR" in env values is it;
//   now: ISO time the clock is frozen at (AWS SigV4 signs the time);
//   replies: [{status, headers, body | bodyBase64, chunkSize?, stall?}] served in order (last
//        repeats); `stall`: the body is written but never ended (the connection stays open);
//   abortAtDelta: abort the call once this many text deltas have arrived;
//   keepBaseUrl: the model keeps its real baseUrl and every fetch() and https.request (the
//        Google auth library's node-fetch) is sent to the loopback server instead, the real URL
//        reported as the request's `url`.
// Output: {port, requests: [{method, path, url?, headers, bodyText}], payloads, events, final};
//   numeric `timestamp` and `timestampMs` fields are 0, error `stack` texts "<stack>".
import http from "node:http";
import https from "node:https";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// The oracle folder: $PI_ORACLE_DIR (as the tests read it), else ../shared/oracle beside the repository.
const shared = process.env.PI_ORACLE_DIR
  ? pathToFileURL(join(process.env.PI_ORACLE_DIR, "lib", "common.mjs"))
  : new URL("../../shared/oracle/lib/common.mjs", import.meta.url);
const { installNetworkGuard, clone, zeroTimestamps } = await import(shared.href);
installNetworkGuard();

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));

for (const name of Object.keys(process.env)) {
	if (/^(AWS_|GOOGLE_|GCLOUD_|CLOUDSDK_|MISTRAL_|CLOUDFLARE_|OPENROUTER_|HTTPS?_PROXY|NO_PROXY)/i.test(name)) {
		delete process.env[name];
	}
}
const dir = mkdtempSync(join(tmpdir(), "pi-wire-"));
process.env.HOME = dir;
process.env.AWS_CONFIG_FILE = join(dir, "aws-config-missing");
process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, "aws-credentials-missing");
process.env.AWS_EC2_METADATA_DISABLED = "true";
for (const [name, text] of Object.entries(input.files ?? {})) writeFileSync(join(dir, name), text);
for (const [name, value] of Object.entries(input.env ?? {})) process.env[name] = String(value).replaceAll("$DIR", dir);

if (input.now) {
	const frozen = Date.parse(input.now);
	const RealDate = Date;
	class FrozenDate extends RealDate {
		constructor(...args) {
			super(...(args.length ? args : [frozen]));
		}
		static now() {
			return frozen;
		}
	}
	globalThis.Date = FrozenDate;
}

const requests = [];
const replies = input.replies ?? [{ status: 400, headers: {}, body: "" }];
const server = http.createServer((req, res) => {
	const body = [];
	req.on("data", (c) => body.push(c));
	req.on("end", () => {
		const headers = { ...req.headers };
		const url = headers["x-pi-wire-original-url"];
		delete headers["x-pi-wire-original-url"];
		requests.push({ method: req.method, path: req.url, ...(url ? { url } : {}), headers, bodyText: Buffer.concat(body).toString("utf8") });
		const reply = replies[Math.min(requests.length - 1, replies.length - 1)];
		const bytes = reply.bodyBase64 !== undefined ? Buffer.from(reply.bodyBase64, "base64") : Buffer.from(reply.body ?? "", "utf8");
		res.writeHead(reply.status ?? 200, reply.headers ?? {});
		if (reply.stall) {
			res.write(bytes);
		} else if (reply.chunkSize > 0) {
			for (let i = 0; i < bytes.length; i += reply.chunkSize) res.write(bytes.subarray(i, i + reply.chunkSize));
			res.end();
		} else {
			res.end(bytes);
		}
	});
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();

if (input.keepBaseUrl) {
	const base = `http://127.0.0.1:${port}`;
	const realFetch = globalThis.fetch;
	globalThis.fetch = async (resource, init) => {
		const request = new Request(resource, init);
		const original = new URL(request.url);
		const headers = new Headers(request.headers);
		headers.set("x-pi-wire-original-url", request.url);
		const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
		return realFetch(`${base}${original.pathname}${original.search}`, { method: request.method, headers, body, signal: request.signal });
	};
	https.request = (url, options, callback) => {
		const target = new URL(typeof url === "string" || url instanceof URL ? url : `https://${url.hostname}${url.path}`);
		const opts = { ...(typeof options === "object" ? options : {}) };
		delete opts.agent;
		opts.headers = { ...(opts.headers ?? {}), "x-pi-wire-original-url": target.href };
		return http.request(`${base}${target.pathname}${target.search}`, opts, typeof options === "function" ? options : callback);
	};
}

const home = process.env.PI_ORACLE_HOME ?? `${process.env.PI_DRIVER_HOME ?? ""}`;
const compat = await import(`${home}/node_modules/@earendil-works/pi-ai/dist/compat.js`);
let model;
const spec = input.model;
if (spec.imageRef) {
	const slash = spec.imageRef.indexOf("/");
	const { imageRef: _ref, ...overrides } = spec;
	model = { ...clone(compat.getImageModel(spec.imageRef.slice(0, slash), spec.imageRef.slice(slash + 1))), ...overrides };
} else if (spec.ref) {
	const slash = spec.ref.indexOf("/");
	const { ref: _ref, basePath: _bp, ...overrides } = spec;
	model = { ...clone(compat.getModel(spec.ref.slice(0, slash), spec.ref.slice(slash + 1))), ...overrides };
} else {
	model = {
		name: spec.id,
		reasoning: false,
		input: ["text", "image"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 200000,
		maxTokens: 32000,
		...spec,
	};
	delete model.basePath;
}
if (!input.keepBaseUrl) model.baseUrl = `http://127.0.0.1:${port}${spec.basePath ?? ""}`;
const context = { ...(input.context ?? {}) };
context.messages = (context.messages ?? []).map((m) => (m.timestamp === undefined ? { ...m, timestamp: 0 } : m));
const payloads = [];
const controller = new AbortController();
const options = {
	maxRetries: 0,
	...(input.abortAtDelta ? { signal: controller.signal } : {}),
	...(input.options ?? {}),
	onPayload: (payload) => {
		payloads.push(clone(payload));
		return undefined;
	},
};
if (input.fn === "imagesModels") {
	const { builtinImagesModels } = await import(`${home}/node_modules/@earendil-works/pi-ai/dist/providers/all.js`);
	const credentials = new compat.InMemoryCredentialStore();
	for (const [id, credential] of Object.entries(input.credentials ?? {})) await credentials.modify(id, async () => credential);
	const result = await builtinImagesModels({ credentials }).generateImages(model, input.context, options);
	const credentialsAfter = {};
	for (const id of Object.keys(input.credentials ?? {})) credentialsAfter[id] = (await credentials.read(id)) ?? null;
	server.closeAllConnections?.();
	server.close();
	const images = { port, requests, payloads, result: zeroTimestamps(clone(result)), credentialsAfter };
	process.stdout.write(JSON.stringify(images), () => process.exit(0));
	await new Promise(() => {});
}
if (input.fn === "generateImages") {
	const result = await compat.generateImages(model, input.context, options);
	server.closeAllConnections?.();
	server.close();
	const images = { port, requests, payloads, result: zeroTimestamps(clone(result)) };
	process.stdout.write(JSON.stringify(images), () => process.exit(0));
	await new Promise(() => {});
}
const fn = compat[input.fn ?? "streamSimple"];
const events = [];
const stream = fn(model, context, options);
let deltas = 0;
for await (const event of stream) {
	const { partial: _partial, ...rest } = event;
	events.push(clone(rest));
	if (event.type === "text_delta" && ++deltas === input.abortAtDelta) controller.abort();
}
const final = clone(await stream.result());
server.closeAllConnections?.();
server.close();
// Error stacks name this machine's paths and diagnostics carry the clock: neither is Pi's behaviour.
const stable = (value) =>
	JSON.parse(JSON.stringify(zeroTimestamps(value), (key, v) => (key === "stack" && typeof v === "string" ? "<stack>" : key === "timestampMs" && typeof v === "number" ? 0 : v)));
const out = { port, requests, payloads, events: stable(events), final: stable(final) };
process.stdout.write(JSON.stringify(out), () => process.exit(0));
