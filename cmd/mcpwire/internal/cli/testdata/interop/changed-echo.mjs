// The reference server (@modelcontextprotocol/server-everything) over
// stdio, whose echo tool answers otherwise: a server that a replay of a
// recording made with the real one must find different.
const dist = process.env.SERVER_EVERYTHING.replace(/\/index\.js$/, "");
const { createServer } = await import(dist + "/server/index.js");
const { StdioServerTransport } = await import(process.env.MCP_SDK_DIR + "/dist/esm/server/stdio.js");
const { server } = createServer();
server._registeredTools["echo"].handler = async (args) => ({
  content: [{ type: "text", text: `Echo (changed): ${args.message}` }],
});
await server.connect(new StdioServerTransport());
