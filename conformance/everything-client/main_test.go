package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestScenariosAgainstMcpwire runs a few scenarios against an mcpwire
// server in process, in both eras, as a smoke test between conformance
// runs (which exercise the client against the suite's own mocks).
func TestScenariosAgainstMcpwire(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	var added []int
	server.AddTool(srv, &mcp.Tool{Name: "add_numbers", Description: "adds"}, func(ctx context.Context, r *server.Request, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (string, error) {
		added = append(added, in.A+in.B)
		return "sum", nil
	})
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	hs := httptest.NewServer(h)
	defer hs.Close()
	for _, c := range []struct{ scenario, version string }{
		{"initialize", ""}, {"tools_call", ""}, {"tools_call", "2026-07-28"}, {"http-standard-headers", "2026-07-28"},
	} {
		env := map[string]string{"MCP_CONFORMANCE_SCENARIO": c.scenario, "MCP_CONFORMANCE_PROTOCOL_VERSION": c.version}
		var stderr bytes.Buffer
		if code := run([]string{hs.URL}, func(k string) string { return env[k] }, &stderr); code != 0 {
			t.Errorf("%s (%q): exit %d: %s", c.scenario, c.version, code, stderr.String())
		}
	}
	if len(added) < 2 || added[0] != 8 {
		t.Errorf("add_numbers got %v", added)
	}
	var stderr bytes.Buffer
	if code := run([]string{hs.URL}, func(k string) string {
		return map[string]string{"MCP_CONFORMANCE_SCENARIO": "no-such-scenario"}[k]
	}, &stderr); code == 0 || !strings.Contains(stderr.String(), "unknown scenario") {
		t.Errorf("unknown scenario: exit %d, %q", code, stderr.String())
	}
}
