// Pi 0.85's side of bench/session_append.py: append N user messages of SIZE characters to
// a session with Pi's own SessionManager (appendFileSync, no fsync) and print the time.
//   node pi_session_append.mjs <pi-coding-agent package dir> <session.jsonl> N SIZE
import { pathToFileURL } from "node:url";

const [packageDir, sessionPath, count, size] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(`${packageDir}/dist/core/session-manager.js`).href);
const manager = SessionManager.open(sessionPath);
const text = "x".repeat(Number(size));
const start = process.hrtime.bigint();
for (let number = 0; number < Number(count); number++) {
	manager.appendMessage({ role: "user", content: [{ type: "text", text }], timestamp: number });
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
process.stdout.write(`${JSON.stringify({ seconds, entries: manager.getEntries().length })}\n`);
