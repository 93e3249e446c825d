// Pi 0.85's side of bench/session_resume.py: open a session file with Pi's own
// SessionManager and build the context, in a fresh process, then print a summary.
//   node pi_session_resume.mjs <pi-coding-agent package dir> <session.jsonl>
import { pathToFileURL } from "node:url";

const [packageDir, sessionPath] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(`${packageDir}/dist/core/session-manager.js`).href);
const manager = SessionManager.open(sessionPath);
const context = manager.buildSessionContext();
const last = context.messages[context.messages.length - 1];
process.stdout.write(
	`${JSON.stringify({
		messages: context.messages.length,
		leafId: manager.getLeafId(),
		thinkingLevel: context.thinkingLevel,
		model: context.model,
		firstRole: context.messages[0]?.role ?? null,
		lastTimestamp: last?.timestamp ?? null,
	})}\n`,
);
