package sse

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAppendEvent(t *testing.T) {
	b, err := AppendEvent([]byte("x"), Event{ID: "1_2", Retry: 500})
	if err != nil || string(b) != "xid: 1_2\nretry: 500\ndata: \n\n" {
		t.Fatalf("%q %v", b, err)
	}
	b, err = AppendEvent(nil, Event{Name: "endpoint", Data: []byte("/mcp?sessionId=1"), Retry: -1})
	if err != nil || string(b) != "event: endpoint\ndata: /mcp?sessionId=1\n\n" {
		t.Fatalf("%q %v", b, err)
	}
	for _, bad := range []Event{{ID: "a\nb", Retry: -1}, {Name: "a\rb", Retry: -1}, {Data: []byte("a\rb"), Retry: -1}} {
		if b, err := AppendEvent([]byte("keep"), bad); err == nil || string(b) != "keep" {
			t.Errorf("%+v: %q %v", bad, b, err)
		}
	}
	if got := string(AppendComment(nil, "a\nb")); got != ": a b\n\n" {
		t.Errorf("comment %q", got)
	}
}

// request returns a request that arrived on local, with host and origin.
func request(local net.Addr, host, origin string) *http.Request {
	r := httptest.NewRequest("POST", "http://x/mcp", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	if local != nil {
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
	}
	return r
}

func TestGuard(t *testing.T) {
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3000}
	public := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 443}
	unix := &net.UnixAddr{Name: "/tmp/s", Net: "unix"}
	def := NewGuard(nil, nil, false)
	ext := NewGuard([]string{"mcp.example.com", "other.example.com:8443"}, []string{"https://app.example.com"}, false)
	for _, tc := range []struct {
		g            *Guard
		local        net.Addr
		host, origin string
		ok           bool
	}{
		{def, loop, "localhost:3000", "", true},
		{def, loop, "127.0.0.1:3000", "http://localhost:5173", true},
		{def, loop, "[::1]:3000", "https://[::1]", true},
		{def, loop, "LOCALHOST", "", true},
		{def, loop, "evil.example.com", "", false},
		{def, loop, "evil.example.com", "http://evil.example.com", false},
		{def, loop, "localhost:3000", "http://evil.example.com", false},
		{def, loop, "localhost:3000", "null", false},
		{def, loop, "localhost:3000", "file://", false},
		{def, unix, "evil.example.com", "", false},
		{def, public, "mcp.example.com", "", true},
		{def, public, "mcp.example.com", "https://mcp.example.com", true},
		{def, public, "mcp.example.com", "https://evil.example.com", false},
		{def, nil, "anything", "", true},
		{ext, loop, "mcp.example.com:3000", "https://app.example.com", true},
		{ext, loop, "other.example.com:8443", "", true},
		{ext, loop, "other.example.com:9999", "", false},
		{ext, public, "evil.example.com", "", false},
		{ext, public, "mcp.example.com", "https://APP.example.com", true},
		{NewGuard(nil, nil, true), loop, "evil.example.com", "http://evil.example.com", true},
	} {
		err := tc.g.Check(request(tc.local, tc.host, tc.origin))
		if (err == nil) != tc.ok {
			t.Errorf("local %v Host %q Origin %q: %v", tc.local, tc.host, tc.origin, err)
		}
	}
	r := request(loop, "localhost", "http://localhost")
	r.Header.Add("Origin", "http://evil.example.com")
	if def.Check(r) == nil {
		t.Error("two Origin headers accepted")
	}
}

func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		accept []string
		typ    string
		want   bool
	}{
		{nil, "text/event-stream", true},
		{[]string{"application/json, text/event-stream"}, "text/event-stream", true},
		{[]string{"application/json", "text/event-stream"}, "text/event-stream", true},
		{[]string{"application/json"}, "text/event-stream", false},
		{[]string{"*/*"}, "application/json", true},
		{[]string{"text/*;q=0.5"}, "text/event-stream", true},
		{[]string{"text/*"}, "application/json", false},
		{[]string{"Application/JSON"}, "application/json", true},
		{[]string{"application/json;q=0"}, "application/json", false},
		{[]string{"application/json; q=0.0, */*"}, "application/json", true},
		{[]string{"application/jsonx"}, "application/json", false},
		{[]string{""}, "application/json", false},
	} {
		if got := Accepts(tc.accept, tc.typ); got != tc.want {
			t.Errorf("Accepts(%q, %s) = %v", tc.accept, tc.typ, got)
		}
	}
	for ct, want := range map[string]bool{"application/json": true, "application/json; charset=utf-8": true, "APPLICATION/JSON": true, "text/json": false, "": false, "application/json-seq": false} {
		if IsJSON(ct) != want {
			t.Errorf("IsJSON(%q)", ct)
		}
	}
}

func TestReadBody(t *testing.T) {
	r := httptest.NewRequest("POST", "/", strings.NewReader("12345"))
	if b, err := ReadBody(r, 5); err != nil || string(b) != "12345" {
		t.Errorf("%q %v", b, err)
	}
	r = httptest.NewRequest("POST", "/", strings.NewReader("123456"))
	if _, err := ReadBody(r, 5); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("declared length over the limit: %v", err)
	}
	r = httptest.NewRequest("POST", "/", io.NopCloser(strings.NewReader("123456")))
	r.ContentLength = -1
	if _, err := ReadBody(r, 5); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("chunked body over the limit: %v", err)
	}
	r = httptest.NewRequest("POST", "/", io.NopCloser(strings.NewReader("1234")))
	r.ContentLength = -1
	if b, err := ReadBody(r, 5); err != nil || string(b) != "1234" {
		t.Errorf("chunked body: %q %v", b, err)
	}
	r = httptest.NewRequest("POST", "/", strings.NewReader("12"))
	r.ContentLength = 4 // the client lied
	if _, err := ReadBody(r, 5); err == nil {
		t.Error("short body accepted")
	}
}
