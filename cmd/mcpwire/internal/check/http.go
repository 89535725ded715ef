package check

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Bounds of what an HTTP server sends back.
const (
	maxBody   = 16 << 20 // a JSON body, or one SSE event
	maxEvents = 10000    // the events of one SSE response
)

// httpWire is a wire to a Streamable HTTP endpoint: each frame is one
// POST, whose answer is a JSON body or an SSE stream. In the legacy era it
// keeps the session (Mcp-Session-Id) and sends the negotiated revision in
// MCP-Protocol-Version once it is known; in the modern era it sends the
// headers of 2026-07-28 (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
type httpWire struct {
	url     string
	client  *http.Client
	header  http.Header // --header, and the stored token's work is the client's
	modern  bool
	version string // MCP-Protocol-Version; "" before initialize
	session string // Mcp-Session-Id, once the server gave one
	tracker *transport.FrameTracker
	timeout time.Duration
	explain func(error) error // the words of package app for a failed request
}

func (w *httpWire) transport() string { return "http" }

// ended reports nothing: an HTTP server's end shows as failed requests.
func (w *httpWire) ended() error { return nil }

// close ends a legacy session (DELETE, as a client should), within the
// wait for an answer and ctx.
func (w *httpWire) close(ctx context.Context) error {
	if w.session == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, w.url, nil)
	if err != nil {
		return err
	}
	w.setHeaders(req, nil)
	resp, err := w.client.Do(req)
	if err == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
	}
	w.session = ""
	return nil
}

// setHeaders sets the headers of a request: the wire's, then f's.
func (w *httpWire) setHeaders(req *http.Request, f *frame) {
	for k, vs := range w.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if w.version != "" {
		req.Header.Set(mcp.HeaderProtocolVersion, w.version)
	}
	if w.session != "" {
		req.Header.Set(mcp.HeaderSessionID, w.session)
	}
	if f == nil {
		return
	}
	if w.modern && f.method != "" {
		req.Header.Set(mcp.HeaderMethod, f.method)
	}
	if w.modern && f.name != "" {
		req.Header.Set(mcp.HeaderName, mcp.EncodeHeaderValue(f.name))
	}
	for k, vs := range f.header {
		if len(vs) == 0 || vs[0] == "" {
			req.Header.Del(k)
			continue
		}
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
}

// post sends f and returns the response, whose body the caller closes.
func (w *httpWire) post(ctx context.Context, f *frame) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(f.raw))
	if err != nil {
		return nil, err
	}
	w.setHeaders(req, f)
	msg, derr := decodeSent(f.raw)
	w.tracker.Observe(transport.Sent, f.raw, msg, derr, 0)
	resp, err := w.client.Do(req)
	if err != nil {
		if d := w.explain(err); d != nil {
			return nil, d
		}
		return nil, err
	}
	if s := resp.Header.Get(mcp.HeaderSessionID); s != "" && w.session == "" && !w.modern {
		w.session = s
	}
	return resp, nil
}

func (w *httpWire) notify(ctx context.Context, f *frame) error {
	resp, err := w.post(ctx, f)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if len(bytes.TrimSpace(body)) > 0 {
		m, derr := jsonrpc.Decode(body, nil)
		w.tracker.Observe(transport.Received, body, m, derr, resp.StatusCode)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the server refused the notification with HTTP %s", resp.Status)
	}
	return nil
}

// exchange posts f and reads its answer: a JSON body, or the events of
// an SSE body up to the response.
func (w *httpWire) exchange(ctx context.Context, f *frame) (*reply, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := w.post(ctx, f)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &reply{status: resp.StatusCode, header: resp.Header}
	err = w.read(resp, func(m jsonrpc.Message) bool {
		switch m := m.(type) {
		case *jsonrpc.Response:
			if (f.id.IsValid() && m.ID == f.id) || (!m.ID.IsValid() && m.Error != nil) {
				r.resp = m
				return true
			}
		default:
			if len(r.seen) < maxSeen {
				r.seen = append(r.seen, m)
			}
		}
		return false
	})
	if err != nil && r.resp == nil && ctx.Err() == nil {
		return r, err
	}
	return r, nil
}

// watch posts f and reads the messages of its answer until until says
// so; then it closes the response, which ends the stream.
func (w *httpWire) watch(ctx context.Context, f *frame, until func(jsonrpc.Message) bool) ([]jsonrpc.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	resp, err := w.post(ctx, f)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var seen []jsonrpc.Message
	err = w.read(resp, func(m jsonrpc.Message) bool {
		if len(seen) < maxSeen {
			seen = append(seen, m)
		}
		return until(m)
	})
	if ctx.Err() != nil {
		err = nil // the wait ended: what was read is the answer
	}
	return seen, err
}

// read hands the messages of a response to each, until each returns true
// or the body ends.
func (w *httpWire) read(resp *http.Response, each func(jsonrpc.Message) bool) error {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "text/event-stream" {
		return w.readEvents(resp, each)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return err
	}
	if len(body) > maxBody {
		return fmt.Errorf("the response is larger than %d MiB", maxBody>>20)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	m, derr := jsonrpc.Decode(body, nil)
	w.tracker.Observe(transport.Received, body, m, derr, resp.StatusCode)
	if derr == nil {
		each(m)
	}
	return nil
}

// readEvents reads an SSE body: each event's data is one message.
func (w *httpWire) readEvents(resp *http.Response, each func(jsonrpc.Message) bool) error {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxBody)
	var data []byte
	events := 0
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if len(data) == 0 {
				continue
			}
			if events++; events > maxEvents {
				return fmt.Errorf("more than %d events in one response", maxEvents)
			}
			m, derr := jsonrpc.Decode(data, nil)
			w.tracker.Observe(transport.Received, data, m, derr, resp.StatusCode)
			data = data[:0]
			if derr == nil && each(m) {
				return nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if len(data) > 0 {
			data = append(data, '\n')
		}
		if len(data)+len(value) > maxBody {
			return fmt.Errorf("an event is larger than %d MiB", maxBody>>20)
		}
		data = append(data, value...)
	}
	if err := sc.Err(); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// statusText names an HTTP status: "400 Bad Request".
func statusText(code int) string {
	return strings.TrimSpace(fmt.Sprintf("%d %s", code, http.StatusText(code)))
}
