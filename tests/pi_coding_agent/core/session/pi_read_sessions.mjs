// Pi 0.85 reads many session files in one process (the kill -9 test's survivors).
//   node pi_read_sessions.mjs <pi-coding-agent package dir> FILE...
// Prints one JSON array: per file, the entry ids Pi's SessionManager sees and how many
// messages its context has, or the error it raised.
import { pathToFileURL } from "node:url";

const [packageDir, ...files] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(`${packageDir}/dist/core/session-manager.js`).href);
const results = files.map((file) => {
	try {
		const manager = SessionManager.open(file);
		return {
			file,
			ids: manager.getEntries().map((entry) => entry.id ?? null),
			messages: manager.buildSessionContext().messages.length,
		};
	} catch (error) {
		return { file, error: String(error?.message ?? error) };
	}
});
process.stdout.write(`${JSON.stringify(results)}\n`);
