// Package peers finds the official filesystem server that
// scripts/install-peers.sh installs, for the tests of servers/filesystem
// that compare mcpwire with it.
package peers

import (
	"os"
	"path/filepath"
	"testing"
)

// Filesystem returns the Node 22 binary and the entry point of
// @modelcontextprotocol/server-filesystem 2.3.0 ($NODE22 and
// $SERVER_FILESYSTEM_23), the version whose tools, flags and texts the
// package follows.
// Without them the test is skipped, or fails when MCPWIRE_REQUIRE_PEERS=1
// (as in CI).
func Filesystem(t testing.TB) (node, server string) {
	t.Helper()
	node, server = os.Getenv("NODE22"), os.Getenv("SERVER_FILESYSTEM_23")
	if node == "" || server == "" {
		msg := "NODE22 and SERVER_FILESYSTEM_23 are not set: run eval \"$(scripts/install-peers.sh)\" and export them"
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	for _, p := range []string{node, server} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("peer missing: %v", err)
		}
	}
	return node, server
}

// NodeModules returns the node_modules folder that holds the official
// filesystem server and its dependencies (minimatch, diff), for tests
// that compare a helper with the library the server uses.
func NodeModules(t testing.TB) (node, dir string) {
	t.Helper()
	node, server := Filesystem(t)
	// .../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
	return node, filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(server))))
}
