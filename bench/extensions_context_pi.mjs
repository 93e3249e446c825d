// Pi 0.85's side of bench/extensions_startup.py: the cost of `context` handlers per turn.
//   node extensions_context_pi.mjs <pi node_modules dir> <scenario.json>
// Prints {"perTurnMs": {"<handlers>": ms, ...}} for a transcript of the scenario's messages.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [modulesDir, scenarioPath] = process.argv.slice(2);
const runnerUrl = pathToFileURL(`${modulesDir}/@earendil-works/pi-coding-agent/dist/core/extensions/runner.js`).href;
const { ExtensionRunner } = await import(runnerUrl);
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));

function extensions(count) {
  const list = [];
  for (let i = 0; i < count; i++) {
    // a typical filter: look at every message, keep them all
    const handler = (event) => ({ messages: event.messages.filter((m) => m.role !== "never") });
    list.push({ path: `ext-${i}`, handlers: new Map([["context", [handler]]]) });
  }
  return list;
}

const result = {};
for (const count of scenario.handlerCounts) {
  const runner = new ExtensionRunner(extensions(count), {}, "/", {}, {});
  for (let i = 0; i < scenario.warmup; i++) await runner.emitContext(scenario.messages);
  const started = performance.now();
  for (let i = 0; i < scenario.turns; i++) await runner.emitContext(scenario.messages);
  result[count] = (performance.now() - started) / scenario.turns;
}
process.stdout.write(JSON.stringify({ perTurnMs: result, node: process.version }) + "\n");
