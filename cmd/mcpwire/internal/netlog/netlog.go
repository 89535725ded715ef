// Package netlog records the HTTP exchanges of an MCP client: an
// http.RoundTripper that wraps the client's transport and reports, for
// each request, its method, URL, headers, status, timing, the JSON-RPC
// messages it carried both ways and, for an SSE answer, every event with
// its id (and the Last-Event-ID a request resumed from). mcpwire inspect
// shows them (its Network view) and mcpwire doctor lists them in its
// checklist.
//
// Secrets are masked as mcpwire servers masks them: the values of
// Authorization, Proxy-Authorization, Cookie, Set-Cookie and of the
// headers that name a key, token, secret or password (and any header a
// configuration file set) are "****"; a URL's password and query values
// too (config.MaskURL). The session id (Mcp-Session-Id) is shown: it is
// what the Network view is for.
//
// Everything is bounded: a request body is read for its messages up to
// MaxBodyScan bytes (the rest goes on unread by the log), an answer's
// JSON likewise, each SSE event's data is clipped to MaxEventData bytes,
// and at most MaxEvents events of one stream are reported, with a count
// of those left out; URLs and errors are clipped to MaxURL bytes, header
// values to MaxHeaderValue, and at most MaxHeaders header lines kept,
// each cut marked with "…".
package netlog

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/config"
)

// The bounds of what is reported of one exchange.
const (
	// MaxBodyScan bounds the part of a body read for its messages.
	MaxBodyScan = 1 << 20
	// MaxEventData bounds the data of one SSE event as reported.
	MaxEventData = 4 << 10
	// MaxEvents bounds the SSE events reported of one stream.
	MaxEvents = 1000
	// MaxURL bounds the URL of an exchange, and the error of one that
	// failed, as reported: the server chooses them (a redirect's
	// Location, the legacy transport's endpoint event).
	MaxURL = 4 << 10
	// MaxHeaderValue bounds one header value as reported.
	MaxHeaderValue = 1 << 10
	// MaxHeaders bounds the header lines reported of a request or an
	// answer (Go's client reads up to 10 MB of an answer's headers); the
	// others are counted (HeadersDropped).
	MaxHeaders = 100
)

// A Header is one header line, its value masked when it is a secret.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// A Message is a JSON-RPC message an exchange carried: its id (as JSON
// text, "" for a notification) and method ("" for a response).
type Message struct {
	ID     string `json:"id,omitempty"`
	Method string `json:"method,omitempty"`
}

// An Event is one thing that happened to an exchange: it began (the
// request), its answer's headers came, an SSE event came, or it ended.
type Event struct {
	Exchange int64   `json:"exchange"` // the exchange's id, from 1
	Kind     string  `json:"kind"`     // "request", "response", "sse", "end"
	Time     string  `json:"time"`     // RFC 3339, nanoseconds
	MS       float64 `json:"ms"`       // since the request began

	// request
	Method      string    `json:"method,omitempty"`
	URL         string    `json:"url,omitempty"`
	LastEventID string    `json:"lastEventId,omitempty"` // a resumption
	Sent        []Message `json:"sent,omitempty"`
	// request and response
	Headers        []Header `json:"headers,omitempty"`
	HeadersDropped int      `json:"headersDropped,omitempty"` // header lines beyond MaxHeaders, not reported
	Session        string   `json:"session,omitempty"`        // Mcp-Session-Id
	// response
	Status      int    `json:"status,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	// response (JSON) and sse
	Received []Message `json:"received,omitempty"`
	// sse
	EventID   string `json:"eventId,omitempty"`
	EventName string `json:"event,omitempty"`
	Data      string `json:"data,omitempty"`
	Clipped   bool   `json:"clipped,omitempty"` // Data was cut at MaxEventData
	// end
	Error   string `json:"error,omitempty"`
	Bytes   int64  `json:"bytes,omitempty"`   // of the answer's body, read
	Dropped int    `json:"dropped,omitempty"` // SSE events not reported (MaxEvents)
}

// A Transport is an http.RoundTripper that reports every exchange to
// Sink. Sink is called from the goroutines of the requests, in the order
// of each exchange's events; it must not block.
type Transport struct {
	// Next sends the requests: the client's own transport.
	Next http.RoundTripper
	// Sink receives the events.
	Sink func(*Event)
	// Secret, if not nil, names more headers whose values are masked
	// (those a configuration file set), in canonical form.
	Secret map[string]bool
	// IDs, if not nil, numbers the exchanges: the transports of one
	// log (the sessions of one inspection, one after another) share it,
	// so that an id names one exchange of the log. Nil: the Transport
	// numbers its own, from 1.
	IDs *atomic.Int64

	ids atomic.Int64
}

// RoundTrip sends req with t.Next, reporting the exchange.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ids := t.IDs
	if ids == nil {
		ids = &t.ids
	}
	id := ids.Add(1)
	start := time.Now()
	ev := &Event{Exchange: id, Kind: "request", Time: stamp(start), Method: req.Method, URL: clip(config.MaskURL(req.URL.String()), MaxURL),
		LastEventID: clipText(req.Header.Get("Last-Event-ID")), Session: clipText(req.Header.Get("Mcp-Session-Id"))}
	ev.Headers, ev.HeadersDropped = t.headers(req.Header)
	if req.Body != nil && req.Body != http.NoBody {
		head, err := io.ReadAll(io.LimitReader(req.Body, MaxBodyScan+1))
		if err == nil && len(head) <= MaxBodyScan {
			ev.Sent = Messages(head)
		}
		body := req.Body
		req = req.Clone(req.Context())
		req.Body = readCloser{io.MultiReader(bytes.NewReader(head), body), body}
	}
	t.Sink(ev)
	resp, err := t.Next.RoundTrip(req)
	if err != nil {
		t.Sink(&Event{Exchange: id, Kind: "end", Time: stamp(time.Now()), MS: since(start), Error: clip(err.Error(), MaxURL)})
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	rev := &Event{Exchange: id, Kind: "response", Time: stamp(time.Now()), MS: since(start), Status: resp.StatusCode,
		ContentType: clipText(ct), Session: clipText(resp.Header.Get("Mcp-Session-Id"))}
	rev.Headers, rev.HeadersDropped = t.headers(resp.Header)
	t.Sink(rev)
	w := &watch{t: t, id: id, start: start, body: resp.Body, sse: strings.HasPrefix(strings.ToLower(ct), "text/event-stream"),
		json: strings.Contains(strings.ToLower(ct), "json")}
	resp.Body = w
	return resp, nil
}

// readCloser reads from r and closes c.
type readCloser struct {
	io.Reader
	c io.Closer
}

// Close closes the body.
func (r readCloser) Close() error { return r.c.Close() }

// stamp formats a time as the events do.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// since returns the milliseconds since start.
func since(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }

// secretHeaders are the headers whose values are always masked.
var secretHeaders = map[string]bool{"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "Set-Cookie": true}

// IsSecret reports whether the value of the header name (canonical)
// is masked: the usual credentials, and any header whose name says it
// holds a key, a token, a secret or a password.
func IsSecret(name string) bool {
	if secretHeaders[name] {
		return true
	}
	l := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "password", "auth", "cookie", "credential"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// headers returns h as a sorted list, secrets masked and long values
// clipped, at most MaxHeaders lines of it, and how many lines were left
// out.
func (t *Transport) headers(h http.Header) ([]Header, int) {
	var out []Header
	for name, vals := range h {
		for _, v := range vals {
			if IsSecret(name) || t.Secret[name] {
				v = config.Mask
			}
			out = append(out, Header{Name: clipText(name), Value: clipText(v)})
		}
	}
	slices.SortStableFunc(out, func(a, b Header) int { return strings.Compare(a.Name, b.Name) })
	if len(out) > MaxHeaders {
		return slices.Clone(out[:MaxHeaders]), len(out) - MaxHeaders
	}
	return out, 0
}

// clipText clips a header's name or value at MaxHeaderValue bytes.
func clipText(s string) string { return clip(s, MaxHeaderValue) }

// clip cuts s at n bytes (on a character boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Messages returns the JSON-RPC messages of a body: one message or a
// batch. Anything else gives none.
func Messages(body []byte) []Message {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil
	}
	var one struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if body[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) != nil {
			return nil
		}
		var out []Message
		for _, m := range batch {
			out = append(out, Messages(m)...)
		}
		return out
	}
	if json.Unmarshal(body, &one) != nil {
		return nil
	}
	id := string(one.ID)
	if id == "null" {
		id = ""
	}
	if id == "" && one.Method == "" {
		return nil
	}
	return []Message{{ID: id, Method: one.Method}}
}

// watch is the body of an answer: it reports the messages it holds (a
// JSON body) or its SSE events as they are read, and its end.
type watch struct {
	t     *Transport
	id    int64
	start time.Time
	body  io.ReadCloser
	sse   bool
	json  bool

	mu      sync.Mutex
	n       int64
	buf     []byte // JSON: the body so far (up to MaxBodyScan); SSE: the partial line
	cr      bool   // SSE: the last byte read was a CR
	event   sseEvent
	events  int
	dropped int
	ended   bool
}

// sseEvent is the SSE event being read.
type sseEvent struct {
	id, name string
	data     []byte
	clipped  bool
	any      bool
}

// Read reads the body, noting what it holds.
func (w *watch) Read(p []byte) (int, error) {
	n, err := w.body.Read(p)
	w.mu.Lock()
	w.n += int64(n)
	switch {
	case w.sse:
		w.scan(p[:n])
	case w.json && len(w.buf) <= MaxBodyScan:
		w.buf = append(w.buf, p[:min(n, MaxBodyScan+1-len(w.buf))]...)
	}
	w.mu.Unlock()
	if err != nil {
		w.end(err)
	}
	return n, err
}

// Close closes the body and reports the end of the exchange.
func (w *watch) Close() error {
	err := w.body.Close()
	w.end(nil)
	return err
}

// end reports the end of the exchange, once: the messages of a JSON
// body, the bytes read, the error that ended it (not io.EOF).
func (w *watch) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	w.ended = true
	ev := &Event{Exchange: w.id, Kind: "end", Time: stamp(time.Now()), MS: since(w.start), Bytes: w.n, Dropped: w.dropped}
	if w.json && len(w.buf) <= MaxBodyScan {
		ev.Received = Messages(w.buf)
	}
	if err != nil && err != io.EOF {
		ev.Error = clip(err.Error(), MaxURL)
	}
	w.t.Sink(ev)
}

// scan reads SSE lines of p (CR, LF or CRLF end a line), w.mu held.
func (w *watch) scan(p []byte) {
	for _, c := range p {
		if w.cr && c == '\n' {
			w.cr = false
			continue
		}
		w.cr = c == '\r'
		if c == '\r' || c == '\n' {
			w.line(w.buf)
			w.buf = w.buf[:0]
			continue
		}
		if len(w.buf) < MaxEventData+64 {
			w.buf = append(w.buf, c)
		}
	}
}

// line takes one SSE line: a field of the event, or the blank line that
// dispatches it.
func (w *watch) line(l []byte) {
	e := &w.event
	if len(l) == 0 {
		if e.any {
			w.dispatch()
		}
		*e = sseEvent{}
		return
	}
	if l[0] == ':' {
		return // a comment
	}
	field, value, _ := bytes.Cut(l, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	e.any = true
	switch string(field) {
	case "id":
		e.id = string(value)
	case "event":
		e.name = string(value)
	case "data":
		if len(e.data) > 0 {
			e.data = append(e.data, '\n')
		}
		room := MaxEventData - len(e.data)
		if len(value) > room {
			value, e.clipped = value[:max(room, 0)], true
		}
		e.data = append(e.data, value...)
	}
}

// dispatch reports the event read, unless MaxEvents were reported.
func (w *watch) dispatch() {
	if w.events >= MaxEvents {
		w.dropped++
		return
	}
	w.events++
	e := &w.event
	ev := &Event{Exchange: w.id, Kind: "sse", Time: stamp(time.Now()), MS: since(w.start), EventID: e.id, EventName: e.name,
		Data: string(e.data), Clipped: e.clipped}
	if !e.clipped {
		ev.Received = Messages(e.data)
	}
	w.t.Sink(ev)
}
