// Appends to a session file with Pi 1.6's own SessionManager the entries its CLI writes only in
// special cases (context edits, usage entries, a retain-none compaction with its system
// checkpoint, a second root), for tools/gen_pi16_sessions.py.
// Input (stdin, JSON): {file, ops: [...]}; an op's `target`/`id` is an entry id or "@N" (the Nth
// entry of the file, header excluded). Ops: {op: "branch", id}, {op: "resetLeaf"},
// {op: "contextEdit", target, replacement}, {op: "usage", kind, provider, model, usage},
// {op: "compaction", summary, firstKept (id or null), tokensBefore}, {op: "message", message}.
// Output: {ok: true}. The file is rewritten by Pi itself. With {file, contexts: true} instead: Pi's
// buildSessionContext at every entry taken as the leaf, by entry id.
import { readFileSync } from "node:fs";

const home = process.env.PI_ORACLE_HOME;
const core = `${home}/node_modules/@earendil-works/pi-coding-agent/dist`;
const { SessionManager } = await import(`${core}/core/session-manager.js`);

const input = JSON.parse(readFileSync(0, "utf-8"));
if (input.contexts) {
	// Pi's context at every entry of the file taken as the leaf: {id: {messages, thinkingLevel, model}}.
	const out = {};
	for (const entry of SessionManager.open(input.file).getEntries()) {
		const manager = SessionManager.open(input.file);
		manager.branch(entry.id);
		out[entry.id] = manager.buildSessionContext();
	}
	process.stdout.write(JSON.stringify(out));
} else {
	applyOps(input);
}

function applyOps(input) {
	const manager = SessionManager.open(input.file);
	const resolve = (ref) => {
		if (typeof ref !== "string" || !ref.startsWith("@")) return ref;
		return manager.getEntries()[Number(ref.slice(1))].id;
	};
	for (const op of input.ops) {
		if (op.op === "branch") manager.branch(resolve(op.id));
		else if (op.op === "resetLeaf") manager.resetLeaf();
		else if (op.op === "contextEdit") manager.appendContextEdit(resolve(op.target), op.replacement);
		else if (op.op === "usage") manager.appendUsage(op.kind, op.provider, op.model, op.usage);
		else if (op.op === "compaction") manager.appendCompaction(op.summary, op.firstKept === null ? null : resolve(op.firstKept), op.tokensBefore);
		else if (op.op === "message") manager.appendMessage({ timestamp: Date.now(), ...op.message });
		else throw new Error(`unknown op ${op.op}`);
	}
	process.stdout.write(JSON.stringify({ ok: true }));
}
