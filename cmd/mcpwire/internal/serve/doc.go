// Package serve is the mcpwire serve verb: mcpwire serve NAME runs one of
// the everyday MCP servers of the servers/... packages, over stdio (for a
// host that starts it, such as Claude Desktop or VS Code) or, with
// --http ADDR, over Streamable HTTP in both protocol eras.
//
// # Adding a server
//
// A server is one file of this package: a Spec (its name, usage, help,
// flags and the function that builds it) registered from the file's init;
// filesystem.go is the model. The command, its --http flag, --verbose
// logging, the transports and the shutdown are shared (serve.go).
package serve
