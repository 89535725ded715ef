package streamable

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

var clientEncoder = jsonrpc.Encoder{OmitNullID: true}

// Write sends one message: a call, a notification or a response to a
// request of the server, each in a POST of its own.
//
// A call returns as soon as its request is on the wire (or failed to get
// there, which Write reports); its response comes out of Read, and so does
// a JSON-RPC error response when the HTTP exchange fails after that, so
// that the caller's call fails cleanly. A call whose caller waits for
// it (jsonrpc.Request.CallerWaits: Conn.Call and CallRaw) is sent, and
// a JSON answer read into Read, on the caller's goroutine before Write
// returns, which spares a hand-off to a runner goroutine and back (about
// a third of the client's CPU per call); an event stream is followed by
// a goroutine of its own, and if ctx ends meanwhile, the exchange is
// abandoned and Write returns at once. Notifications and
// responses return once the server has accepted them (202), or with the
// error it gave.
func (c *ClientConn) Write(ctx context.Context, m jsonrpc.Message) error {
	body, err := clientEncoder.Append(nil, m)
	if err != nil {
		return fmt.Errorf("streamable: %w", err)
	}
	select {
	case <-c.closed:
		return jsonrpc.ErrClosed
	default:
	}
	if c.tr != nil {
		c.tr.Observe(transport.Sent, body, m, nil, 0)
	}
	switch m := m.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			return c.writeCall(ctx, m, body)
		}
		return c.writeNotification(ctx, m, body)
	case *jsonrpc.Response:
		return c.writeResponse(ctx, body)
	}
	return errors.New("streamable: a client sends no batches")
}

// writeCall registers a call and starts its POST.
func (c *ClientConn) writeCall(ctx context.Context, req *jsonrpc.Request, body []byte) error {
	modern := clientModernVersion(req)
	c.mu.Lock()
	switch {
	case c.done:
		c.mu.Unlock()
		return jsonrpc.ErrClosed
	case len(c.calls) >= c.t.opts.MaxInFlight:
		c.mu.Unlock()
		return fmt.Errorf("streamable: %d calls are already awaiting their response", len(c.calls))
	case c.calls[req.ID] != nil:
		c.mu.Unlock()
		return fmt.Errorf("streamable: a call with id %s is already in flight", req.ID)
	}
	rctx, abort := context.WithCancelCause(c.ctx)
	call := &clientCall{id: req.ID, method: req.Method, modern: modern != "", abort: abort, done: make(chan struct{}), sent: make(chan struct{}, 1)}
	c.calls[req.ID] = call
	if lc := c.legacy; lc != nil {
		c.mu.Unlock()
		defer abort(nil)
		if err := lc.Post(ctx, body); err != nil {
			c.forget(call)
			return clientLegacyPostError(err)
		}
		return nil
	}
	if req.Method == mcp.MethodInitialize && modern == "" {
		c.resetSessionLocked() // a new session starts
	}
	hdr := c.postHeaderLocked(req, modern)
	call.session = c.session
	job := clientJob{ctx: rctx, call: call, body: body, hdr: hdr}
	if req.CallerWaits() {
		r := c.spareRunnerLocked()
		c.wg.Add(1)
		c.mu.Unlock()
		return c.runWaited(ctx, r, job)
	}
	select {
	case c.jobs <- job: // an idle runner takes it
	default:
		c.wg.Add(1)
		go c.runner(job)
	}
	c.mu.Unlock()

	select {
	case <-call.sent:
		return call.sendErr
	case <-ctx.Done():
		abort(errClientAborted)
		c.forget(call)
		return ctx.Err()
	}
}

// clientKnownVersions are the revisions whose names clientModernVersion
// returns without allocating.
var clientKnownVersions = mcp.SupportedVersions()

// clientModernVersion returns the protocol version of a modern request's
// _meta, or "" for a legacy message.
func clientModernVersion(req *jsonrpc.Request) string {
	raw := member(member(req.Params, metaKey), mcp.MetaKeyProtocolVersion)
	if raw == nil {
		return ""
	}
	for _, v := range clientKnownVersions { // no allocation for a known version
		if stringEquals(raw, string(v)) {
			return string(v)
		}
	}
	v, _ := jsonString(raw)
	return v
}

// resetSessionLocked forgets the legacy session: its id, its version and
// its standalone stream.
func (c *ClientConn) resetSessionLocked() {
	c.session, c.version = "", ""
	c.tr.SetSession("")
	if c.standalone != nil {
		c.standalone()
		c.standalone = nil
	}
}

// expireSession forgets session sid, which the server no longer knows
// (HTTP 404), unless a new session replaced it meanwhile.
func (c *ClientConn) expireSession(sid string) {
	c.mu.Lock()
	if c.session == sid {
		c.t.log.Info("streamable: the server ended the session; the next initialize starts a new one", "session", sid)
		c.resetSessionLocked()
	}
	c.mu.Unlock()
}

// runCall POSTs a call and follows its answer until the response has been
// delivered or the call given up. call.sent receives the outcome of
// sending the request: nil once it is on the wire, or the error that kept
// it off; the timer of call.runner bounds that.
//
// It reports whether it handed the rest of the exchange to a goroutine
// of its own (followWaited), with call.runner.
func (c *ClientConn) runCall(ctx context.Context, call *clientCall, body []byte, hdr http.Header) (handedOff bool) {
	defer func() {
		if !handedOff {
			call.abort(nil)
		}
	}()
	r := call.runner
	r.arm(call, c.t.opts.ConnectTimeout)
	resp, err := c.sendCall(ctx, call, hdr, body)
	r.disarm(call)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		call.signal(fmt.Errorf("streamable: POST %s %s: %w", call.method, c.url, err))
		if call.sendState.Load() != clientWritten || c.aborted(ctx) {
			c.forget(call)
			return
		}
		c.fail(call, clientTransportError(call, err))
		return
	}
	call.signal(nil)
	defer func() {
		if !handedOff {
			resp.Body.Close()
		}
	}()
	if resp.StatusCode/100 != 2 {
		c.statusError(ctx, call, body, resp, hdr.Get(mcp.HeaderSessionID))
		return
	}
	if call.method == mcp.MethodInitialize && !call.modern {
		if sid := resp.Header.Get(mcp.HeaderSessionID); sid != "" {
			if clientVisibleASCII(sid, 1024) {
				c.mu.Lock()
				c.session = sid
				c.mu.Unlock()
				c.tr.SetSession(sid)
			} else {
				c.t.log.Info("streamable: ignored an invalid Mcp-Session-Id", "value", transport.BodySnippet([]byte(sid), 64))
			}
		}
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case sse.IsEventStream(ct):
		if call.waited {
			// The answer may come late on the stream, or on another one,
			// and the stream may stay open after it: its caller waits
			// for the answer (Pending.Wait), not for the stream's end.
			c.wg.Add(1)
			go c.followWaited(ctx, call, resp.Body)
			return true
		}
		c.followStream(ctx, call, resp.Body)
	case sse.IsJSON(ct):
		c.readJSON(ctx, call, resp.Body, resp.ContentLength, resp.StatusCode)
	default:
		var one [1]byte
		if n, _ := io.ReadFull(resp.Body, one[:]); n == 0 {
			if call.modern {
				c.fail(call, jsonrpc.Errorf(jsonrpc.CodeInternalError, "streamable: POST %s %s: HTTP %s without an answer, which a request needs", call.method, c.url, resp.Status))
				return
			}
			// 202 or an empty 200 in a legacy session: the response may
			// come on another stream (the standalone one).
			c.t.log.Debug("streamable: a call was accepted without an answer", "method", call.method, "status", resp.Status)
			return
		}
		c.fail(call, jsonrpc.Errorf(jsonrpc.CodeInternalError, "streamable: POST %s %s: the answer has Content-Type %q, neither JSON nor an event stream", call.method, c.url, ct))
	}
	return false
}

// sendCall sends the POST of a call, whose headers are hdr and body
// body.
//
// With a client of the transport's own, whose policy is net/http's
// default, and a URL without user information (which Client.Do would
// send as basic authentication), it goes to the transport's HTTP/1.1
// client (client_h1.go) or, when that cannot send it, to the
// http.Transport at once: http.Client.Do copies the headers of every
// request in case it is redirected (a map and its values, half a
// kilobyte per call) and wraps the send in its redirect loop. A redirect
// is then followed by Client.Do, with the request sent again; errors are
// *url.Error as Client.Do makes them.
//
// The request for net/http is made here rather than by
// http.NewRequestWithContext, which would parse the URL again and
// allocate a header map, a reader and its wrapper for every call: the
// URL is the conn's, parsed once (net/http only reads it), and the
// body's reader lives in the call. The body is an io.NopCloser of a
// *bytes.Reader, which net/http knows for one in memory: it writes it
// with the headers, in one write.
func (c *ClientConn) sendCall(ctx context.Context, call *clientCall, hdr http.Header, body []byte) (*http.Response, error) {
	var resp *http.Response
	var err error
	if c.h1 != nil && c.t.wrapped == nil && len(body) <= h1MaxBody {
		resp, err = c.h1.roundTrip(ctx, hdr, body, call.wroteRequest)
		if err == nil && resp.StatusCode/100 != 2 {
			resp.Request = &http.Request{Method: http.MethodPost, URL: c.u, Host: c.host} // for the error that names it (NewHTTPStatusError reads Method and URL)
		}
	} else {
		call.body = body
		call.reader.Reset(body)
		var rb io.ReadCloser = io.NopCloser(&call.reader.Reader)
		if c.t.wrapped != nil {
			call.reader.conn, call.reader.call = c, call
			rb = &call.reader // for ownTransport, below the caller's layers
		}
		req := (&http.Request{
			Method:        http.MethodPost,
			URL:           c.u,
			Proto:         "HTTP/1.1",
			ProtoMajor:    1,
			ProtoMinor:    1,
			Header:        hdr,
			Body:          rb,
			GetBody:       call.getBody,
			ContentLength: int64(len(body)),
			Host:          c.host,
		}).WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: call.wroteRequest}))
		switch {
		case !c.direct:
			return c.t.client.Do(req)
		case c.t.wrapped != nil:
			resp, err = c.t.wrapped.RoundTrip(req)
		default:
			resp, err = c.t.ownIdle.RoundTrip(req)
		}
	}
	if err != nil {
		if tlsErr, ok := err.(tls.RecordHeaderError); ok && string(tlsErr.RecordHeader[:]) == "HTTP/" {
			err = http.ErrSchemeMismatch // as Client.Do says it
		}
		return nil, &url.Error{Op: "Post", URL: c.redacted, Err: err}
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		if resp.Header.Get("Location") == "" {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		again, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		again.Header = hdr
		return c.t.client.Do(again)
	}
	return resp, nil
}

// aborted reports whether the request context ended because the caller
// gave up the call or the conn closed: then nobody waits for an answer.
func (c *ClientConn) aborted(ctx context.Context) bool {
	cause := context.Cause(ctx)
	return errors.Is(cause, errClientAborted) || c.ctx.Err() != nil
}

// readJSON delivers a JSON answer: one message, or an array of them.
func (c *ClientConn) readJSON(ctx context.Context, call *clientCall, body io.Reader, length int64, status int) {
	max := c.maxMessage()
	b, err := clientReadBody(body, length, max)
	switch {
	case err != nil:
		if !c.aborted(ctx) {
			c.fail(call, clientTransportError(call, err))
		}
		return
	case len(b) > max:
		e := jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "streamable: the answer to %s exceeds the limit of %d bytes", call.method, max)
		if c.tr != nil {
			c.tr.Observe(transport.Received, b[:max], nil, &jsonrpc.DecodeError{Err: e}, status)
		}
		c.fail(call, e)
		return
	}
	msg, err := c.t.dec.Decode(b)
	if c.tr != nil {
		c.tr.Observe(transport.Received, b, msg, err, status)
	}
	if err != nil {
		c.fail(call, jsonrpc.Errorf(jsonrpc.CodeParseError, "streamable: the answer to %s is not a valid JSON-RPC message: %v", call.method, err).WithCause(err))
		return
	}
	if r, ok := msg.(*jsonrpc.Response); ok && !r.ID.IsValid() {
		r.ID = call.id // an error without an id answers this call
	}
	if !c.deliver(ctx, msg, call.id) {
		c.fail(call, jsonrpc.Errorf(jsonrpc.CodeInternalError, "streamable: the JSON answer to %s (id %s) does not hold its response", call.method, call.id))
	}
}

// clientReadBody reads a body of up to max bytes (max+1 tell that it is
// longer). A body of known length (a JSON answer has a Content-Length)
// is read into a buffer of its size, one allocation instead of
// io.ReadAll's growing ones, and to its end, so that net/http keeps the
// connection.
func clientReadBody(body io.Reader, length int64, max int) ([]byte, error) {
	if length < 0 || length > int64(max) {
		return io.ReadAll(io.LimitReader(body, int64(max)+1))
	}
	b := make([]byte, length+1)
	n, err := io.ReadFull(body, b) // reads on until the end of the body
	switch {
	case n == int(length) && (err == io.ErrUnexpectedEOF || err == io.EOF):
		return b[:n], nil
	case err == nil: // longer than it said: net/http does not let this happen
		return io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(b), body), int64(max)+1))
	}
	return b[:n], err
}

// maxMessage returns the largest message accepted.
func (c *ClientConn) maxMessage() int {
	lim := c.t.dec.Limits()
	return lim.MessageSize()
}

// statusError handles an HTTP error answer to a call: a 404 in a legacy
// session ends the session; an initialize refused with 400, 404 or 405
// and no modern error tries the HTTP+SSE fallback; otherwise the call
// gets the error.
func (c *ClientConn) statusError(ctx context.Context, call *clientCall, body []byte, resp *http.Response, sid string) {
	se := sse.NewStatusError(resp)
	c.observeStatus(se)
	e := c.errorFromStatus(se, sid)
	switch se.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		if call.method == mcp.MethodInitialize && !call.modern && !clientIsModernError(clientRPCErrorBody(se.Body)) && !c.t.opts.DisableSSEFallback {
			c.fallback(ctx, call, body, e)
			return
		}
	}
	if se.StatusCode == http.StatusNotFound && sid != "" {
		c.expireSession(sid)
	}
	c.fail(call, e)
}

// errorFromStatus turns an HTTP error answer into the JSON-RPC error to
// report: the body's own error when it is a JSON-RPC error response,
// otherwise one that says what happened (data: {"httpStatus": N}). A 404
// to a request of session sid reports CodeSessionNotFound whatever the
// body says: the session is gone, and the client must initialize again.
// The error's cause is an *HTTPStatusError.
func (c *ClientConn) errorFromStatus(se *HTTPStatusError, sid string) *jsonrpc.Error {
	cause := se
	body := clientRPCErrorBody(se.Body)
	if se.StatusCode == http.StatusNotFound && sid != "" {
		msg := "Session not found"
		if body != nil {
			msg = body.Message
		}
		return jsonrpc.Errorf(CodeSessionNotFound, "%s: the server no longer knows session %q (HTTP 404); initialize again", msg, sid).
			WithData(map[string]any{"httpStatus": se.StatusCode}).WithCause(cause)
	}
	if body != nil {
		return body.WithCause(cause)
	}
	msg := fmt.Sprintf("streamable: %s %s: HTTP %s", se.Method, se.URL, se.Status)
	if s := transport.BodySnippet(se.Body, 200); s != "" {
		msg += ": " + s
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, msg).WithData(map[string]any{"httpStatus": se.StatusCode}).WithCause(cause)
}

// clientRPCErrorBody returns the error of a JSON-RPC error response body,
// or nil when the body is something else.
func clientRPCErrorBody(b []byte) *jsonrpc.Error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	msg, err := jsonrpc.Decode(b, nil)
	if err != nil {
		return nil
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
		return r.Error
	}
	return nil
}

// clientIsModernError reports whether e is an error that only a server of
// the modern era (2026-07-28) gives: a header mismatch, a missing client
// capability, an unsupported protocol version, or an unknown method
// (which is how such a server refuses initialize).
func clientIsModernError(e *jsonrpc.Error) bool {
	if e == nil {
		return false
	}
	switch e.Code {
	case mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion, jsonrpc.CodeMethodNotFound:
		return true
	}
	return false
}

// writeNotification POSTs a notification. A cancellation of a modern call
// is not sent: the call's stream is closed instead, which is how the
// modern era cancels over HTTP.
func (c *ClientConn) writeNotification(ctx context.Context, req *jsonrpc.Request, body []byte) error {
	var cancelled *clientCall
	if req.Method == mcp.NotificationCancelled {
		var p mcp.CancelledParams
		if json.Unmarshal(req.Params, &p) == nil && p.RequestID.IsValid() {
			c.mu.Lock()
			call := c.calls[p.RequestID]
			if call != nil && call.modern {
				delete(c.calls, call.id)
				close(call.done)
				c.mu.Unlock()
				call.abort(errClientAborted)
				return nil
			}
			c.mu.Unlock()
			cancelled = call
		}
	}
	if cancelled != nil {
		// The server is told first, then the stream is closed: a legacy
		// disconnection alone is no cancellation.
		defer func() {
			cancelled.abort(errClientAborted)
			c.forget(cancelled)
		}()
	}
	modern := clientModernVersion(req)
	c.mu.Lock()
	if lc := c.legacy; lc != nil {
		c.mu.Unlock()
		return clientLegacyPostError(lc.Post(ctx, body))
	}
	if modern == "" && c.session == "" && c.version == "" {
		c.mu.Unlock()
		if req.Method == mcp.NotificationCancelled {
			return nil // nothing in flight to cancel
		}
		return fmt.Errorf("streamable: %s not sent: a notification without a protocol version in _meta goes only to a legacy session, and none is open", req.Method)
	}
	hdr := c.postHeaderLocked(req, modern)
	c.mu.Unlock()
	sid := hdr.Get(mcp.HeaderSessionID)
	if err := c.postSync(ctx, body, hdr, sid); err != nil {
		return err
	}
	if req.Method == mcp.NotificationInitialized && modern == "" {
		c.startStandalone(ctx, sid)
	}
	return nil
}

// writeResponse POSTs the client's response to a request of the server
// (legacy sessions only: modern servers send no requests).
func (c *ClientConn) writeResponse(ctx context.Context, body []byte) error {
	c.mu.Lock()
	if lc := c.legacy; lc != nil {
		c.mu.Unlock()
		return clientLegacyPostError(lc.Post(ctx, body))
	}
	hdr := make(http.Header, 6)
	c.setHeaders(hdr, c.session, c.version)
	c.mu.Unlock()
	hdr["Content-Type"] = []string{"application/json"}
	hdr["Accept"] = []string{"application/json, text/event-stream"}
	return c.postSync(ctx, body, hdr, hdr.Get(mcp.HeaderSessionID))
}

// postSync POSTs a notification or a response and waits for the answer
// (202, or any 2xx: its body is ignored), within ConnectTimeout.
func (c *ClientConn) postSync(ctx context.Context, body []byte, hdr http.Header, sid string) error {
	ctx, cancel := context.WithTimeout(ctx, c.t.opts.ConnectTimeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("streamable: %w", err)
	}
	req.Header = hdr
	resp, err := c.t.client.Do(req)
	if err != nil {
		if c.ctx.Err() != nil {
			return jsonrpc.ErrClosed
		}
		return fmt.Errorf("streamable: POST %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
	se := sse.NewStatusError(resp)
	c.observeStatus(se)
	if se.StatusCode == http.StatusNotFound && sid != "" {
		c.expireSession(sid)
	}
	return c.errorFromStatus(se, sid)
}

// observeStatus shows the body of an HTTP error to the observer, as a
// frame when it is one (a JSON-RPC error response), else as what it is.
func (c *ClientConn) observeStatus(se *HTTPStatusError) {
	if c.tr == nil || len(bytes.TrimSpace(se.Body)) == 0 {
		return
	}
	msg, err := jsonrpc.Decode(se.Body, nil)
	c.tr.Observe(transport.Received, se.Body, msg, err, se.StatusCode)
}
