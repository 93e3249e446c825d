// Many oracle requests in one Node process: the oracle's own commands (its lib/ folder, given as
// the first argument) on each request of the JSON array read from stdin, in order. Prints a JSON
// array of {code, output}: code 0 for Pi's answer, 1 for an error Pi raised (output
// {error: {name, message}}), as the `oracle` wrapper's exit status would be. One Node start
// (about 1.5 s of CPU) instead of one per request. Only the commands that keep no state between
// requests are offered; the uuid counter restarts before each request, as in a fresh process.
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

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const requests = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const answers = [];
for (const { subcommand, request } of requests) {
	const command = COMMANDS[subcommand];
	if (!command) {
		process.stderr.write(`oracle batch: no batched command ${subcommand}\n`);
		process.exit(2);
	}
	common.resetDeterministicUuid();
	try {
		answers.push(`{"code":0,"output":${common.toJsonText(await command(request))}}`);
	} catch (err) {
		if (err instanceof common.InputError) {
			process.stderr.write(`oracle batch: invalid input: ${err.message}\n`);
			process.exit(2);
		}
		const error = { name: err?.name ?? "Error", message: String(err?.message ?? err) };
		answers.push(`{"code":1,"output":${common.toJsonText({ error })}}`);
	}
}
// Exit once the answer is written (a pipe takes a large answer in pieces: exiting on a timer cut
// 3 MB answers short on a loaded machine); the exit stops what the commands left running.
process.stdout.write(`[${answers.join(",")}]\n`, () => process.exit(0));
