package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Raw HTTP for the tests that check what goes on the wire: a client of
// the endpoint (one instance, or the front of a cluster) that posts
// JSON-RPC text and reads the answer, JSON or SSE.

// maxBody bounds what a raw exchange reads.
const maxBody = 1 << 20

// rawClient posts to url through hc.
type rawClient struct {
	url string
	hc  *http.Client
}

// An sseEvent is an event of an SSE stream, or the JSON body of an
// answer (no id).
type sseEvent struct {
	id   string
	data string
}

// rawReply is what an exchange got.
type rawReply struct {
	status int
	header http.Header
	events []sseEvent
	body   string // as read, bounded by maxBody
}

// do sends one request, with the headers hdr, and reads its answer
// until it ends, or for at most 10 s.
func (c *rawClient) do(ctx context.Context, method string, hdr http.Header, body string) (*rawReply, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	r := &rawReply{status: resp.StatusCode, header: resp.Header, body: string(b)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r.events = parseSSE(b)
	} else if len(bytes.TrimSpace(b)) > 0 {
		r.events = []sseEvent{{data: string(b)}}
	}
	return r, nil
}

// parseSSE reads the events of an SSE body: id and data fields, an event
// ending at a blank line.
func parseSSE(b []byte) []sseEvent {
	var out []sseEvent
	var ev sseEvent
	var data []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), maxBody)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if ev.id != "" || len(data) > 0 {
				ev.data = strings.Join(data, "\n")
				out = append(out, ev)
			}
			ev, data = sseEvent{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id = value
		case "data":
			data = append(data, value)
		}
	}
	if ev.id != "" || len(data) > 0 {
		ev.data = strings.Join(data, "\n")
		out = append(out, ev)
	}
	return out
}

// legacyHeader returns the headers of a 2025-11-25 request of session
// sid ("" for none).
func legacyHeader(sid string) http.Header {
	h := http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}
	if sid != "" {
		h["Mcp-Session-Id"] = []string{sid}
	}
	return h
}

// modernHeader returns the headers of a 2026-07-28 request.
func modernHeader(method, name string) http.Header {
	h := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}}
	if name != "" {
		h["Mcp-Name"] = []string{name}
	}
	return h
}

// modernMeta is the _meta of a 2026-07-28 request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// initialize opens a 2025-11-25 session, its initialize request numbered
// id, and returns the session's id.
func (c *rawClient) initialize(ctx context.Context, id int) (string, error) {
	r, err := c.do(ctx, http.MethodPost, legacyHeader(""), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, id))
	if err != nil {
		return "", err
	}
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		return "", fmt.Errorf("initialize: %d %q", r.status, r.body)
	}
	if r, err = c.do(ctx, http.MethodPost, legacyHeader(sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return "", err
	}
	if r.status != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: %d %q", r.status, r.body)
	}
	return sid, nil
}

// rpcReply is a JSON-RPC response as decoded.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// responses decodes the JSON-RPC responses among the events (requests
// and notifications of the server are left out).
func responses(events []sseEvent) ([]rpcReply, error) {
	var out []rpcReply
	for _, ev := range events {
		if ev.data == "" {
			continue // a priming event
		}
		var probe struct {
			Method *string `json:"method"`
		}
		if err := json.Unmarshal([]byte(ev.data), &probe); err != nil {
			return nil, fmt.Errorf("an event that is not JSON: %q: %v", ev.data, err)
		}
		if probe.Method != nil {
			continue
		}
		var r rpcReply
		if err := json.Unmarshal([]byte(ev.data), &r); err != nil {
			return nil, fmt.Errorf("a response that cannot be read: %q: %v", ev.data, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// TestUnknownLastEventID: a GET whose Last-Event-ID the server does not
// know in the session (never issued, another session's, or malformed
// for the store) gets 400 from three instances on Redis, as from one
// instance, on every instance, and never another session's events.
// Three instances answered 500 "the event store failed": the handler
// recognized only its own EventStore's error for an unknown event, not
// the shared store's.
func TestUnknownLastEventID(t *testing.T) {
	single := startInstance(t, "") // no store
	f := startCluster(t, 3)
	ctx := within(t, 90*time.Second)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	for _, target := range []struct {
		name  string
		url   string
		insts int
	}{{"one instance", single.url, 1}, {"three instances on Redis", f.url, 3}} {
		t.Run(target.name, func(t *testing.T) {
			c := &rawClient{url: target.url, hc: &http.Client{Transport: tr}}
			a, err := c.initialize(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.initialize(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			const secret = "secret-of-session-a"
			r, err := c.do(ctx, http.MethodPost, legacyHeader(a), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"`+secret+`"}}}`)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, ev := range r.events {
				if ev.id != "" {
					ids = append(ids, ev.id)
				}
			}
			if r.status != http.StatusOK || len(ids) == 0 || !strings.Contains(r.body, secret) {
				t.Fatalf("the call of session a: %d, event ids %v: %q", r.status, ids, r.body)
			}
			lastEventID := func(sid, last string) http.Header {
				h := legacyHeader(sid)
				h.Set("Last-Event-ID", last)
				return h
			}
			// Session a resumes its own stream: its events come (so that
			// the secret would show, had b got them).
			r, err = c.do(ctx, http.MethodGet, lastEventID(a, ids[0]), "")
			if err != nil {
				t.Fatal(err)
			}
			if r.status != http.StatusOK || !strings.Contains(r.body, secret) {
				t.Fatalf("session a resuming after %s: %d %q", ids[0], r.status, r.body)
			}
			unknown := append(ids, "0_nope", "0_0-1", "999_1", "zz-9_1-0", "nounderscore")
			for _, last := range unknown {
				for range target.insts { // round robin: each instance once
					r, err := c.do(ctx, http.MethodGet, lastEventID(b, last), "")
					if err != nil {
						t.Fatal(err)
					}
					if strings.Contains(r.body, secret) {
						t.Fatalf("session b resuming after %q got session a's events: %d %q", last, r.status, r.body)
					}
					if r.status != http.StatusBadRequest {
						t.Errorf("session b resuming after %q: %d %q, want 400", last, r.status, r.body)
					}
				}
			}
		})
	}
}
