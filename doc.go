// Package mcpwire is the Model Context Protocol for Go: a server and a
// client that speak every MCP revision from 2024-11-05 to 2026-07-28, over
// stdio, Streamable HTTP, the legacy HTTP+SSE transport or in memory.
//
// This package holds no code; start with:
//
//   - server: build an MCP server (tools, resources, prompts, ...);
//   - client: connect to any MCP server;
//   - transport and its subpackages: how messages travel;
//   - mcp: the protocol types of every revision;
//   - jsonrpc: the JSON-RPC 2.0 engine underneath.
//
// The mcpwire command (cmd/mcpwire) talks to any MCP server from the
// shell.
package mcpwire
