package talk

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// eras are the protocol revisions the run tests speak: the default
// negotiation (the stateless era) and each legacy revision.
var eras = []mcp.Version{"", mcp.Version20251125, mcp.Version20250618, mcp.Version20250326, mcp.Version20241105}

func TestToolsParse(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	var got *toolsOptions
	code := e.ExecuteWith(func(a *app.App) []*cobra.Command {
		return []*cobra.Command{newToolsCmd(a, func(_ context.Context, o *toolsOptions) error { got = o; return nil })}
	}, "tools", "--json", "--timeout", "5s", "--protocol", "2025-06-18", "-v", "--", "srv", "--flag", "x")
	if code != app.ExitOK || got == nil {
		t.Fatalf("exit %d, stderr %q", code, e.Stderr.String())
	}
	want := app.Options{
		JSON: true, Timeout: 5 * time.Second, Protocol: mcp.Version20250618, Verbose: true,
		Target: app.Target{Command: []string{"srv", "--flag", "x"}},
	}
	if g := e.App.Global; g.JSON != want.JSON || g.Timeout != want.Timeout || g.Protocol != want.Protocol ||
		g.Verbose != want.Verbose || !equalStrings(g.Target.Command, want.Target.Command) {
		t.Errorf("global options %+v, want %+v", g, want)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const wantTools = `echo (Echo)
  Echoes the text back.
  Arguments:
    text   string   required  the text to echo
    times  integer  optional  how many times to say it

add
  Adds two integers.
  The sum is structured content.
  Arguments:
    a  integer  required  the first term
    b  integer  required  the second term

fail
  Always fails.
  No arguments.

search
  Searches the notes.
  Hints: read-only
  Arguments:
    query  string    required  what to look for
    limit  integer   optional  at most this many hits (default: 10)
    order  string    optional  (one of: "relevance", "date")
    tags   string[]  optional

media
  Returns one block of each kind.
  No arguments.

slow
  Never answers.
  No arguments.
`

func TestRunTools(t *testing.T) {
	for _, v := range eras {
		t.Run(string(v), func(t *testing.T) {
			e := newTestEnv(t, clitest.ServerOptions{})
			e.App.Global.Protocol = v
			if err := runTools(context.Background(), e.App, &toolsOptions{}); err != nil {
				t.Fatal(err)
			}
			clitest.CheckOutput(t, "stdout", e.Stdout.String(), wantTools)
			clitest.CheckOutput(t, "stderr", e.Stderr.String(), "")
		})
	}
}

func TestRunToolsJSON(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Global.JSON = true
	if err := runTools(context.Background(), e.App, &toolsOptions{}); err != nil {
		t.Fatal(err)
	}
	var res mcp.ListToolsResult
	if err := json.Unmarshal(e.Stdout.Bytes(), &res); err != nil {
		t.Fatalf("output is not a tools/list result: %v\n%s", err, e.Stdout.String())
	}
	if len(res.Tools) != 6 || res.Tools[3].Name != "search" || res.NextCursor != "" {
		t.Errorf("tools %+v", res.Tools)
	}
	// The schema is relayed as the server wrote it, member order included.
	if got, want := app.CompactJSON(res.Tools[3].InputSchema), app.CompactJSON(json.RawMessage(clitest.SearchSchema)); got != want {
		t.Errorf("input schema %s, want %s", got, want)
	}
}

func TestRunToolsEmpty(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Connect = clitest.MemoryTarget(t, server.New(mcp.Implementation{Name: "empty", Version: "1"}, nil))
	if err := runTools(context.Background(), e.App, &toolsOptions{}); err != nil {
		t.Fatal(err)
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), "(no tools)\n")
}

// TestRunToolsPages lists more tools than fit on one page.
func TestRunToolsPages(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "paged", Version: "1"}, &server.Options{PageSize: 2})
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		if err := server.AddTool(srv, &mcp.Tool{Name: name}, func(context.Context, *server.Request, struct{}) (string, error) {
			return "", nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Connect = clitest.MemoryTarget(t, srv)
	e.App.Global.JSON = true
	if err := runTools(context.Background(), e.App, &toolsOptions{}); err != nil {
		t.Fatal(err)
	}
	var res mcp.ListToolsResult
	if err := json.Unmarshal(e.Stdout.Bytes(), &res); err != nil || len(res.Tools) != 5 {
		t.Fatalf("%v: %s", err, e.Stdout.String())
	}
}

func TestToolHints(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		h    *mcp.ToolAnnotations
		want string
	}{
		{nil, ""},
		{&mcp.ToolAnnotations{}, ""},
		{&mcp.ToolAnnotations{ReadOnlyHint: &yes, DestructiveHint: &no, IdempotentHint: &yes, OpenWorldHint: &no}, "read-only, closed world"},
		{&mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &yes}, "destructive, open world"},
		{&mcp.ToolAnnotations{ReadOnlyHint: &no, DestructiveHint: &no, IdempotentHint: &yes}, "not destructive, idempotent"},
	} {
		if got := toolHints(tt.h); got != tt.want {
			t.Errorf("toolHints(%+v) = %q, want %q", tt.h, got, tt.want)
		}
	}
}
