// Runs the scenario of scenario.py with Pi 0.85's own RpcClient and prints the log as JSON.
//
//   node pi_driver.mjs SCENARIO.json
//
// Environment: PI_RPC_CLIENT (path of Pi's dist/modes/rpc/rpc-client.js), PI_RPC_SHIM (the
// CLI_PATH the client runs with `node CLI_PATH --mode rpc ...`), PI_RPC_ARGS (JSON list of
// extra arguments), PI_RPC_CWD (working directory of the agent).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { RpcClient } = await import(pathToFileURL(process.env.PI_RPC_CLIENT).href);
const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));
const client = new RpcClient({
  cliPath: process.env.PI_RPC_SHIM,
  cwd: process.env.PI_RPC_CWD,
  args: JSON.parse(process.env.PI_RPC_ARGS || "[]"),
});

// `stream`: every line the agent wrote, in arrival order (answers included, so their order
// relative to events is kept); `results`: what each client call returned.
const stream = [];
const results = [];
const named = {};
const running = {};
let mark = 0;
const handleLine = client.handleLine.bind(client);
client.handleLine = (line) => {
  try {
    stream.push(JSON.parse(line));
  } catch {
    stream.push({ notJson: line });
  }
  handleLine(line);
};

function resolve(value) {
  if (Array.isArray(value)) return value.map(resolve);
  if (value && typeof value === "object" && "$ref" in value) {
    let found = named[value.$ref[0]];
    for (const key of value.$ref.slice(1)) found = found[key];
    return found;
  }
  return value;
}

async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (error) {
    return { error: error.message };
  }
}

async function waitFor(type, since) {
  const deadline = Date.now() + 30000;
  while (!stream.slice(since).some((item) => item.type === type)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${type}`);
    await new Promise((done) => setTimeout(done, 5));
  }
}

await client.start();
for (const [index, step] of scenario.steps.entries()) {
  if (step.call) {
    mark = stream.length;
    const promise = client[step.call](...resolve(step.args || []));
    if (step.async) {
      running[step.as] = promise;
      continue;
    }
    const done = await outcome(promise);
    if (step.as) named[step.as] = done.result;
    results.push({ step: index, call: step.call, ...done });
  } else if (step.await) {
    const done = await outcome(running[step.await]);
    results.push({ step: index, call: step.await, ...done });
  } else if (step.send) {
    mark = stream.length;
    const response = await client.send(step.send);
    results.push({ step: index, send: step.send.type, response });
  } else if (step.raw !== undefined) {
    mark = stream.length;
    client.process.stdin.write(`${step.raw}\n`);
    await waitFor("response", mark);
    results.push({ step: index, raw: true });
  } else if (step.waitFor) {
    await waitFor(step.waitFor, mark);
  }
}
await client.stop();
process.stdout.write(JSON.stringify({ stream, results }));
