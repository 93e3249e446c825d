// Many oracle requests in one Node process: the oracle's own commands (its lib/ folder, given as
// the first argument) on requests read from stdin, one JSON line {subcommand, request} each,
// answered in order with one JSON line {code, output} each: code 0 for Pi's answer, 1 for an
// error Pi raised (output {error: {name, message}}), as the `oracle` wrapper's exit status would
// be, 2 for input the command refused. One Node start (about 1.5 s of CPU) serves a whole test
// session (tests/support/oracle.py keeps the process). Only the commands that keep no state
// between requests are offered; the uuid counter restarts before each request, as in a fresh
// process. The process ends when stdin closes.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const lib = process.argv[2];
const common = await import(pathToFileURL(`${lib}/common.mjs`).href);
common.installNetworkGuard();
common.installDeterministicUuid();

async function convertToLlm(input) {
	const messages = Array.isArray(input) ? input : input?.messages;
	if (!Array.isArray(messages)) throw new common.InputError("input must be an AgentMessage[]");
	return (await common.load("@earendil-works/pi-coding-agent")).convertToLlm(messages);
}

const session = () => import(pathToFileURL(`${lib}/session.mjs`).href);
const COMMANDS = {
	"convert-to-llm": convertToLlm,
	"session-context": async (input) => (await session()).sessionContextCommand(input),
	"session-migrate": async (input) => (await session()).sessionMigrateCommand(input),
};

process.on("unhandledRejection", (reason) => {
	process.stderr.write(`oracle batch: a rejection nobody handled: ${reason?.message ?? reason}\n`);
	process.exit(3);
});

/** ``toJsonText`` on one line: it indents, and a raw newline is only ever its layout (JSON escapes
 * the ones inside strings). */
const oneLine = (value) => common.toJsonText(value).replace(/\n */g, "");

async function answer(subcommand, request) {
	const command = COMMANDS[subcommand];
	if (!command) return `{"code":2,"output":${JSON.stringify({ error: `no batched command ${subcommand}` })}}`;
	common.resetDeterministicUuid();
	try {
		return `{"code":0,"output":${oneLine(await command(request))}}`;
	} catch (err) {
		if (err instanceof common.InputError) {
			return `{"code":2,"output":${JSON.stringify({ error: `invalid input: ${err.message}` })}}`;
		}
		const error = { name: err?.name ?? "Error", message: String(err?.message ?? err) };
		return `{"code":1,"output":${oneLine({ error })}}`;
	}
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
	if (!line.trim()) continue;
	const { subcommand, request } = JSON.parse(line);
	process.stdout.write(`${await answer(subcommand, request)}\n`);
}
// stdin closed: exit once everything is written (the exit stops what the commands left running).
process.stdout.write("", () => process.exit(0));
