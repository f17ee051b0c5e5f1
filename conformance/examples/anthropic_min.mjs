// A minimal Anthropic Messages agent honouring the command-target contract v1.
// Node 20, fetch, no dependencies: proof that a target can be written in any language.
// Non-streaming; every assistant turn is replayed exactly as received, and every
// tool_use is answered with the scripted result of its tool.  It runs once per cell,
// or as a session (a manifest's `session = true`) through command_session.mjs.
//
//   wire-conformance run --target "cmd:node $(python -m conformance.examples anthropic_min.mjs)"
import { readFileSync } from "node:fs";
import { exitCell, serveOrRun } from "./command_session.mjs";

const env = process.env;
let kase;

// Claude Opus 4.7 and later take only adaptive thinking: a budget configured for older
// models is sent as adaptive there.
const ADAPTIVE_ONLY = /^claude-(opus-4-([7-9]|\d\d)|[a-z]+-([5-9]|\d\d))/;

function thinking(config) {
  if (config.mode === "manual" && ADAPTIVE_ONLY.test(kase.model)) return { type: "adaptive" };
  if (config.mode === "manual") return { type: "enabled", budget_tokens: config.budget_tokens };
  if (config.mode === "adaptive") return { type: "adaptive" };
  return undefined;
}

// A case may script a result per call (`results`, keyed by call id), which may be a
// failure; other calls get their tool's result.
function resultFor(call) {
  const own = (kase.results || {})[call.id];
  if (own) return own;
  return { content: toolResult(call.name), is_error: false };
}

function toolResult(name) {
  const tool = kase.tools.find((t) => t.name === name);
  return tool ? tool.result : `unknown tool '${name}'`;
}

async function send(messages) {
  const body = {
    model: kase.model,
    max_tokens: kase.max_tokens,
    ...(kase.system == null ? {} : { system: kase.system }),
    ...(kase.tools.length === 0 ? {} : {
      tools: kase.tools.map((t) => ({
        name: t.name, description: t.description, input_schema: t.parameters,
      })),
    }),
    ...(thinking(kase.thinking) ? { thinking: thinking(kase.thinking) } : {}),
    messages,
  };
  const url = `${env.ANTHROPIC_BASE_URL}/v1/messages`;
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": env.ANTHROPIC_API_KEY,
      "anthropic-version": "2023-06-01",
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) exitCell(1, `HTTP ${res.status} from POST ${url}: ${text}`);
  return JSON.parse(text);
}

async function holdCell() {
  kase = JSON.parse(readFileSync(env.CONFORMANCE_CASE, "utf8"));
  if (kase.version !== 1 || kase.wire !== "anthropic-messages") {
    exitCell(2, `unsupported contract: version ${kase.version}, wire ${kase.wire}`);
  }
  const messages = [];
  for (const prompt of kase.prompts) {
    messages.push({ role: "user", content: prompt });
    for (;;) {
      const reply = await send(messages);
      // A turn cut by max_tokens ends the loop and is not replayed: its calls, its thinking
      // and its signature may be incomplete.
      if (reply.stop_reason === "max_tokens") break;
      // Empty text blocks are refused when sent back; everything else goes back as received.
      const kept = reply.content.filter((block) => block.type !== "text" || block.text.trim() !== "");
      if (kept.length > 0) messages.push({ role: "assistant", content: kept });
      const calls = reply.content.filter((block) => block.type === "tool_use");
      if (calls.length === 0) break;
      messages.push({
        role: "user",
        content: calls.map((call) => ({
          type: "tool_result", tool_use_id: call.id, content: resultFor(call).content,
          ...(resultFor(call).is_error ? { is_error: true } : {}),
        })),
      });
    }
  }
  return 0;
}

await serveOrRun(holdCell);
