package streamable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// clRegionSchema is the input schema of a tool with header parameters.
const clRegionSchema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer","x-mcp-header":"Count"}}}`

// clServe serves a real server through the package's Handler, with an
// event store (so that legacy streams can be resumed), and returns the
// endpoint URL.
func clServe(t *testing.T) string {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "real", Version: "1.0.0"}, nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(server.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes"}, func(ctx context.Context, r *server.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		r.Log(ctx, mcp.LevelInfo, "echo", "echoing")
		return in.Text, nil
	}))
	must(server.AddTool(s, &mcp.Tool{Name: "ask", Description: "asks the user"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return "", err
		}
		return fmt.Sprint("hello ", res.Content["name"]), nil
	}))
	must(s.AddTool(&mcp.Tool{Name: "region", Description: "header parameters", InputSchema: json.RawMessage(clRegionSchema)},
		func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			return server.TextResult("region ok"), nil
		}))
	must(server.AddTool(s, &mcp.Tool{Name: "poll", Description: "closes its stream, answers later"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		closed := streamable.CloseStream(ctx)
		time.Sleep(100 * time.Millisecond)
		return fmt.Sprintf("closed=%v", closed), nil
	}))
	params, err := mcp.ToolHeaderParams(json.RawMessage(clRegionSchema))
	must(err)
	h := streamable.NewHandler(s, &streamable.HandlerOptions{
		EventStore: streamable.NewMemoryEventStore(nil),
		Retry:      50 * time.Millisecond,
		ToolHeaderParams: func(name string) []streamable.HeaderParam {
			if name == "region" {
				return params
			}
			return nil
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
		s.Close()
	})
	return ts.URL + "/mcp"
}

// TestClientEndToEnd runs the MCP client over this package's client and
// Handler, in both eras: tool calls with log messages, a question to the
// user (a server request in the legacy era, an input_required round in
// the modern one), header parameters (modern), and a call whose stream
// the server closes and the client resumes (legacy).
func TestClientEndToEnd(t *testing.T) {
	for _, version := range []mcp.Version{"", mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		name := string(version)
		if name == "" {
			name = "modern"
		}
		t.Run(name, func(t *testing.T) {
			url := clServe(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			logs := make(chan string, 10)
			c := client.New(mcp.Implementation{Name: "e2e", Version: "1"}, &client.Options{
				Version: version,
				Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
				},
				OnLog: func(ctx context.Context, p *mcp.LoggingMessageParams) { logs <- string(p.Data) },
			})
			rec := &clRecorder{base: &http.Transport{}}
			defer rec.base.CloseIdleConnections()
			sess, err := c.Connect(ctx, streamable.NewTransport(url, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: rec}}))
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if sess.IsModern() != (version == "") {
				t.Fatalf("modern %v, version %s", sess.IsModern(), sess.ProtocolVersion())
			}
			if !sess.IsModern() {
				if err := sess.SetLogLevel(ctx, mcp.LevelInfo); err != nil {
					t.Fatal(err)
				}
			}
			for _, err := range sess.Tools(ctx) { // the transport learns the header parameters
				if err != nil {
					t.Fatal(err)
				}
			}
			text := func(name, args string) string {
				t.Helper()
				res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if res.IsError {
					t.Fatalf("%s: tool error %v", name, res.Content)
				}
				return res.Content[0].(*mcp.TextContent).Text
			}
			if got := text("echo", `{"text":"hi"}`); got != "hi" {
				t.Errorf("echo: %q", got)
			}
			if !sess.IsModern() {
				select {
				case l := <-logs:
					if l != `"echoing"` {
						t.Errorf("log %q", l)
					}
				case <-time.After(5 * time.Second):
					t.Error("no log message")
				}
			}
			if got := text("ask", `{}`); got != "hello Ada" {
				t.Errorf("ask: %q", got)
			}
			if got := text("region", `{"region":" eu-west ","count":3}`); got != "region ok" {
				t.Errorf("region: %q", got)
			}
			if sess.IsModern() {
				h := rec.find(func(r *http.Request) bool { return r.Header.Get("Mcp-Name") == "region" })
				if h == nil || h.Get("Mcp-Param-Region") != "=?base64?IGV1LXdlc3Qg?=" || h.Get("Mcp-Param-Count") != "3" || h.Get("Mcp-Method") != "tools/call" {
					t.Errorf("headers of the region call: %v", h)
				}
				return
			}
			if got := text("poll", `{}`); got != "closed=true" {
				t.Errorf("poll: %q", got)
			}
			if rec.find(func(r *http.Request) bool { return r.Method == "GET" && r.Header.Get("Last-Event-ID") != "" }) == nil {
				t.Error("the closed stream was not resumed with GET and Last-Event-ID")
			}
		})
	}
}

// clRecorder is an http.RoundTripper that records the requests it sends.
type clRecorder struct {
	base *http.Transport
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *clRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

// find returns the headers of the first request that matches.
func (r *clRecorder) find(match func(*http.Request) bool) http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, req := range r.reqs {
		if match(req) {
			return req.Header
		}
	}
	return nil
}
