package filesystem

import (
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestNoDirectoriesCallsSayWhy: a server started without directories,
// talking to a client that cannot give roots (a legacy client without
// the roots capability, or any client of the stateless era), answers
// every call with the official server's words for why it cannot
// operate, not with "Access denied" for a path it never had a chance to
// allow.
func TestNoDirectoriesCallsSayWhy(t *testing.T) {
	for _, c := range []struct {
		version mcp.Version
		want    string
	}{
		{"2025-11-25", "Server cannot operate: No allowed directories available. Server was started without command-line directories and client does not support MCP roots protocol. Please either: 1) Start server with directory arguments, or 2) Use a client that supports MCP roots protocol and provides valid root directories."},
		{"2026-07-28", "Server cannot operate: No allowed directories available. Server was started without command-line directories, and on protocol version 2026-07-28 the client cannot provide them through MCP Roots. Restart the server with the directories it may access as command-line arguments."},
	} {
		t.Run(string(c.version), func(t *testing.T) {
			cs := startOurs(t, nil, nil, c.version, nil)
			for _, tool := range []string{"list_allowed_directories", "read_text_file"} {
				got := callTool(t, cs, "", tool, p("hello.txt"))
				if tool == "list_allowed_directories" {
					got = callTool(t, cs, "", tool, a())
				}
				if !got.IsError || got.Text != c.want {
					t.Errorf("%s: isError %v, %q; want an error %q", tool, got.IsError, got.Text, c.want)
				}
			}
		})
	}
}

// TestNoDirectoriesRootsThenRefusal: a legacy client with roots that
// name no usable directory, on a server without directories, gets the
// official refusal naming that: no allowed directories.
func TestNoDirectoriesRootsThenRefusal(t *testing.T) {
	rc := &rootsClient{}
	rc.set("/no/such/dir")
	cs := startOurs(t, nil, nil, "2025-11-25", rc.options())
	got := callTool(t, cs, "", "read_text_file", p("/tmp/x.txt"))
	if want := "Access denied - no allowed directories: the client exposes no valid roots (/tmp/x.txt)"; !got.IsError || got.Text != want {
		t.Errorf("isError %v, %q; want %q", got.IsError, got.Text, want)
	}
}
