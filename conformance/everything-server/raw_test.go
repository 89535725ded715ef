package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// rawConn drives a server session with raw JSON-RPC frames over the
// memory transport, the way the suite's stateless helper does: it sees
// every frame, in the order the server wrote them.
type rawConn struct {
	t    *testing.T
	conn transport.Conn
	next int64 // last request id used
}

// wireMsg is a message as it was on the wire.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
	raw    string
}

// wireError is a JSON-RPC error object.
type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// newRaw starts a session of srv and returns its raw client end.
func newRaw(t *testing.T, srv *server.Server) *rawConn {
	t.Helper()
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); ss.Close(); ss.Wait() })
	return &rawConn{t: t, conn: c}
}

// send writes one frame, given as any value that encodes to it.
func (c *rawConn) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	m, err := jsonrpc.Decode(b, nil)
	if err != nil {
		c.t.Fatalf("invalid frame %s: %v", b, err)
	}
	if err := c.conn.Write(context.Background(), m); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads the next frame, waiting up to 5 s.
func (c *rawConn) recv() wireMsg {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	b, err := jsonrpc.Encoder{}.Append(nil, m)
	if err != nil {
		c.t.Fatal(err)
	}
	var w wireMsg
	if err := json.Unmarshal(b, &w); err != nil {
		c.t.Fatal(err)
	}
	w.raw = string(b)
	return w
}

// request sends a request with a fresh integer id and returns the id.
func (c *rawConn) request(method string, params any) int64 {
	c.t.Helper()
	c.next++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return c.next
}

// await reads until the response to id, and returns it with the frames
// that came before it.
func (c *rawConn) await(id int64) (wireMsg, []wireMsg) {
	c.t.Helper()
	var before []wireMsg
	want := fmt.Sprint(id)
	for {
		m := c.recv()
		if m.Method == "" && string(m.ID) == want {
			return m, before
		}
		before = append(before, m)
	}
}

// call sends a request and awaits its response.
func (c *rawConn) call(method string, params any) (wireMsg, []wireMsg) {
	c.t.Helper()
	return c.await(c.request(method, params))
}

// initialize runs the legacy handshake with capabilities caps.
func (c *rawConn) initialize(caps string) {
	c.t.Helper()
	res, _ := c.call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    json.RawMessage(caps),
		"clientInfo":      map[string]string{"name": "conformance-test-client", "version": "1.0.0"},
	})
	if res.Error != nil {
		c.t.Fatalf("initialize: %+v", res.Error)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

// harnessCaps are the capabilities the stateless harness declares unless
// a scenario overrides them.
const harnessCaps = `{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}`

// modern returns params with the modern _meta triple (capabilities caps)
// and the extra _meta keys given as key, value pairs.
func modern(params map[string]any, caps string, meta ...any) map[string]any {
	m := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "conformance-test-client", "version": "1.0.0"},
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(caps),
	}
	for i := 0; i+1 < len(meta); i += 2 {
		m[meta[i].(string)] = meta[i+1]
	}
	p := map[string]any{"_meta": m}
	for k, v := range params {
		p[k] = v
	}
	return p
}

// tool returns tools/call params.
func tool(name string, more ...any) map[string]any {
	p := map[string]any{"name": name, "arguments": map[string]any{}}
	for i := 0; i+1 < len(more); i += 2 {
		p[more[i].(string)] = more[i+1]
	}
	return p
}

// methods returns the methods of frames.
func methods(frames []wireMsg) []string {
	var out []string
	for _, f := range frames {
		out = append(out, f.Method)
	}
	return out
}

// count counts the frames with the given method.
func count(frames []wireMsg, method string) int {
	n := 0
	for _, f := range frames {
		if f.Method == method {
			n++
		}
	}
	return n
}

// resultType returns the resultType of a result, "" when absent.
func resultType(t *testing.T, m wireMsg) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d %s %s", m.Error.Code, m.Error.Message, m.Error.Data)
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	return r.ResultType
}

// TestRawProgressToken checks that progress echoes the token with its JSON
// type (0.1.16 sends the request id, a number; the alphas send the string
// "progress-test-1") before the result, in both eras.
func TestRawProgressToken(t *testing.T) {
	for _, token := range []any{"progress-test-1", 7} {
		want, _ := json.Marshal(token)
		t.Run("legacy/"+string(want), func(t *testing.T) {
			c := newRaw(t, newTestServer(t))
			c.initialize(`{"sampling":{},"elicitation":{}}`)
			res, before := c.call("tools/call", tool("test_tool_with_progress", "_meta", map[string]any{"progressToken": token}))
			checkProgress(t, res, before, string(want))
		})
		t.Run("modern/"+string(want), func(t *testing.T) {
			c := newRaw(t, newTestServer(t))
			res, before := c.call("tools/call", modern(tool("test_tool_with_progress"), harnessCaps, "progressToken", token))
			checkProgress(t, res, before, string(want))
			if rt := resultType(t, res); rt != "complete" {
				t.Errorf("resultType %q", rt)
			}
		})
	}
}

func checkProgress(t *testing.T, res wireMsg, before []wireMsg, token string) {
	t.Helper()
	if res.Error != nil {
		t.Fatalf("error %+v", res.Error)
	}
	if len(before) != 3 {
		t.Fatalf("frames before the result: %v, want 3 progress notifications", methods(before))
	}
	for i, f := range before {
		var p struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			Progress      float64         `json:"progress"`
			Total         float64         `json:"total"`
		}
		if err := json.Unmarshal(f.Params, &p); err != nil {
			t.Fatal(err)
		}
		if f.Method != "notifications/progress" || string(p.ProgressToken) != token || p.Progress != float64(50*i) || p.Total != 100 {
			t.Errorf("frame %d: %s, want progress %d/100 for token %s", i, f.raw, 50*i, token)
		}
	}
}

// TestRawLogging checks which requests receive log messages:
// test_tool_with_logging after setLevel debug (3) and after setLevel
// warning (0) in a session; test_logging_tool without a log level (none,
// the server-stateless probe) and with one (2) in the modern era.
func TestRawLogging(t *testing.T) {
	c := newRaw(t, newTestServer(t))
	c.initialize(`{}`)
	if res, _ := c.call("logging/setLevel", map[string]any{"level": "debug"}); string(res.Result) != "{}" {
		t.Errorf("setLevel result %s, want exactly {}", res.Result)
	}
	res, before := c.call("tools/call", tool("test_tool_with_logging"))
	if res.Error != nil || count(before, "notifications/message") != 3 || len(before) != 3 {
		t.Errorf("debug level: frames %v before %s", methods(before), res.raw)
	}
	for _, f := range before {
		var p mcp.LoggingMessageParams
		if err := json.Unmarshal(f.Params, &p); err != nil || p.Level != mcp.LevelInfo {
			t.Errorf("log %s", f.raw)
		}
	}
	c.call("logging/setLevel", map[string]any{"level": "warning"})
	if _, before := c.call("tools/call", tool("test_tool_with_logging")); len(before) != 0 {
		t.Errorf("warning level: frames %v", methods(before))
	}

	m := newRaw(t, newTestServer(t))
	res, before = m.call("tools/call", modern(tool("test_logging_tool"), `{}`))
	if rt := resultType(t, res); rt != "complete" || len(before) != 0 {
		t.Errorf("no log level: %v before a %q result", methods(before), rt)
	}
	res, before = m.call("tools/call", modern(tool("test_logging_tool"), `{}`, "io.modelcontextprotocol/logLevel", "info"))
	if rt := resultType(t, res); rt != "complete" || count(before, "notifications/message") != 2 || len(before) != 2 {
		t.Errorf("log level info: %v before a %q result", methods(before), rt)
	}
}

// TestRawMissingCapability checks probe 10 of server-stateless: -32021
// with data.requiredCapabilities.sampling a plain object, the request id
// echoed.
func TestRawMissingCapability(t *testing.T) {
	c := newRaw(t, newTestServer(t))
	id := c.request("tools/call", modern(tool("test_missing_capability"), `{}`))
	res, before := c.await(id)
	if len(before) != 0 || res.Error == nil || res.Error.Code != -32021 {
		t.Fatalf("got %s after %v, want error -32021", res.raw, methods(before))
	}
	if got := compactJSON(t, res.Error.Data); got != `{"requiredCapabilities":{"sampling":{}}}` {
		t.Errorf("data %s", got)
	}
	if string(res.ID) != fmt.Sprint(id) {
		t.Errorf("id %s, want %d", res.ID, id)
	}
	// With sampling declared the tool asks for it instead.
	res, _ = c.call("tools/call", modern(tool("test_missing_capability"), `{"sampling":{}}`))
	if rt := resultType(t, res); rt != "input_required" {
		t.Errorf("with sampling: resultType %q", rt)
	}
}

// TestRawStreamingElicitation checks probe 13 of server-stateless: a
// non-error answer, and no request on the response stream.
func TestRawStreamingElicitation(t *testing.T) {
	c := newRaw(t, newTestServer(t))
	res, before := c.call("tools/call", modern(tool("test_streaming_elicitation"), `{"elicitation":{}}`))
	for _, f := range before {
		if !strings.HasPrefix(f.Method, "notifications/") {
			t.Errorf("frame on the stream: %s", f.raw)
		}
	}
	ir := decodeIRR(t, res)
	if q, ok := ir.InputRequests["confirmation"]; !ok || q.Method != "elicitation/create" || len(ir.InputRequests) != 1 {
		t.Errorf("input requests %+v", ir.InputRequests)
	}
}

// TestRawModernEnvelope checks the modern results of the content, list
// and caching scenarios: resultType everywhere, ttlMs and cacheScope on
// cacheable results, serverInfo in _meta.
func TestRawModernEnvelope(t *testing.T) {
	c := newRaw(t, newTestServer(t))
	for _, r := range []struct {
		method    string
		params    map[string]any
		cacheable bool
	}{
		{"server/discover", nil, true},
		{"tools/list", nil, true},
		{"prompts/list", nil, true},
		{"resources/list", nil, true},
		{"resources/templates/list", nil, true},
		{"resources/read", map[string]any{"uri": "test://static-text"}, true},
		{"tools/call", map[string]any{"name": "test_simple_text"}, false}, // no arguments member
		{"prompts/get", map[string]any{"name": "test_simple_prompt"}, false},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": "test"}}, false},
	} {
		res, _ := c.call(r.method, modern(r.params, harnessCaps))
		var got struct {
			ResultType string          `json:"resultType"`
			TTLMs      *int64          `json:"ttlMs"`
			CacheScope string          `json:"cacheScope"`
			Meta       json.RawMessage `json:"_meta"`
		}
		if res.Error != nil || json.Unmarshal(res.Result, &got) != nil {
			t.Errorf("%s: %s", r.method, res.raw)
			continue
		}
		if got.ResultType != "complete" || !strings.Contains(string(got.Meta), `"io.modelcontextprotocol/serverInfo"`) {
			t.Errorf("%s: %s", r.method, res.Result)
		}
		if r.cacheable && (got.TTLMs == nil || *got.TTLMs < 0 || (got.CacheScope != "public" && got.CacheScope != "private")) {
			t.Errorf("%s: no valid caching hints in %s", r.method, res.Result)
		}
	}
	// Legacy methods are unknown to a modern request (HTTP maps this to 404).
	for _, method := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		res, _ := c.call(method, modern(map[string]any{}, `{}`))
		if res.Error == nil || res.Error.Code != -32601 {
			t.Errorf("modern %s: %s, want -32601", method, res.raw)
		}
	}
}

// TestRawLegacyEmptyResults checks logging-set-level and ping: exactly {}.
func TestRawLegacyEmptyResults(t *testing.T) {
	c := newRaw(t, newTestServer(t))
	c.initialize(`{"sampling":{},"elicitation":{}}`)
	for _, method := range []string{"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		params := map[string]any{"level": "info", "uri": watchedURI}
		if res, _ := c.call(method, params); string(res.Result) != "{}" {
			t.Errorf("%s: %s, want the result {}", method, res.raw)
		}
	}
}

// TestRawListen checks the listen probes of server-stateless: the ack
// comes first; every notification carries the subscription id; filters
// are honoured; the triggers reach the listeners that asked. It also
// checks resource updates on a listen stream.
func TestRawListen(t *testing.T) {
	srv := newTestServer(t)
	c := newRaw(t, srv)
	// Closing the server ends the open listens with a result; closing
	// only the connection would leave them running until the session's
	// drain timeout.
	t.Cleanup(func() { srv.Close() })
	listen := func(filter map[string]any) int64 {
		t.Helper()
		id := c.request("subscriptions/listen", modern(map[string]any{"notifications": filter}, harnessCaps))
		ack := c.recv()
		if ack.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("first frame %s, want the ack", ack.raw)
		}
		checkSubscriptionID(t, ack, id)
		return id
	}
	tools := listen(map[string]any{"toolsListChanged": true})
	prompts := listen(map[string]any{"promptsListChanged": true})
	watched := listen(map[string]any{"resourceSubscriptions": []string{watchedURI}})

	for _, trigger := range []struct {
		tool, notification string
		listener           int64
	}{
		{"test_trigger_tool_change", "notifications/tools/list_changed", tools},
		{"test_trigger_prompt_change", "notifications/prompts/list_changed", prompts},
		{"test_trigger_resource_update", "notifications/resources/updated", watched},
	} {
		res, frames := c.call("tools/call", modern(tool(trigger.tool), harnessCaps))
		if rt := resultType(t, res); rt != "complete" {
			t.Errorf("%s: resultType %q", trigger.tool, rt)
		}
		// The server does not write notifications in the goroutine of
		// the change: this one comes before or after the response.
		if len(frames) == 0 {
			frames = append(frames, c.recv())
		}
		if len(frames) != 1 || frames[0].Method != trigger.notification {
			t.Errorf("%s: frames %v, want one %s", trigger.tool, methods(frames), trigger.notification)
			continue
		}
		checkSubscriptionID(t, frames[0], trigger.listener)
	}
}

// checkSubscriptionID checks that a notification is tagged with the id of
// the listen request.
func checkSubscriptionID(t *testing.T, m wireMsg, id int64) {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || string(p.Meta["io.modelcontextprotocol/subscriptionId"]) != fmt.Sprint(id) {
		t.Errorf("%s: not tagged with subscription %d", m.raw, id)
	}
}
