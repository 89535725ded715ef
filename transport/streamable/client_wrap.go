package streamable

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptrace"
)

// This file lets the caller's layers (ClientOptions.WrapTransport: an
// authorization layer, a recorder) see the requests of a transport with
// an HTTP client of its own, while the POSTs of calls still go through
// its HTTP/1.1 client (client_h1.go). Such a POST carries a callBody,
// which the RoundTripper below the layers (ownTransport) recognizes:
// when the request reaches it as the conn made it, the HTTP/1.1 client
// sends it; otherwise (a layer changed its URL or body, a retry with a
// body from GetBody, a body over h1MaxBody, no HTTP/1.1 client for the
// URL) net/http does.

// A callBody is the body of a call's POST on its way through the
// caller's layers: a reader of the body (call.body), which knows its
// call and conn.
type callBody struct {
	bytes.Reader
	conn *ClientConn // nil unless the POST goes through the caller's layers
	call *clientCall
}

// Close implements io.Closer: there is nothing to free.
func (b *callBody) Close() error { return nil }

// ownTransport is the RoundTripper below the caller's layers.
type ownTransport struct{ tr *http.Transport }

// RoundTrip implements http.RoundTripper.
func (o ownTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	b, ok := req.Body.(*callBody)
	if !ok || b.conn == nil {
		return o.tr.RoundTrip(req)
	}
	c := b.conn
	if c.h1 != nil && b.unchanged(req) {
		wrote := b.call.wroteRequest
		if tr := httptrace.ContextClientTrace(req.Context()); tr != nil && tr.WroteRequest != nil {
			wrote = tr.WroteRequest // the call's, and those of the layers
		}
		resp, err := c.h1.roundTrip(req.Context(), req.Header, b.call.body, wrote)
		if err != nil {
			return nil, err
		}
		resp.Request = req
		return resp, nil
	}
	// net/http writes a body it knows to be in memory with the headers,
	// in one write.
	r := req.WithContext(req.Context())
	r.Body = io.NopCloser(&b.Reader)
	return o.tr.RoundTrip(r)
}

// unchanged reports whether req is the POST of b's call as its conn made
// it, for the HTTP/1.1 client to send: the same method, URL, Host and
// length, the body not read yet, and nothing net/http would add.
func (b *callBody) unchanged(req *http.Request) bool {
	c, n := b.conn, len(b.call.body)
	return req.Method == http.MethodPost && req.URL != nil && *req.URL == *c.u && req.Host == c.host &&
		n <= h1MaxBody && req.ContentLength == int64(n) && b.Len() == n && b.Size() == int64(n) &&
		len(req.TransferEncoding) == 0 && req.Trailer == nil && !req.Close
}
