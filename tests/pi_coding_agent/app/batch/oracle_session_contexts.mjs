// The oracle's own `session-context` command (../shared/oracle/lib/session.mjs) run on many
// session files in one Node process: the oracle wrapper starts Node and imports Pi once per
// file (seconds each), too slow for the hundreds of files a batch writes. Same guard, same
// deterministic ids, same code; tests check one file through the real wrapper as well.
// argv[2]: the oracle folder. stdin: {"inputs": [{jsonl, leafId?}, ...]}. stdout: [answer | {error}].
import { readFileSync } from "node:fs";

const oracle = process.argv[2];
const common = await import(`${oracle}/lib/common.mjs`);
common.installNetworkGuard();
common.installDeterministicUuid();
const { sessionContextCommand } = await import(`${oracle}/lib/session.mjs`);

const { inputs } = JSON.parse(readFileSync(0, "utf-8"));
const answers = [];
for (const input of inputs) {
	try {
		answers.push(JSON.parse(common.toJsonText(await sessionContextCommand(input))));
	} catch (error) {
		answers.push({ error: { name: error?.name ?? "Error", message: String(error?.message ?? error) } });
	}
}
process.stdout.write(JSON.stringify(answers));
