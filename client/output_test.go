package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// Weather is the structured result of the output tools' server.
type Weather struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
}

const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"number"}},"required":["city","temp"]}`

// outputServer has tools that declare an output schema and keep to it
// ("weather", typed), break it ("liar": a string temperature; "mute":
// text only), fail ("broken"), and tools without one that answer JSON as
// text ("legacy") or plain text ("hello").
func outputServer(t *testing.T) *server.Server {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "out", Version: "1"}, nil)
	t.Cleanup(func() { srv.Close() })
	raw := func(structured, text string, isError bool) server.ToolHandler {
		return func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			res := &mcp.CallToolResult{Content: mcp.ContentList{&mcp.TextContent{Text: text}}, IsError: isError}
			if structured != "" {
				res.StructuredContent = json.RawMessage(structured)
			}
			return res, nil
		}
	}
	err := errors.Join(
		server.AddTool(srv, &mcp.Tool{Name: "weather"}, func(ctx context.Context, r *server.Request, in struct {
			City string `json:"city"`
		}) (Weather, error) {
			return Weather{City: in.City, Temp: 21.5}, nil
		}),
		srv.AddTool(&mcp.Tool{Name: "liar", OutputSchema: json.RawMessage(weatherSchema)}, raw(`{"city":"Paris","temp":"hot"}`, "hot", false)),
		srv.AddTool(&mcp.Tool{Name: "mute", OutputSchema: json.RawMessage(weatherSchema)}, raw("", `{"city":"Paris","temp":1}`, false)),
		srv.AddTool(&mcp.Tool{Name: "broken", OutputSchema: json.RawMessage(weatherSchema)}, raw("", "the weather service is down", true)),
		srv.AddTool(&mcp.Tool{Name: "legacy"}, raw("", `{"city":"Oslo","temp":-3}`, false)),
		srv.AddTool(&mcp.Tool{Name: "hello"}, raw("", "hello there", false)),
	)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// eras runs f in a session of each era with srv, in memory.
func eras(t *testing.T, srv *server.Server, opts client.Options, f func(t *testing.T, ctx context.Context, sess *client.Session)) {
	for _, v := range []mcp.Version{mcp.Latest, mcp.LatestLegacy} {
		t.Run(string(v), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ct, st := memory.NewPair(nil)
			ss, err := srv.Connect(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			o := opts
			o.Version = v
			sess, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &o).Connect(ctx, ct)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			f(t, ctx, sess)
		})
	}
}

func listAll(t *testing.T, ctx context.Context, sess *client.Session) {
	t.Helper()
	for _, err := range sess.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestOutputSchemaChecked: once the tools are listed, a result whose
// structuredContent breaks the tool's outputSchema, or lacks it, is an
// *OutputSchemaError that names the offending value and holds the
// result; conforming results and tool errors pass. Before any listing
// the session knows no schema and checks nothing.
func TestOutputSchemaChecked(t *testing.T) {
	eras(t, outputServer(t), client.Options{}, func(t *testing.T, ctx context.Context, sess *client.Session) {
		call := func(name string) (*mcp.CallToolResult, error) {
			return sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{"city":"Paris"}`)})
		}
		if _, err := call("liar"); err != nil {
			t.Fatalf("liar before tools/list: %v; the session knows no schema yet", err)
		}
		listAll(t, ctx, sess)

		res, err := call("liar")
		var oe *client.OutputSchemaError
		if !errors.As(err, &oe) || res != nil {
			t.Fatalf("liar: %v, %v; want an *OutputSchemaError", res, err)
		}
		if oe.Tool != "liar" || oe.Result == nil || string(oe.Result.StructuredContent) != `{"city":"Paris","temp":"hot"}` {
			t.Errorf("the error holds %q and %+v", oe.Tool, oe.Result)
		}
		if msg := err.Error(); !strings.Contains(msg, `tool "liar"`) || !strings.Contains(msg, "structuredContent/temp: expected number") {
			t.Errorf("message %q does not say what is wrong", msg)
		}

		if _, err := call("mute"); !errors.As(err, &oe) || !strings.Contains(err.Error(), "no structuredContent") {
			t.Errorf("mute: %v, want an *OutputSchemaError for the missing structuredContent", err)
		}
		if res, err := call("broken"); err != nil || !res.IsError {
			t.Errorf("broken: %+v, %v; a tool error is a result, never checked", res, err)
		}
		if res, err := call("weather"); err != nil || string(res.StructuredContent) != `{"city":"Paris","temp":21.5}` {
			t.Errorf("weather: %+v, %v", res, err)
		}
	})
}

// TestOutputSchemaStaleAfterListChanged: tools/list_changed makes the
// learned schemas stale (the tool may have changed); the next listing
// brings them back.
func TestOutputSchemaStaleAfterListChanged(t *testing.T) {
	srv := outputServer(t)
	changed := make(chan struct{}, 8)
	opts := client.Options{OnListChanged: func(ctx context.Context, method string) { changed <- struct{}{} }}
	eras(t, srv, opts, func(t *testing.T, ctx context.Context, sess *client.Session) {
		if sess.IsModern() {
			sub, err := sess.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
		}
		listAll(t, ctx, sess)
		liar := &mcp.CallToolParams{Name: "liar", Arguments: json.RawMessage(`{}`)}
		if _, err := sess.CallTool(ctx, liar); err == nil {
			t.Fatal("liar passed its check")
		}
		srv.RemoveTools("hello") // a list change
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("no tools/list_changed")
		}
		if _, err := sess.CallTool(ctx, liar); err != nil {
			t.Errorf("liar after list_changed: %v; its schema is stale", err)
		}
		listAll(t, ctx, sess)
		if _, err := sess.CallTool(ctx, liar); err == nil {
			t.Error("liar passed its check after listing again")
		}
		server.AddTool(srv, &mcp.Tool{Name: "hello"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) { return "hello there", nil })
		select { // the next era's session must not see this change
		case <-changed:
		case <-ctx.Done():
			t.Fatal("no tools/list_changed")
		}
	})
}

// TestTypedCallTool: the function CallTool decodes structuredContent,
// falls back to the text (JSON, or the text itself for a string), and
// reports tool errors, schema mismatches and undecodable results as
// errors of their own.
func TestTypedCallTool(t *testing.T) {
	eras(t, outputServer(t), client.Options{}, func(t *testing.T, ctx context.Context, sess *client.Session) {
		listAll(t, ctx, sess)
		w, err := client.CallTool[Weather](ctx, sess, "weather", map[string]string{"city": "Lyon"})
		if err != nil || w != (Weather{City: "Lyon", Temp: 21.5}) {
			t.Errorf("weather: %+v, %v", w, err)
		}
		if w, err := client.CallTool[*Weather](ctx, sess, "legacy", json.RawMessage(`{}`)); err != nil || *w != (Weather{City: "Oslo", Temp: -3}) {
			t.Errorf("legacy (JSON text): %+v, %v", w, err)
		}
		if s, err := client.CallTool[string](ctx, sess, "hello", nil); err != nil || s != "hello there" {
			t.Errorf("hello as a string: %q, %v", s, err)
		}
		if _, err := client.CallTool[Weather](ctx, sess, "hello", nil); err == nil || !strings.Contains(err.Error(), "not the JSON of client_test.Weather") {
			t.Errorf("hello as Weather: %v", err)
		}
		var te *client.ToolError
		if _, err := client.CallTool[Weather](ctx, sess, "broken", nil); !errors.As(err, &te) || te.Result == nil || !strings.Contains(err.Error(), "the weather service is down") {
			t.Errorf("broken: %v, want a *ToolError with the tool's text", err)
		}
		var oe *client.OutputSchemaError
		if _, err := client.CallTool[Weather](ctx, sess, "liar", nil); !errors.As(err, &oe) {
			t.Errorf("liar: %v, want an *OutputSchemaError", err)
		}
		if _, err := client.CallTool[Weather](ctx, sess, "weather", func() {}); err == nil {
			t.Error("arguments that do not encode: no error")
		}
	})
}
