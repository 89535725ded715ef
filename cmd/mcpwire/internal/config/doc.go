// Package config reads the MCP servers that hosts' configuration files
// name, so that "mcpwire tools @github" talks to the server Claude
// Desktop, Cursor, VS Code or Claude Code would start for "github".
//
// # The files
//
// Claude Desktop, Cursor and Claude Code keep servers in "mcpServers",
// VS Code in "servers" (with "inputs" for values it asks the user for;
// in settings.json, both under "mcp"). An entry is a command to start
// (stdio: command, args, env; VS Code and Cursor add envFile, VS Code
// cwd) or an endpoint (url, headers), told apart by "type" (stdio, http,
// sse) or by which of command and url it has. Fields mcpwire does not use
// (VS Code's dev and sandbox, Cursor's auth) are ignored, as the hosts
// ignore what they do not know.
//
// Files tells where the usual files are and in which order they are
// read; Given makes a File of a path given with --config. Read parses one
// file: its errors name the file, line and column. VS Code's and Cursor's
// files may have comments and trailing commas; Claude Desktop's and
// Claude Code's are plain JSON, as those hosts read them. A name given
// twice in the parts mcpwire reads (two servers of one name, an env
// variable twice) is an error rather than a silent choice.
//
// # Variables and secrets
//
// A Server holds its entry as written; Resolve expands its variables as
// its host does (see expand.go) and reads its envFile, into a Launch.
// Printing a Server (Target, Settings) never shows an env or header
// value, nor a URL's password or query values; a Launch lists its
// Secrets (those values as expanded, the variables' values in them, and
// whatever a VS Code input gave), which the command line masks wherever
// it prints. The values variables give to a command, its arguments or
// the rest of a URL are not secrets: a URL from ${env:MCP_URL} is shown.
package config
