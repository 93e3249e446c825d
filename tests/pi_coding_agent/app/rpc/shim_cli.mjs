// The CLI_PATH given to Pi's RpcClient: it runs `node shim_cli.mjs --mode rpc ...`, and this
// runs the program named by PI_RPC_SHIM_TARGET (our `pi`, or the oracle's `pi-cli`) with the
// same arguments and the same stdin/stdout/stderr, passing signals on and exiting as it did.
import { spawn } from "node:child_process";

const child = spawn(process.env.PI_RPC_SHIM_TARGET, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGTERM" ? 143 : 1)));
