// The oracle's `payload` and `parse-stream` for Codex requests, whose body Pi sends zstd
// compressed: the request's `body` is the JSON Pi compressed (recorded as it goes into
// node:zlib's zstdCompressSync), with `content-encoding: zstd` kept in the headers.
//
//   node tools/pi_codex_oracle.mjs payload|parse-stream < input.json
//
// Run with the oracle runtime's Node and PI_ORACLE_HOME / PI_ORACLE_DIR set (tools/gen_codex_azure_cases.py
// does). Everything else is the shared oracle's own code (../shared/oracle/lib).
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const oracleDir = process.env.PI_ORACLE_DIR;
if (!oracleDir) {
	process.stderr.write("pi_codex_oracle: PI_ORACLE_DIR is not set\n");
	process.exit(2);
}
const lib = (name) => import(pathToFileURL(`${oracleDir}/lib/${name}`).href);
const common = await lib("common.mjs");
common.installNetworkGuard();
common.installDeterministicUuid();

const zlib = createRequire(import.meta.url)("node:zlib");
const compressedBodies = [];
const realCompress = zlib.zstdCompressSync;
zlib.zstdCompressSync = function recordingCompress(input, options) {
	compressedBodies.push(Buffer.from(input).toString("utf8"));
	return realCompress.call(this, input, options);
};

const name = process.argv[2];
const llm = await lib("llm.mjs");
const input = await common.readStdinJson();
try {
	let result;
	if (name === "payload") {
		result = await llm.payloadCommand(input);
		const request = result.request;
		if (request && request.headers["content-encoding"] === "zstd" && compressedBodies.length > 0) {
			request.body = JSON.parse(compressedBodies[compressedBodies.length - 1]);
		}
	} else if (name === "parse-stream") {
		result = await llm.parseStreamCommand(input);
	} else {
		process.stderr.write("usage: pi_codex_oracle.mjs payload|parse-stream < input.json\n");
		process.exit(2);
	}
	process.stdout.write(common.toJsonText(result));
	process.exitCode = 0;
} catch (err) {
	process.stdout.write(common.toJsonText({ error: { name: err?.name ?? "Error", message: String(err?.message ?? err) } }));
	process.exitCode = 1;
}
setTimeout(() => process.exit(process.exitCode ?? 0), 50).unref();
