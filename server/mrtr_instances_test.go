package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// newInstance is one server instance of a deployment behind a load
// balancer; instances share nothing but the request-state keys.
func newInstance(t *testing.T, keys [][]byte, runs *atomic.Int32) http.Handler {
	srv := server.New(mcp.Implementation{Name: "scaled", Version: "1"}, &server.Options{RequestStateKeys: keys})
	ask := func(ctx context.Context, r *server.Request, key, field string) (string, error) {
		var res mcp.ElicitResult
		err := r.Ask(ctx, &server.Question{Key: key, Method: mcp.MethodElicit, Result: &res, Params: &mcp.ElicitParams{
			Message:         "Your " + field + "?",
			RequestedSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string"}},"required":[%q]}`, field, field)),
		}})
		if err != nil {
			return "", err
		}
		s, _ := res.Content[field].(string)
		return s, nil
	}
	server.AddTool(srv, &mcp.Tool{Name: "profile", Description: "asks for a name, then a color"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		runs.Add(1)
		name, err := ask(ctx, r, "name", "name")
		if err != nil {
			return "", err
		}
		color, err := ask(ctx, r, "color", "color")
		if err != nil {
			return "", err
		}
		return name + " likes " + color, nil
	})
	h := streamable.NewHandler(srv, nil)
	t.Cleanup(func() { h.Close() })
	return h
}

// roundRobin forwards each request to the next backend in turn, as a
// load balancer without affinity does.
func roundRobin(backends ...http.Handler) http.Handler {
	var n atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		backends[int(n.Add(1)-1)%len(backends)].ServeHTTP(w, r)
	})
}

// TestMRTRAcrossInstances runs one logical tool call that asks the user
// twice on two server instances behind a round-robin balancer: each round
// lands on the other instance, which continues from the sealed request
// state alone.
func TestMRTRAcrossInstances(t *testing.T) {
	keys := [][]byte{[]byte("0123456789abcdef0123456789abcdef")}
	var runsA, runsB atomic.Int32
	lb := httptest.NewServer(roundRobin(newInstance(t, keys, &runsA), newInstance(t, keys, &runsB)))
	defer lb.Close()
	answers := map[string]string{"name": "Ada", "color": "teal"}
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			var s struct{ Required []string }
			json.Unmarshal(p.RequestedSchema, &s)
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{s.Required[0]: answers[s.Required[0]]}}, nil
		},
	})
	ctx := context.Background()
	sess, err := c.Connect(ctx, streamable.NewTransport(lb.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if !sess.IsModern() {
		t.Fatal("want the stateless era")
	}
	runsA.Store(0)
	runsB.Store(0)
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "profile"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "Ada likes teal" {
		t.Errorf("result %q", got)
	}
	// Three rounds: ask the name, ask the color, complete; alternating.
	if a, b := runsA.Load(), runsB.Load(); a+b != 3 || a == 0 || b == 0 {
		t.Errorf("rounds on A: %d, on B: %d; want 3 rounds on both instances", a, b)
	}
}

// TestMRTRStateRefusedWithoutSharedKey is the control: instances with
// different keys cannot continue each other's rounds.
func TestMRTRStateRefusedWithoutSharedKey(t *testing.T) {
	var runsA, runsB atomic.Int32
	lb := httptest.NewServer(roundRobin(newInstance(t, nil, &runsA), newInstance(t, nil, &runsB)))
	defer lb.Close()
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	ctx := context.Background()
	sess, err := c.Connect(ctx, streamable.NewTransport(lb.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	_, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "profile"})
	if jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("got %v, want the other instance to refuse the request state (-32602)", err)
	}
}
