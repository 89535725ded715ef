package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// methods records the methods a middleware saw.
type methods struct {
	mu   sync.Mutex
	list []string
}

func (m *methods) add(s string) {
	m.mu.Lock()
	m.list = append(m.list, s)
	m.mu.Unlock()
}

func (m *methods) get() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.list)
}

// TestMiddlewareBothWays checks, in both eras, that the client's and the
// server's outgoing middleware see what each sends on its own, that a
// client middleware can add to a request's _meta and the server's
// incoming middleware sees it, and that results come back through them.
func TestMiddlewareBothWays(t *testing.T) {
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		t.Run(string(v), func(t *testing.T) {
			var clientOut, serverIn, serverOut methods
			stamp := func(next jsonrpc.Handler) jsonrpc.Handler {
				return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					clientOut.add(req.Method)
					if req.Method == mcp.MethodCallTool {
						var p map[string]json.RawMessage
						json.Unmarshal(req.Params, &p)
						var meta map[string]json.RawMessage
						json.Unmarshal(p["_meta"], &meta)
						if meta == nil {
							meta = map[string]json.RawMessage{}
						}
						meta["traceparent"] = json.RawMessage(`"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`)
						p["_meta"], _ = json.Marshal(meta)
						req.Params, _ = json.Marshal(p)
					}
					res, err := next.Handle(ctx, req)
					if req.IsCall() && err == nil {
						if _, ok := res.(json.RawMessage); !ok {
							t.Errorf("%s: the client's outgoing middleware got a %T, want the raw result", req.Method, res)
						}
					}
					return res, err
				})
			}
			var traceparent string
			s := server.New(mcp.Implementation{Name: "mw", Version: "1"}, &server.Options{
				Middleware: []jsonrpc.Middleware{func(next jsonrpc.Handler) jsonrpc.Handler {
					return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
						serverIn.add(req.Method)
						if req.Method == mcp.MethodCallTool {
							var p struct {
								Meta map[string]string `json:"_meta"`
							}
							json.Unmarshal(req.Params, &p)
							traceparent = p.Meta["traceparent"]
						}
						return next.Handle(ctx, req)
					})
				}},
				Outgoing: []jsonrpc.Middleware{func(next jsonrpc.Handler) jsonrpc.Handler {
					return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
						serverOut.add(req.Method)
						return next.Handle(ctx, req)
					})
				}},
			})
			server.AddTool(s, &mcp.Tool{Name: "work"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				if err := r.Log(ctx, mcp.LevelInfo, "work", "working"); err != nil {
					return "", err
				}
				if err := r.Progress(ctx, 1, 2, "half"); err != nil {
					return "", err
				}
				return "done", nil
			})
			ct, st := memory.NewPair(nil)
			ctx := context.Background()
			ss, err := s.Connect(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { ss.Close(); ss.Wait() }()
			c := client.New(mcp.Implementation{Name: "mw-client", Version: "1"}, &client.Options{Version: v, Outgoing: []jsonrpc.Middleware{stamp}})
			cs, err := c.Connect(ctx, ct)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			progress := make(chan struct{}, 1)
			cctx := client.WithProgress(client.WithLogLevel(ctx, mcp.LevelDebug), func(mcp.ProgressParams) {
				select {
				case progress <- struct{}{}:
				default:
				}
			})
			res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "work", Arguments: json.RawMessage(`{}`)})
			if err != nil || res.IsError {
				t.Fatal(res, err)
			}
			<-progress
			if traceparent == "" {
				t.Error("the server's middleware did not see the _meta the client's middleware added")
			}
			handshake := "initialize notifications/initialized"
			if mcp.IsModern(v) {
				handshake = "server/discover"
			}
			if got, want := strings.Join(clientOut.get(), " "), handshake+" tools/call"; got != want {
				t.Errorf("client outgoing saw %q, want %q", got, want)
			}
			if got, want := strings.Join(serverIn.get(), " "), handshake+" tools/call"; got != want {
				t.Errorf("server incoming saw %q, want %q", got, want)
			}
			if got, want := fmt.Sprint(serverOut.get()), "[notifications/message notifications/progress]"; got != want {
				t.Errorf("server outgoing saw %s, want %s", got, want)
			}
		})
	}
}
