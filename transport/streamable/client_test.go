package streamable_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestClientJSONAndSSE: the answer to a call may be a JSON body or an SSE
// stream, whose priming event (id, retry, no data) is skipped and whose
// notifications come out before the response, in order.
func TestClientJSONAndSSE(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := clNewMock(t, func(m *clMock) {
			m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
				if msg.Method != "tools/call" {
					return false
				}
				send := clSSE(w)
				send("id: 1\nretry: 100\ndata: \n\n")
				send(": keepalive\n\n")
				send("id: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n")
				send("event: other\ndata: ignored\n\n")
				send("id: 3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + string(msg.ID) + ",\"result\":{\"content\":[]}}\n\n")
				return true
			}
		})
		c := m.dial(t, nil)
		if err := clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+clMeta+`}}`); err != nil {
			t.Fatal(err)
		}
		clWant(t, clRecv(t, c), `"id":1,"result":{"tools":[]}`)
		if err := clSend(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x",`+clMeta+`}}`); err != nil {
			t.Fatal(err)
		}
		clWant(t, clRecv(t, c), `"method":"notifications/progress"`, `"progress":1`)
		clWant(t, clRecv(t, c), `"id":2,"result":{"content":[]}`)
		clExpectQuiet(t, c, 50*time.Millisecond)
	})
}

// TestClientLegacyHeaders: the protocol version is learned from the
// initialize result and the session id from its response; both go on
// every later request (POST, GET, DELETE), with the user's headers; the
// initialize request itself carries neither.
func TestClientLegacyHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := clNewMock(t, func(m *clMock) {
			m.Sessions = true
			m.Version = "2025-03-26"
			m.SSE = true
			m.GET = func(w http.ResponseWriter, r *http.Request) {
				clSSE(w)("id: g1\nretry: 100\ndata: \n\n")
				<-r.Context().Done()
			}
			m.DELETE = func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }
		})
		c := m.dial(t, &streamable.ClientOptions{Header: http.Header{"X-Custom": {"yes"}}})
		clWant(t, clInitialize(t, c, "2025-11-25"), `"protocolVersion":"2025-03-26"`)
		if c.SessionID() != "sess-1" || c.ProtocolVersion() != "2025-03-26" {
			t.Fatalf("session %q version %q", c.SessionID(), c.ProtocolVersion())
		}
		if err := clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); err != nil {
			t.Fatal(err)
		}
		clWant(t, clRecv(t, c), `"id":1`, `"tools":[]`)
		m.waitFor("the standalone GET", func() bool { return len(m.requests("GET", "")) == 1 })
		c.Close()
		m.waitFor("DELETE", func() bool { return len(m.requests("DELETE", "")) == 1 })

		for i, h := range m.requests("", "") {
			if h.Header.Get("X-Custom") != "yes" {
				t.Errorf("request %d (%s %s) lacks the custom header", i, h.Method, h.Msg.Method)
			}
			if h.Method == "POST" {
				if h.Header.Get("Content-Type") != "application/json" || h.Header.Get("Accept") != "application/json, text/event-stream" {
					t.Errorf("POST %s: Content-Type %q, Accept %q", h.Msg.Method, h.Header.Get("Content-Type"), h.Header.Get("Accept"))
				}
			}
			if h.Msg.Method == "initialize" {
				if v, s := h.Header.Get("Mcp-Protocol-Version"), h.Header.Get("Mcp-Session-Id"); v != "" || s != "" {
					t.Errorf("initialize carries version %q, session %q", v, s)
				}
				continue
			}
			if v, s := h.Header.Get("Mcp-Protocol-Version"), h.Header.Get("Mcp-Session-Id"); v != "2025-03-26" || s != "sess-1" {
				t.Errorf("%s %s: version %q, session %q", h.Method, h.Msg.Method, v, s)
			}
			if h.Header.Get("Mcp-Method") != "" {
				t.Errorf("legacy %s carries Mcp-Method", h.Msg.Method)
			}
		}
		if g := m.requests("GET", ""); g[0].Header.Get("Accept") != "text/event-stream" || g[0].Header.Get("Last-Event-ID") != "" {
			t.Errorf("standalone GET headers: %v", g[0].Header)
		}
	})
}

// TestClientModernHeaders: a modern request carries MCP-Protocol-Version
// from its _meta, Mcp-Method, Mcp-Name, and Mcp-Param headers for the
// arguments annotated with x-mcp-header (in the schemas the MCP client
// gives the conn), with the base64 sentinel for unsafe values and no
// header for null values; tools/list results are delivered as they came
// (judging tools is the MCP client's job); no session id is sent even if
// the server hands one out.
func TestClientModernHeaders(t *testing.T) {
	const validSchema = `{"type":"object","properties":{
   "region":{"type":"string","x-mcp-header":"Region"},
   "priority":{"type":"integer","x-mcp-header":"Priority"},
   "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
   "debug":{"type":"boolean","x-mcp-header":"Debug"},
   "non_ascii":{"type":"string","x-mcp-header":"NonAscii"},
   "padded":{"type":"string","x-mcp-header":"Padded"},
   "inner":{"type":"string","x-mcp-header":"Inner"},
   "empty":{"type":"string","x-mcp-header":"Empty"},
   "nested":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
   "float_val":{"type":"number"},
   "query":{"type":"string"}}}`
	m := clNewMock(t, func(m *clMock) {
		m.Tools = `[
 {"name":"valid","inputSchema":` + validSchema + `},
 {"name":"on_number","inputSchema":{"type":"object","properties":{"f":{"type":"number","x-mcp-header":"F"}}}},
 {"name":"no_schema_params","inputSchema":{"type":"object"}}]`
		m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
			w.Header().Set("Mcp-Session-Id", "modern-servers-should-not-send-this")
			return false
		}
	})
	c := m.dial(t, nil)
	c.SetToolSchemas(clSchemas{"valid": json.RawMessage(validSchema)})
	if err := clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+clMeta+`}}`); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Result struct {
			Tools []struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(clRecv(t, c)), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "valid,on_number,no_schema_params" {
		t.Errorf("tools delivered: %v, want all three, as listed", names)
	}
	args := `{"region":"us-west1","priority":42,"verbose":null,"debug":true,"non_ascii":"Hello, 世界","padded":" us-west1","inner":"us west 1","empty":"","nested":{"zone":"z1"},"float_val":3.14,"query":"SELECT 1"}`
	if err := clSend(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"valid","arguments":`+args+`,`+clMeta+`}}`); err != nil {
		t.Fatal(err)
	}
	clWant(t, clRecv(t, c), `"id":2`, `called valid`)
	if err := clSend(t, c, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///path/to/file%20name.txt",`+clMeta+`}}`); err != nil {
		t.Fatal(err)
	}
	clWant(t, clRecv(t, c), `"id":3`)
	if c.SessionID() != "" {
		t.Errorf("a modern conn took the session id %q", c.SessionID())
	}

	call := m.requests("POST", "tools/call")[0].Header
	want := map[string]string{
		"Mcp-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "valid",
		"Mcp-Param-Region":     "us-west1",
		"Mcp-Param-Priority":   "42",
		"Mcp-Param-Debug":      "true",
		"Mcp-Param-Nonascii":   "=?base64?SGVsbG8sIOS4lueVjA==?=",
		"Mcp-Param-Padded":     "=?base64?IHVzLXdlc3Qx?=",
		"Mcp-Param-Inner":      "us west 1",
		"Mcp-Param-Zone":       "z1",
		"Mcp-Session-Id":       "",
		"Mcp-Param-Verbose":    "",
		"Mcp-Param-Float_val":  "",
		"Mcp-Param-Query":      "",
	}
	for k, v := range want {
		if got := call.Get(k); got != v {
			t.Errorf("tools/call header %s = %q, want %q", k, got, v)
		}
	}
	if vs, ok := call["Mcp-Param-Empty"]; !ok || len(vs) != 1 || vs[0] != "" {
		t.Errorf("Mcp-Param-Empty = %q (present %v), want present and empty", vs, ok)
	}
	read := m.requests("POST", "resources/read")[0].Header
	if read.Get("Mcp-Name") != "file:///path/to/file%20name.txt" || read.Get("Mcp-Method") != "resources/read" {
		t.Errorf("resources/read headers: %v", read)
	}
	list0 := m.requests("POST", "tools/list")[0].Header
	if list0.Get("Mcp-Name") != "" || list0.Get("Mcp-Method") != "tools/list" || list0.Get("Mcp-Protocol-Version") != "2026-07-28" {
		t.Errorf("tools/list headers: %v", list0)
	}
}

// clSchemas is a transport.ToolSchemaLister of fixed schemas.
type clSchemas map[string]json.RawMessage

func (l clSchemas) ToolInputSchema(name string) (json.RawMessage, bool) {
	s, ok := l[name]
	return s, ok
}

// TestClientModernNotifications: without a legacy session, a notification
// without _meta is not POSTed (the request-metadata scenario fails any
// POST without _meta), and cancelling a modern call closes its stream
// instead of POSTing notifications/cancelled.
func TestClientModernNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		closed := make(chan struct{})
		m := clNewMock(t, func(m *clMock) {
			m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
				if msg.Method != "tools/call" {
					return false
				}
				send := clSSE(w)
				send("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n")
				<-r.Context().Done() // the client closes the stream
				close(closed)
				return true
			}
		})
		c := m.dial(t, nil)
		if err := clSend(t, c, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); err == nil {
			t.Error("a notification without _meta was sent outside a legacy session")
		}
		if err := clSend(t, c, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow",`+clMeta+`}}`); err != nil {
			t.Fatal(err)
		}
		clWant(t, clRecv(t, c), `notifications/progress`)
		if err := clSend(t, c, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"bored"}}`); err != nil {
			t.Fatal(err)
		}
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatal("the stream of the cancelled call stayed open")
		}
		clExpectQuiet(t, c, 50*time.Millisecond) // no error response for the abandoned call
		if n := len(m.requests("POST", "")); n != 1 {
			t.Errorf("%d POSTs, want only the call", n)
		}
		// A cancellation of a call no longer in flight is dropped quietly.
		if err := clSend(t, c, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`); err != nil {
			t.Errorf("late cancellation: %v", err)
		}
	})
}

// TestClientLegacyCancel: cancelling a legacy call POSTs
// notifications/cancelled in the session, then closes the call's stream;
// the abandoned call gets no answer.
func TestClientLegacyCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		closed := make(chan struct{})
		m := clNewMock(t, func(m *clMock) {
			m.Sessions = true
			m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
				if msg.Method != "tools/call" {
					return false
				}
				clSSE(w)("id: 1\nretry: 10\ndata: \n\n")
				<-r.Context().Done()
				close(closed)
				return true
			}
		})
		c := m.dial(t, &streamable.ClientOptions{DisableStandaloneStream: true})
		clInitialize(t, c, "2025-11-25")
		clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
		m.waitFor("the call", func() bool { return len(m.requests("POST", "tools/call")) == 1 })
		if err := clSend(t, c, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`); err != nil {
			t.Fatal(err)
		}
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatal("the stream of the cancelled call stayed open")
		}
		clExpectQuiet(t, c, 100*time.Millisecond)
		cancels := m.requests("POST", "notifications/cancelled")
		if len(cancels) != 1 || cancels[0].Header.Get("Mcp-Session-Id") != "sess-1" {
			t.Fatalf("cancellations: %+v", cancels)
		}
		if n := len(m.requests("GET", "")); n != 0 {
			t.Errorf("%d GETs: a cancelled call was resumed", n)
		}
	})
}

// TestClientHTTPErrors: an HTTP error answer to a call becomes a JSON-RPC
// error response for it: the body's error when it is one (with the call's
// id), or one that names the status and quotes the body.
func TestClientHTTPErrors(t *testing.T) {
	m := clNewMock(t, func(m *clMock) {
		m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
			switch msg.Method {
			case "server/discover":
				clWriteJSON(w, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2099-01-01"}}}`)
			case "tools/list":
				http.Error(w, "the database\nis down", http.StatusInternalServerError)
			case "tools/call":
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(200)
				w.Write([]byte("<html>not MCP</html>"))
			case "ping":
				clWriteJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{},"extra":1}`)
			case "notifications/x":
				http.Error(w, "no", http.StatusForbidden)
			case "resources/list":
				w.WriteHeader(http.StatusAccepted)
			case "resources/templates/list":
				panic(http.ErrAbortHandler) // the connection is cut before any answer
			default:
				return false
			}
			return true
		}
	})
	c := m.dial(t, nil)
	clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":1`, `"code":-32022`, `"supported":["2026-07-28"]`)
	clSend(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":2`, `"code":-32603`, `HTTP 500 Internal Server Error`, `the database is down`, `"data":{"httpStatus":500}`)
	clSend(t, c, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x",`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":3`, `neither JSON nor an event stream`)
	clSend(t, c, `{"jsonrpc":"2.0","id":4,"method":"ping","params":{`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":4`, `not a valid JSON-RPC message`)
	clSend(t, c, `{"jsonrpc":"2.0","id":5,"method":"resources/list","params":{`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":5`, `HTTP 202 Accepted without an answer`)
	clSend(t, c, `{"jsonrpc":"2.0","id":6,"method":"resources/templates/list","params":{`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":6`, `"code":-32000`, `resources/templates/list (id 6)`)
	err := clSend(t, c, `{"jsonrpc":"2.0","method":"notifications/x","params":{`+clMeta+`}}`)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "HTTP 403") {
		t.Errorf("refused notification: %v", err)
	}
}

// TestClientSessionExpired: a 404 to a request of a legacy session ends
// the session: the call gets CodeSessionNotFound, the session id and
// version are forgotten, and the next initialize starts a new session.
func TestClientSessionExpired(t *testing.T) {
	m := clNewMock(t, func(m *clMock) { m.Sessions = true })
	c := m.dial(t, &streamable.ClientOptions{DisableStandaloneStream: true})
	clInitialize(t, c, "2025-11-25")
	if c.SessionID() != "sess-1" {
		t.Fatalf("session %q", c.SessionID())
	}
	m.expire()
	clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var resp struct {
		ID    int
		Error struct {
			Code    int
			Message string
			Data    struct{ HTTPStatus int }
		}
	}
	json.Unmarshal([]byte(clRecv(t, c)), &resp)
	if resp.ID != 1 || resp.Error.Code != int(streamable.CodeSessionNotFound) || resp.Error.Data.HTTPStatus != 404 || !strings.Contains(resp.Error.Message, "initialize again") {
		t.Fatalf("got %+v", resp)
	}
	if c.SessionID() != "" || c.ProtocolVersion() != "" {
		t.Fatalf("after 404: session %q version %q", c.SessionID(), c.ProtocolVersion())
	}
	clInitialize(t, c, "2025-11-25")
	if c.SessionID() != "sess-2" {
		t.Fatalf("new session %q", c.SessionID())
	}
	clSend(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	clWant(t, clRecv(t, c), `"id":2,"result"`)
	inits := m.requests("POST", "initialize")
	if len(inits) != 2 || inits[1].Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("the second initialize carried session %q", inits[1].Header.Get("Mcp-Session-Id"))
	}
}

// TestClientStandaloneStream: after notifications/initialized the client
// opens the GET stream; the server's requests and notifications on it come
// out of Read, and the client's responses are POSTed with the session.
func TestClientStandaloneStream(t *testing.T) {
	m := clNewMock(t, func(m *clMock) {
		m.Sessions = true
		m.GET = func(w http.ResponseWriter, r *http.Request) {
			send := clSSE(w)
			send("id: s1\nretry: 100\ndata: \n\n")
			send("id: s2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
			send("id: s3\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n")
			<-r.Context().Done()
		}
	})
	c := m.dial(t, nil)
	clInitialize(t, c, "2025-11-25")
	clWant(t, clRecv(t, c), `notifications/tools/list_changed`)
	clWant(t, clRecv(t, c), `"id":"srv-1","method":"ping"`)
	if err := clSend(t, c, `{"jsonrpc":"2.0","id":"srv-1","result":{}}`); err != nil {
		t.Fatal(err)
	}
	var resp []clHit
	for _, h := range m.requests("POST", "") {
		if string(h.Msg.ID) == `"srv-1"` {
			resp = append(resp, h)
		}
	}
	if len(resp) != 1 || resp[0].Header.Get("Mcp-Session-Id") != "sess-1" {
		t.Fatalf("the response to the server's ping: %+v", resp)
	}
}

// TestClientStandaloneReconnects: when the standalone stream ends, the
// client waits the retry delay and reconnects with Last-Event-ID; server
// errors are retried a bounded number of times.
func TestClientStandaloneReconnects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		gets := 0
		m := clNewMock(t, func(m *clMock) {
			m.Sessions = true
			m.GET = func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				gets++
				n := gets
				mu.Unlock()
				switch {
				case n == 1:
					send := clSSE(w)
					send("id: s1\nretry: 20\ndata: \n\n")
					send("id: s2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"one\"}}\n\n")
				case n == 2:
					send := clSSE(w)
					send("id: s3\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"two\"}}\n\n")
				default:
					http.Error(w, "overloaded", http.StatusServiceUnavailable)
				}
			}
		})
		c := m.dial(t, &streamable.ClientOptions{MaxReconnects: 2, ReconnectDelay: 10 * time.Millisecond})
		clInitialize(t, c, "2025-11-25")
		clWant(t, clRecv(t, c), `"data":"one"`)
		clWant(t, clRecv(t, c), `"data":"two"`)
		m.waitFor("the attempts to end", func() bool { return len(m.requests("GET", "")) == 5 })
		time.Sleep(10 * time.Second) // fake time: a further attempt would have come by now
		g := m.requests("GET", "")
		if len(g) != 5 {
			t.Fatalf("%d GETs, want 5: two streams, then a failure of the second and two retries", len(g))
		}
		for i, want := range []string{"", "s2", "s3", "s3", "s3"} {
			if got := g[i].Header.Get("Last-Event-ID"); got != want {
				t.Errorf("GET %d: Last-Event-ID %q, want %q", i+1, got, want)
			}
		}
	})
}

// TestClientStandaloneRefused: a server without a standalone stream (405)
// is asked once, and the connection goes on.
func TestClientStandaloneRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := clNewMock(t, func(m *clMock) { m.Sessions = true })
		c := m.dial(t, nil)
		clInitialize(t, c, "2025-11-25")
		clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		clWant(t, clRecv(t, c), `"id":1,"result"`)
		time.Sleep(10 * time.Second) // fake time: another GET would have come by now
		if n := len(m.requests("GET", "")); n != 1 {
			t.Errorf("%d GETs after a 405, want 1", n)
		}
	})
}

// TestClientCloseDeletes: Close ends the session with DELETE (405 is
// fine), aborts the calls in flight and makes Read return io.EOF.
func TestClientCloseDeletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := clNewMock(t, func(m *clMock) {
			m.Sessions = true
			m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
				if msg.Method != "tools/call" {
					return false
				}
				clSSE(w)("id: 1\ndata: \n\n")
				<-r.Context().Done()
				return true
			}
		})
		c := m.dial(t, &streamable.ClientOptions{DisableStandaloneStream: true})
		clInitialize(t, c, "2025-11-25")
		clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forever"}}`)
		m.waitFor("the call", func() bool { return len(m.requests("POST", "tools/call")) == 1 })
		done := make(chan error, 1)
		go func() {
			_, err := c.Read(context.Background())
			done <- err
		}()
		c.Close()
		if err := <-done; err == nil || err.Error() != "EOF" {
			t.Errorf("Read after Close: %v", err)
		}
		d := m.requests("DELETE", "")
		if len(d) != 1 || d[0].Header.Get("Mcp-Session-Id") != "sess-1" {
			t.Fatalf("DELETE requests: %+v", d)
		}
		if err := clSend(t, c, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("Write after Close: %v", err)
		}
	})
}

// TestClientLimits: a JSON answer or an SSE event over the size limit
// fails its call with a clear error.
func TestClientLimits(t *testing.T) {
	big := strings.Repeat("x", 2000)
	m := clNewMock(t, func(m *clMock) {
		m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
			resp := `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"big":"` + big + `"}}`
			switch msg.Method {
			case "tools/call": // over the limit of a message
				clSSE(w)("id: 1\ndata: " + resp + "\n\n")
				return true
			case "prompts/get": // over the limit of an event, too
				clSSE(w)("id: 1\ndata: " + strings.Repeat(resp, 4) + "\n\n")
				return true
			}
			clWriteJSON(w, 200, resp)
			return true
		}
	})
	c := m.dial(t, &streamable.ClientOptions{Limits: jsonrpc.Limits{MaxMessageSize: 1000}})
	clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":1`, `exceeds the limit of 1000 bytes`)
	clSend(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x",`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":2`, `ended without its response`, `exceeds the limit of 1000 bytes`)
	clSend(t, c, `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"x",`+clMeta+`}}`)
	clWant(t, clRecv(t, c), `"id":3`, `sent an event over the limit`)
}

// TestClientBackpressure: with a queue of one message, a stream of many
// events is read only as fast as the caller reads, and nothing is lost
// or reordered.
func TestClientBackpressure(t *testing.T) {
	const n = 200
	m := clNewMock(t, func(m *clMock) {
		m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
			send := clSSE(w)
			for i := range n {
				send("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":" + itoa(i) + "}}\n\n")
			}
			send("data: {\"jsonrpc\":\"2.0\",\"id\":" + string(msg.ID) + ",\"result\":{}}\n\n")
			return true
		}
	})
	c := m.dial(t, &streamable.ClientOptions{MaxQueued: 1})
	clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",`+clMeta+`}}`)
	for i := range n {
		clWant(t, clRecv(t, c), `"progress":`+itoa(i)+`}`)
	}
	clWant(t, clRecv(t, c), `"id":1,"result":{}`)
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestClientBadURL: Connect checks the URL.
func TestClientBadURL(t *testing.T) {
	for _, u := range []string{"ftp://x", "http://", "::"} {
		if _, err := streamable.NewTransport(u, nil).Connect(context.Background()); err == nil {
			t.Errorf("Connect(%q) succeeded", u)
		}
	}
}
