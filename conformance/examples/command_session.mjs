// Session mode of the command contract, for a Node.js command: one process, many cells.
// The protocol is in docs/targets.md ("Session targets"); command_session.py is the
// same helper for Python.  A manifest with `session = true` has the suite start the
// command once per worker and hand it one cell per line of stdin; the command answers
// each on the descriptor $CONFORMANCE_REPLY_FD with the status it would have exited with.
//
//   import { serveOrRun, exitCell } from "./command_session.mjs";
//   await serveOrRun(async () => {
//     const kase = JSON.parse(readFileSync(process.env.CONFORMANCE_CASE, "utf8"));
//     ...                       // hold the conversation, as a per-process command does
//     if (failed) exitCell(1, "why");  // where a process would call process.exit(1)
//     return 0;
//   });
//
// Per cell it sets the cell's variables in process.env, writes the case document where
// CONFORMANCE_CASE points, awaits the function (its return value or exitCell's status is
// the cell's status; any other exception is status 1 with its stack on stderr) and sends
// the output file CONFORMANCE_OUTPUT names.  Outside a session it runs the function once
// and exits with its status, so one script serves both modes.  No dependencies.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** Thrown by exitCell: the cell ends with this status, the session goes on. */
export class CellExit extends Error {
  constructor(status, message) {
    super(message ?? `exit status ${status}`);
    this.status = status;
  }
}

/** End the cell with `status`, printing `message` as the last line of stderr. */
export function exitCell(status, message) {
  if (message) process.stderr.write(`${message}\n`);
  throw new CellExit(status, message);
}

async function statusOf(holdCell) {
  try {
    return (await holdCell()) ?? 0;
  } catch (error) {
    if (error instanceof CellExit) return error.status;
    console.error(error?.stack ?? String(error));
    return 1;
  }
}

/** A session when the suite started this command as one, else one cell; exits. */
export async function serveOrRun(holdCell) {
  if (process.env.CONFORMANCE_SESSION !== "1") process.exit(await statusOf(holdCell));
  const replyFd = Number(process.env.CONFORMANCE_REPLY_FD);
  const folder = mkdtempSync(join(tmpdir(), "conformance-session-"));
  const casePath = join(folder, "case.json");
  const outputPath = join(folder, "output.json");
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    const message = JSON.parse(line);
    Object.assign(process.env, message.environment);
    process.env.CONFORMANCE_CASE = casePath;
    process.env.CONFORMANCE_OUTPUT = outputPath;
    writeFileSync(casePath, JSON.stringify(message.case));
    rmSync(outputPath, { force: true });
    const status = await statusOf(holdCell);
    const output = existsSync(outputPath) ? readFileSync(outputPath, "utf8") : null;
    writeSync(replyFd, `${JSON.stringify({ cell: message.cell, status, output })}\n`);
  }
  rmSync(folder, { recursive: true, force: true });
  process.exit(0);
}
