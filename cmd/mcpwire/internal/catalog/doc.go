// Package catalog holds the verb that lists the MCP servers the hosts'
// configuration files name: mcpwire servers. The files are read by
// package config; the other verbs reach one of their servers with
// --server NAME or @NAME (see app.Target).
//
//	servers.go  mcpwire servers  list the configured servers, their files, shadowed entries
//	family.go   the Family of the root command
//
// Nothing it prints holds a secret: env and header values, a URL's
// password and query values are masked, and variables are shown as
// written, unexpanded.
package catalog
