// @mariozechner/pi-ai as a command target (contract v2), black-box over HTTP.
//
// pi-ai has no agent loop; this script runs the one its README shows: streamSimple a
// turn, push the AssistantMessage it returns, push a toolResult per tool call, stream
// again. The model is the library's own model entry for the column, spread with the
// loopback baseUrl ({...getModel(provider, id), baseUrl}); a model id the registry does
// not list takes the provider's first entry with the case's id.
//
//   anthropic-messages      provider "anthropic"   (api anthropic-messages)
//   openai-responses        provider "openai"      (api openai-responses)
//   openai-chat             provider "openai"      (api openai-completions)
//   openai-chat:deepseek    provider "deepseek"    (api openai-completions)
//   openai-chat:openrouter  provider "openrouter"  (api openai-completions)
//   gemini                  provider "google"      (api google-generative-ai)
//
// Thinking: reasoning "medium" with thinkingBudgets.medium = the case's budget (also on a
// Responses case that asks for encrypted reasoning). A call the case scripts its own
// result for (`results`) gets it, with isError when its tool failed.
// Configured Anthropic betas (capability `betas`): the interleaved-thinking beta is pi-ai's
// own `interleavedThinking` option; any other beta goes in `headers` as `anthropic-beta`
// (which replaces the list pi-ai builds, so the configured betas are sent as given).
// It cannot (no other capability declared): load a saved history in the case language,
// report its output's completeness, recover XML tool calls, resume a paused turn.
// A turn pi-ai ends with stopReason "error" exits 93 (the library stopped the
// conversation), with pi-ai's message as the last stderr line.
// One script for both modes of the contract (command_session.mjs): as a session (the
// manifest's `session = true`) Node and pi-ai load once and each cell runs holdCell with
// its own base URL, model, context and options; run once per cell it is the same cell.
// Needs Node >= 20 and PI_AI_HOME, the folder whose node_modules holds pi-ai; without
// them it exits 3 saying which (an `error` verdict, never a hang).
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { exitCell, serveOrRun } from "../../../conformance/examples/command_session.mjs";

// Before any cell: the process cannot serve one (its exit status is every cell's).
function stop(code, message) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const major = Number(process.versions.node.split(".")[0]);
if (major < 20) stop(3, `Node ${process.versions.node} is too old: pi-ai needs Node >= 20`);
const home = process.env.PI_AI_HOME;
const entry = home && join(home, "node_modules", "@mariozechner", "pi-ai", "dist", "index.js");
if (!entry || !existsSync(entry)) {
  stop(3, `@mariozechner/pi-ai is not installed: PI_AI_HOME=${home ?? "(unset)"} has no node_modules/@mariozechner/pi-ai`);
}
let pi;
try {
  pi = await import(pathToFileURL(entry).href);
} catch (error) {
  stop(3, `@mariozechner/pi-ai failed at import: ${error}`);
}

// A rejection no cell awaits ends the process, as it ended the per-cell process: the
// suite gives the cell holding it that status and a fresh session the next one.
process.on("unhandledRejection", (error) => stop(1, `pi-ai failed: ${error?.stack ?? error}`));

async function holdCell() {
  const env = process.env;
  const kase = JSON.parse(readFileSync(env.CONFORMANCE_CASE, "utf8"));
  const root = env.CONFORMANCE_BASE_URL.replace(/\/$/, "");
  const column = kase.dialect ? `${kase.wire}:${kase.dialect}` : kase.wire;
  const routes = {
    "anthropic-messages": ["anthropic", root, undefined],
    "openai-responses": ["openai", `${root}/v1`, "openai-responses"],
    "openai-chat": ["openai", `${root}/v1`, "openai-completions"],
    "openai-chat:deepseek": ["deepseek", `${root}/v1`, undefined],
    "openai-chat:openrouter": ["openrouter", `${root}/v1`, undefined],
    gemini: ["google", `${root}/v1beta`, undefined],
  };
  if (!(column in routes)) exitCell(90, `${column}: no pi-ai provider for this column`);
  const [provider, baseUrl, api] = routes[column];

  function modelFor() {
    let base;
    try {
      base = pi.getModel(provider, kase.model);
    } catch {
      base = undefined;
    }
    if (!base) {
      let known = [];
      try {
        known = pi.getModels(provider) ?? [];
      } catch {
        known = [];
      }
      if (known.length === 0) exitCell(90, `${column}: this pi-ai version has no "${provider}" provider`);
      base = { ...known[0], id: kase.model, name: kase.model };
    }
    return { ...base, baseUrl, ...(api ? { api } : {}), reasoning: true };
  }

  const model = modelFor();
  // A Responses case that asks for encrypted reasoning reasons: pi-ai sends
  // `include: ["reasoning.encrypted_content"]` only with a reasoning level, and without one
  // it asks for effort "none" (a provider would then send no reasoning items at all).
  const encrypted = column === "openai-responses" && (kase.include ?? []).includes("reasoning.encrypted_content");
  const thinking = encrypted ? "medium" : (kase.thinking?.mode ?? "off");
  const options = {
    apiKey: "sk-conformance",
    maxTokens: kase.max_tokens,
    ...(thinking === "off"
      ? {}
      : { reasoning: "medium", thinkingBudgets: { medium: kase.thinking?.budget_tokens ?? 1024 } }),
    ...betaOptions(kase.betas ?? []),
  };

  function betaOptions(betas) {
    if (betas.length === 0) return {};
    const interleaved = "interleaved-thinking-2025-05-14";
    if (betas.every((beta) => beta === interleaved)) return { interleavedThinking: true };
    return { headers: { "anthropic-beta": betas.join(",") } };
  }
  const tools = kase.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  const context = { ...(kase.system == null ? {} : { systemPrompt: kase.system }), messages: [], tools };

  // A call's scripted result (the contract's per-call `results`), else its tool's result.
  function resultOf(call) {
    // On Responses pi-ai's call id is "<call_id>|<item id>": the provider's call id leads.
    const scripted = (kase.results ?? {})[String(call.id).split("|")[0]];
    if (scripted) return { text: scripted.content ?? "", isError: Boolean(scripted.is_error) };
    const tool = kase.tools.find((t) => t.name === call.name);
    return { text: tool ? tool.result : `unknown tool '${call.name}'`, isError: false };
  }

  for (const prompt of kase.prompts) {
    context.messages.push({ role: "user", content: prompt, timestamp: Date.now() });
    for (;;) {
      const events = pi.streamSimple(model, context, options);
      for await (const _event of events) {
        // the stream is drained; its result is the final message
      }
      const message = await events.result();
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        // pi-ai never throws on a failed turn: it ends the turn with stopReason "error" and
        // its message (a provider error, a refusal, a cut stream). That is the library
        // stopping the conversation on purpose: exit 93 (judged on what was sent), as the
        // Python wrappers map their library's own stops.
        exitCell(93, `pi-ai stopped the turn: ${message.errorMessage ?? message.stopReason}`);
      }
      context.messages.push(message);
      const calls = message.content.filter((block) => block.type === "toolCall");
      // A cut turn ends the loop; its calls are answered as not run (isError), so the
      // history the next prompt extends still pairs every call.
      const cut = message.stopReason === "length";
      for (const call of calls) {
        const result = cut ? { text: "not run: the response was cut at the output limit", isError: true } : resultOf(call);
        context.messages.push({
          role: "toolResult",
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: "text", text: result.text }],
          isError: result.isError,
          timestamp: Date.now(),
        });
      }
      if (calls.length === 0 || cut) break;
    }
  }
  return 0;
}

await serveOrRun(holdCell);
