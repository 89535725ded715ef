// A client on the official TypeScript SDK for the tests of mcpwire bridge:
// it runs one conversation with a server and prints what it got as JSON
// on stdout, to be compared between a direct connection and one through
// the bridge. It answers the server's questions (sampling, elicitation)
// and counts progress and log messages.
//
//   node bridge-client.mjs SUITE stdio COMMAND [ARG...]
//   node bridge-client.mjs SUITE http URL
//
// SUITE is "reference" (@modelcontextprotocol/server-everything) or
// "everything" (mcpwire's conformance everything-server).
const sdk = process.env.MCP_SDK_DIR + "/dist/esm";
const { Client } = await import(sdk + "/client/index.js");
const types = await import(sdk + "/types.js");

const [suite, mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  const { StdioClientTransport } = await import(sdk + "/client/stdio.js");
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "ignore" });
} else {
  const { StreamableHTTPClientTransport } = await import(sdk + "/client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
}

const client = new Client({ name: "bridge-interop", version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: {} } });
client.setRequestHandler(types.CreateMessageRequestSchema, async () => ({
  role: "assistant", model: "test-model", content: { type: "text", text: "forty-two" },
}));
client.setRequestHandler(types.ElicitRequestSchema, async () =>
  suite === "everything" ? { action: "accept", content: { username: "ada", email: "ada@example.com" } } : { action: "decline" });
const logs = [];
client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => logs.push(n.params.data));

await client.connect(transport);
const out = { server: client.getServerVersion() };
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
// Progress is taken by a notification handler of its own rather than
// the SDK's onprogress, which drops a notification that arrives with the
// response in one read.
const progress = {};
client.setNotificationHandler(types.ProgressNotificationSchema, (n) => {
  (progress[n.params.progressToken] ??= []).push(n.params.progress);
});
let tokens = 0;
const progressOf = async (name, args) => {
  const token = "progress-" + ++tokens;
  const result = await client.callTool({ name, arguments: args, _meta: { progressToken: token } });
  return { result, progress: progress[token] ?? [] };
};
if (suite === "reference") {
  out.echo = await client.callTool({ name: "echo", arguments: { message: "hello through the bridge" } });
  out.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
  out.long = await progressOf("trigger-long-running-operation", { duration: 0.3, steps: 3 });
  out.sampling = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "the answer?" } });
  out.elicitation = await client.callTool({ name: "trigger-elicitation-request", arguments: {} });
  const resources = await client.listResources();
  out.resources = resources.resources.map((r) => r.uri).slice(0, 5);
  out.read = await client.readResource({ uri: resources.resources[0].uri });
  out.prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
  out.prompt = await client.getPrompt({ name: "simple-prompt", arguments: {} });
} else {
  out.text = await client.callTool({ name: "test_simple_text", arguments: {} });
  out.progress = await progressOf("test_tool_with_progress", {});
  await client.setLoggingLevel("info");
  out.logging = await client.callTool({ name: "test_tool_with_logging", arguments: {} });
  out.sampling = await client.callTool({ name: "test_sampling", arguments: { prompt: "the answer?" } });
  out.elicitation = await client.callTool({ name: "test_elicitation", arguments: { message: "who are you?" } });
  out.read = await client.readResource({ uri: "test://static-text" });
  out.prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
  out.prompt = await client.getPrompt({ name: "test_simple_prompt", arguments: {} });
  out.logs = logs;
}
await client.close();
console.log(JSON.stringify(out, null, 2));
