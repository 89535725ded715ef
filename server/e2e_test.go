package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

func newTestServer(t *testing.T) *server.Server {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(server.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, r *server.Request, in echoArgs) (string, error) {
		return in.Text, nil
	}))
	must(server.AddTool(s, &mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, r *server.Request, in struct{ A, B int }) (sumOut, error) {
		return sumOut{in.A + in.B}, nil
	}))
	must(server.AddTool(s, &mcp.Tool{Name: "fail", Description: "fails"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		return "", errors.New("it broke")
	}))
	must(server.AddTool(s, &mcp.Tool{Name: "ask", Description: "asks the user"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return "", err
		}
		return "hello " + res.Content["name"].(string), nil
	}))
	must(s.AddResource(&mcp.Resource{URI: "test://a", Name: "a"}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, Text: "A"}}}, nil
	}))
	must(s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://t/{id}", Name: "t"}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, vars map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, Text: "id=" + vars["id"]}}}, nil
	}, nil))
	must(s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "who", Required: true}}}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi " + p.Arguments["who"]}}}}, nil
	}, nil))
	return s
}

func connect(t *testing.T, s *server.Server, opts *client.Options) *client.Session {
	t.Helper()
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(mcp.Implementation{Name: "test-client", Version: "0.1"}, opts)
	cs, err := c.Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close(); ss.Wait() })
	return cs
}

func TestBothEras(t *testing.T) {
	for _, v := range []mcp.Version{"", mcp.LatestLegacy, mcp.Version20250326, mcp.Version20241105} {
		t.Run(string(v), func(t *testing.T) {
			s := newTestServer(t)
			cs := connect(t, s, &client.Options{
				Version: v,
				Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
				},
			})
			if v == "" && !cs.IsModern() {
				t.Fatalf("default client did not agree on the modern era: %s", cs.ProtocolVersion())
			}
			if v != "" && cs.ProtocolVersion() != v {
				t.Fatalf("version %s, want %s", cs.ProtocolVersion(), v)
			}
			ctx := context.Background()
			var names []string
			for tool, err := range cs.Tools(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if got := strings.Join(names, ","); got != "echo,add,fail,ask" {
				t.Errorf("tools %s", got)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hi" {
				t.Fatalf("echo: %+v %v", res, err)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"A":1,"B":2}`)})
			if err != nil || string(res.StructuredContent) != `{"sum":3}` {
				t.Fatalf("add: %+v %v", res, err)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":5}`)})
			if err != nil || !res.IsError {
				t.Fatalf("invalid args must give an isError result: %+v %v", res, err)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail"})
			if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "it broke") {
				t.Fatalf("fail: %+v %v", res, err)
			}
			if v != mcp.Version20241105 && v != mcp.Version20250326 {
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
				if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hello Ada" {
					t.Fatalf("ask: %+v %v", res, err)
				}
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"}); err == nil {
				t.Error("unknown tool must be a protocol error")
			}
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://t/42"})
			if err != nil || rr.Contents[0].Text != "id=42" {
				t.Fatalf("template read: %+v %v", rr, err)
			}
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://missing"})
			if !mcp.IsResourceNotFound(err) {
				t.Errorf("missing resource: %v", err)
			}
			gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Bob"}})
			if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "hi Bob" {
				t.Fatalf("prompt: %+v %v", gp, err)
			}
		})
	}
}

func TestProgressAndLogs(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "p", Version: "1"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "work"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		for i := 1; i <= 3; i++ {
			r.Progress(ctx, float64(i), 3, "step")
			r.Log(ctx, mcp.LevelInfo, "work", map[string]int{"step": i})
		}
		return "done", nil
	})
	var mu sync.Mutex
	var logs int
	cs := connect(t, s, &client.Options{Version: mcp.LatestLegacy, OnLog: func(ctx context.Context, p *mcp.LoggingMessageParams) {
		mu.Lock()
		logs++
		mu.Unlock()
	}})
	var progress []float64
	ctx := client.WithProgress(context.Background(), func(p mcp.ProgressParams) { mu.Lock(); progress = append(progress, p.Progress); mu.Unlock() })
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "work"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) != 3 || logs != 3 {
		t.Errorf("progress %v, %d logs", progress, logs)
	}
}

// TestLegacyLogLevel: in the legacy era a request's log messages all go
// to the client until it sets a level with logging/setLevel, then those
// at or above it only.
func TestLegacyLogLevel(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "l", Version: "1"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "log"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		for _, l := range []mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelWarning, mcp.LevelEmergency} {
			r.Log(ctx, l, "t", string(l))
		}
		return "ok", nil
	})
	var mu sync.Mutex
	var logs []mcp.LoggingLevel
	cs := connect(t, s, &client.Options{Version: mcp.LatestLegacy, OnLog: func(ctx context.Context, p *mcp.LoggingMessageParams) {
		mu.Lock()
		logs = append(logs, p.Level)
		mu.Unlock()
	}})
	ctx := context.Background()
	for _, c := range []struct {
		level mcp.LoggingLevel // "": none set yet
		want  string
	}{
		{"", "[debug warning emergency]"},
		{mcp.LevelWarning, "[warning emergency]"},
		{mcp.LevelDebug, "[debug warning emergency]"},
		{mcp.LevelEmergency, "[emergency]"},
	} {
		if c.level != "" {
			if err := cs.SetLogLevel(ctx, c.level); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log"}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := fmt.Sprint(logs)
		logs = nil
		mu.Unlock()
		if got != c.want {
			t.Errorf("level %q: got %s, want %s", c.level, got, c.want)
		}
	}
}

func TestModernListenAndLogLevel(t *testing.T) {
	s := newTestServer(t)
	changed := make(chan string, 10)
	logs := make(chan string, 10)
	cs := connect(t, s, &client.Options{
		OnListChanged: func(ctx context.Context, method string) { changed <- method },
		OnLog:         func(ctx context.Context, p *mcp.LoggingMessageParams) { logs <- string(p.Level) },
	})
	if !cs.IsModern() {
		t.Fatal("want a modern session")
	}
	ctx := context.Background()
	sub, err := cs.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	if !sub.Filter.ToolsListChanged {
		t.Errorf("acknowledged filter %+v", sub.Filter)
	}
	server.AddTool(s, &mcp.Tool{Name: "late", Description: "added later"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		r.Log(ctx, mcp.LevelDebug, "t", "debug")
		r.Log(ctx, mcp.LevelWarning, "t", "warning")
		return "ok", nil
	})
	if m := <-changed; m != mcp.NotificationToolListChanged {
		t.Errorf("got %s", m)
	}
	// Modern requests get log messages only when they ask, at their level.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "late"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(client.WithLogLevel(ctx, mcp.LevelInfo), &mcp.CallToolParams{Name: "late"}); err != nil {
		t.Fatal(err)
	}
	if n := len(logs); n != 1 || <-logs != "warning" {
		t.Errorf("%d log messages, want the one warning", n)
	}
	if err := sub.Close(); err != nil || sub.Err() != nil {
		t.Errorf("close: %v, %v", err, sub.Err())
	}
}
