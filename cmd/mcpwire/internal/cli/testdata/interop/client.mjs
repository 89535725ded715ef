// A client on the official TypeScript SDK: it runs one conversation with a
// server and prints the results as JSON on stdout, and logs every message
// it sends and receives (direction, id, method) as JSON Lines to the file
// named by $MESSAGE_LOG.
//
//   node client.mjs stdio COMMAND [ARG...]
//   node client.mjs http URL
import { appendFileSync } from "node:fs";
const sdk = process.env.MCP_SDK_DIR + "/dist/esm";
const { Client } = await import(sdk + "/client/index.js");

const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  const { StdioClientTransport } = await import(sdk + "/client/stdio.js");
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "ignore" });
} else {
  const { StreamableHTTPClientTransport } = await import(sdk + "/client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
}

const log = (dir, m) => {
  if (process.env.MESSAGE_LOG) {
    appendFileSync(process.env.MESSAGE_LOG, JSON.stringify({ dir, id: m.id ?? null, method: m.method ?? null }) + "\n");
  }
};
const send = transport.send.bind(transport);
transport.send = (m, o) => { log("sent", m); return send(m, o); };
let onmessage;
Object.defineProperty(transport, "onmessage", {
  get: () => onmessage,
  set: (f) => { onmessage = f && ((m, extra) => { log("received", m); f(m, extra); }); },
});

const client = new Client({ name: "interop-client", version: "1.0.0" });
await client.connect(transport);
const out = {};
out.server = client.getServerVersion();
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
out.echo = await client.callTool({ name: "echo", arguments: { message: "hello through the tap" } });
out.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
const resources = await client.listResources();
out.resources = resources.resources.map((r) => r.uri).slice(0, 5);
out.read = await client.readResource({ uri: resources.resources[0].uri });
out.prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
out.prompt = await client.getPrompt({ name: "simple-prompt", arguments: {} });
await client.close();
console.log(JSON.stringify(out, null, 2));
