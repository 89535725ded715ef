package client_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/command"
)

// peer returns the path of an npm peer installed by scripts/install-peers.sh
// (named by an environment variable), skipping the test when it is absent
// unless MCPWIRE_REQUIRE_PEERS=1, as in CI.
func peer(t *testing.T, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatalf("%s is not set: run eval \"$(scripts/install-peers.sh)\"", env)
		}
		t.Skipf("%s is not set; run eval \"$(scripts/install-peers.sh)\" to test against the real peer", env)
	}
	return p
}

// TestReferenceServerEverything drives the official TypeScript reference
// server @modelcontextprotocol/server-everything over stdio: the client
// probes for the modern era, falls back to the legacy handshake, and uses
// tools, resources and prompts.
func TestReferenceServerEverything(t *testing.T) {
	node, everything := peer(t, "NODE22"), peer(t, "SERVER_EVERYTHING")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "mcpwire-interop", Version: "1"}, nil)
	sess, err := c.Connect(ctx, command.New(exec.Command(node, everything, "stdio"), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.IsModern() || sess.ProtocolVersion() != mcp.Version20251125 {
		t.Errorf("negotiated %s (modern %v), want the legacy 2025-11-25", sess.ProtocolVersion(), sess.IsModern())
	}
	if !strings.Contains(sess.ServerInfo().Name, "everything") {
		t.Errorf("server info %+v", sess.ServerInfo())
	}

	var tools []string
	for tool, err := range sess.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool.Name)
	}
	if !strings.Contains(strings.Join(tools, " "), "echo") {
		t.Fatalf("tools %v lack echo", tools)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"interop"}`)})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "interop") {
		t.Errorf("echo said %q", text)
	}
	sum, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
	if err != nil || sum.IsError || !strings.Contains(sum.Content[0].(*mcp.TextContent).Text, "5") {
		t.Errorf("get-sum: %+v, %v", sum, err)
	}

	// The reference server's structured tool: its result is checked
	// against the outputSchema it listed (a zod object), then decoded.
	type weather struct {
		Temperature float64 `json:"temperature"`
		Conditions  string  `json:"conditions"`
		Humidity    float64 `json:"humidity"`
	}
	w, err := client.CallTool[weather](ctx, sess, "get-structured-content", map[string]string{"location": "Chicago"})
	if err != nil || w.Conditions == "" || w.Temperature == 0 {
		t.Errorf("get-structured-content: %+v, %v", w, err)
	}

	var first *mcp.Resource
	for r, err := range sess.Resources(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		first = r
		break
	}
	if first == nil {
		t.Fatal("no resources")
	}
	rr, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: first.URI})
	if err != nil || len(rr.Contents) == 0 || rr.Contents[0].URI != first.URI {
		t.Fatalf("read %s: %+v, %v", first.URI, rr, err)
	}
	if _, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://no/such/resource"}); err == nil {
		t.Error("reading a missing resource succeeded")
	}

	var prompt *mcp.Prompt
	for p, err := range sess.Prompts(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Arguments) == 0 {
			prompt = p
			break
		}
	}
	if prompt == nil {
		t.Fatal("no prompt without arguments")
	}
	gp, err := sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt.Name})
	if err != nil || len(gp.Messages) == 0 {
		t.Fatalf("get %s: %+v, %v", prompt.Name, gp, err)
	}
	if err := sess.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
}
