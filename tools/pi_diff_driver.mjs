// Computes Pi 0.85's edit-tool diffs (display diff and unified patch) for pairs of texts.
// Input (stdin, JSON): [{old, new}]. Output: [{diff, firstChangedLine, patch}].
// Used only by tools/gen_pi_tool_outputs.py to record expectations.
import { readFileSync } from "node:fs";

const home = process.env.PI_ORACLE_HOME ?? `${process.env.HOME}/.cache/pi-oracle-0.85.0`;
const diff = await import(`${home}/node_modules/@earendil-works/pi-coding-agent/dist/core/tools/edit-diff.js`);
const pairs = JSON.parse(readFileSync(0, "utf-8"));
const out = pairs.map(({ old, new: next }) => {
	const { diff: text, firstChangedLine } = diff.generateDiffString(old, next);
	return { diff: text, firstChangedLine: firstChangedLine ?? null, patch: diff.generateUnifiedPatch("f.txt", old, next) };
});
process.stdout.write(JSON.stringify(out), () => process.exit(0));
