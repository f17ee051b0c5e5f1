// A minimal MCP server over stdio (JSON-RPC 2.0, one message a line, no dependencies):
// it lists the case's tools and answers each call with its scripted result (told by its
// arguments), else the tool's. The qwen-code CLI registers MCP tools as
// mcp__<server>__<tool>; the manifest maps the case's names onto those.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const kase = JSON.parse(readFileSync(process.env.CONFORMANCE_CASE, "utf8"));
// The case document already names the tools as the CLI will (mcp__conformance__<tool>,
// from the manifest's tool_names); the server offers them without that prefix.
const PREFIX = "mcp__conformance__";
const bare = (name) => (name.startsWith(PREFIX) ? name.slice(PREFIX.length) : name);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

// A call's own scripted result (the contract's `results`): MCP tells the server no call
// id, so the call is told by its arguments, the first unused result whose scripted call
// sent the same ones (in the order the case scripts them).
const canonical = (value) =>
  JSON.stringify(value, (_, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));
const unused = Object.entries(kase.results ?? {}).filter(([, r]) => "arguments" in r);
function scripted(args) {
  const at = unused.findIndex(([, r]) => canonical(r.arguments) === canonical(args ?? {}));
  return at < 0 ? undefined : unused.splice(at, 1)[0][1];
}

function answer(request) {
  const { method, params } = request;
  if (method === "initialize") {
    return {
      protocolVersion: params?.protocolVersion ?? "2024-11-05",
      capabilities: { tools: {} },
      serverInfo: { name: "conformance", version: "1" },
    };
  }
  if (method === "tools/list") {
    return {
      tools: kase.tools.map((t) => ({ name: bare(t.name), description: t.description, inputSchema: t.parameters })),
    };
  }
  if (method === "tools/call") {
    const tool = kase.tools.find((t) => bare(t.name) === params.name);
    const own = tool && scripted(params.arguments);
    if (own) return { content: [{ type: "text", text: own.content }], isError: Boolean(own.is_error) };
    const text = tool ? tool.result : `unknown tool '${params.name}'`;
    return { content: [{ type: "text", text }], isError: !tool };
  }
  if (method === "ping") return {};
  return undefined;
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  if (request.id === undefined) return; // a notification
  const result = answer(request);
  if (result === undefined) {
    send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: `no method ${request.method}` } });
  } else {
    send({ jsonrpc: "2.0", id: request.id, result });
  }
});
