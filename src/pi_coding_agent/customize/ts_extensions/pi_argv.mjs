// The host's process as extensions see it: like Pi's own CLI.
//
// Pi runs as `node <pi-coding-agent>/<bin>`, and extensions rely on that: pi-subagents, for one,
// finds Pi's package (for its detached runner and the peers it aliases) by walking up from
// `process.argv[1]`. In the host, argv[1] would be host.mjs, outside any Pi package, so it is
// set to the CLI script of the Pi library the host loads. Child agents still start our `pi`:
// the host's environment names it (PI_SUBAGENT_PI_BINARY, _process.py).
import * as fs from "node:fs";
import * as path from "node:path";

/** The `pi` script of the package at `piRoot` (its manifest's `bin`), else `dist/cli.js`. */
function piCliScript(piRoot) {
	let relative = "dist/cli.js";
	try {
		const manifest = JSON.parse(fs.readFileSync(path.join(piRoot, "package.json"), "utf-8"));
		const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.pi;
		if (typeof bin === "string" && bin) relative = bin;
	} catch {
		// no readable manifest: keep the default
	}
	return path.join(piRoot, relative);
}

/** Make `process.argv[1]` Pi's CLI script when it exists (argv[2], the Pi root, stays). */
export function presentAsPiCli(piRoot) {
	if (!piRoot) return;
	const script = piCliScript(piRoot);
	if (fs.existsSync(script)) process.argv[1] = script;
}
