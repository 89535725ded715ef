package streamable_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// These tests check that a call the transport fails locally keeps the Go
// cause of the failure: a caller of client.Session tells "the server said
// no" from "the network failed" from "the login failed" with errors.Is
// and errors.As, never by reading messages.

// ccFailure says how the POSTs after the handshake fail.
type ccFailure struct {
	// server: what the HTTP server does instead of answering: "drop"
	// (closes the connection once the request is read) or a status.
	server string
	// rt: what the client's RoundTripper does: "sentinel" (the request
	// goes out, then the RoundTripper fails, as an auth RoundTripper
	// whose token refresh fails does), "deadline" (the same, with a
	// timeout of its own), "block" (waits until the request is given
	// up).
	rt string
}

// errCCNeedsLogin stands for a typed error of an auth RoundTripper.
var errCCNeedsLogin = errors.New("auth: the user must log in again")

// ccRoundTripper forwards to base, or fails the way fail says once on
// is set.
type ccRoundTripper struct {
	base *http.Transport
	on   *atomic.Bool
	how  string
}

func (rt *ccRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if !rt.on.Load() || req.Method != http.MethodPost || rt.how == "" {
		return rt.base.RoundTrip(req)
	}
	if rt.how == "block" {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	resp, err := rt.base.RoundTrip(req) // the request is on the wire
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if rt.how == "deadline" {
		return nil, fmt.Errorf("auth: refreshing the token: %w", context.DeadlineExceeded)
	}
	return nil, fmt.Errorf("auth: refreshing the token: %w", errCCNeedsLogin)
}

// ccSession serves a real MCP server whose POSTs fail as f says once the
// session is established, and returns a session of the real client over
// streamable.Transport. version "" speaks the modern era.
func ccSession(t *testing.T, version mcp.Version, f ccFailure, opts *streamable.ClientOptions) *client.Session {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "cause", Version: "1"}, nil)
	h := streamable.NewHandler(s, nil)
	on := new(atomic.Bool)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !on.Load() || r.Method != http.MethodPost || f.server == "" {
			h.ServeHTTP(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		switch f.server {
		case "drop":
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			conn.Close()
		case "401":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://example.com/.well-known/oauth-protected-resource"`)
			http.Error(w, "login first", http.StatusUnauthorized)
		case "403 json":
			clWriteJSON(w, http.StatusForbidden, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: not for you"}}`)
		case "403":
			http.Error(w, "forbidden here", http.StatusForbidden)
		case "500":
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			t.Errorf("unknown failure %q", f.server)
		}
	}))
	base := &http.Transport{}
	t.Cleanup(func() {
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
		base.CloseIdleConnections()
		s.Close()
	})
	o := &streamable.ClientOptions{}
	if opts != nil {
		*o = *opts
	}
	o.HTTPClient = &http.Client{Transport: &ccRoundTripper{base: base, on: on, how: f.rt}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := client.New(mcp.Implementation{Name: "cause-client", Version: "1"}, &client.Options{Version: version}).
		Connect(ctx, streamable.NewTransport(ts.URL, o))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	on.Store(true)
	return sess
}

// ccEras runs f in the modern era and in a legacy one.
func ccEras(t *testing.T, f func(t *testing.T, version mcp.Version)) {
	for _, v := range []mcp.Version{"", mcp.Version20250618} {
		name := string(v)
		if name == "" {
			name = "modern"
		}
		t.Run(name, func(t *testing.T) { f(t, v) })
	}
}

// ccPing pings and returns the error, which must be a *jsonrpc.Error
// (the call failed in the transport, not in the engine).
func ccPing(t *testing.T, sess *client.Session) (error, *jsonrpc.Error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := sess.Ping(ctx)
	if err == nil {
		t.Fatal("Ping succeeded, want it to fail")
	}
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("Ping: %v (%T), want a *jsonrpc.Error", err, err)
	}
	return err, je
}

// TestClientCauseNetworkFailure: a connection that breaks after the
// request went out fails the call with -32000, and the *url.Error (a
// net.Error) of net/http is its cause.
func TestClientCauseNetworkFailure(t *testing.T) {
	ccEras(t, func(t *testing.T, version mcp.Version) {
		sess := ccSession(t, version, ccFailure{server: "drop"}, nil)
		err, je := ccPing(t, sess)
		if je.Code != jsonrpc.CodeConnectionClosed {
			t.Errorf("code %d, want %d", je.Code, jsonrpc.CodeConnectionClosed)
		}
		var ue *url.Error
		if !errors.As(err, &ue) {
			t.Fatalf("errors.As(*url.Error) failed for %v", err)
		}
		if ue.Op != "Post" {
			t.Errorf("url.Error.Op = %q, want Post", ue.Op)
		}
		var ne net.Error
		if !errors.As(err, &ne) {
			t.Errorf("errors.As(net.Error) failed for %v", err)
		}
		var hse *streamable.HTTPStatusError
		if errors.As(err, &hse) {
			t.Errorf("a network failure has an HTTPStatusError: %v", hse)
		}
	})
}

// TestClientCauseHTTPStatus: an HTTP error answer fails the call with
// the same code and message as before, and an *HTTPStatusError (status,
// header, body) as the cause; a JSON-RPC error in the body stays the
// call's error.
func TestClientCauseHTTPStatus(t *testing.T) {
	for _, tc := range []struct {
		failure  string
		code     jsonrpc.Code
		status   int
		body     string
		inMsg    string
		authHdr  bool
		httpData bool
	}{
		{failure: "500", code: jsonrpc.CodeInternalError, status: 500, body: "boom", inMsg: `HTTP 500 Internal Server Error: "boom"`, httpData: true},
		{failure: "403", code: jsonrpc.CodeInternalError, status: 403, body: "forbidden here", inMsg: "HTTP 403 Forbidden", httpData: true},
		{failure: "401", code: jsonrpc.CodeInternalError, status: 401, body: "login first", inMsg: "HTTP 401 Unauthorized", authHdr: true, httpData: true},
		{failure: "403 json", code: jsonrpc.CodeInvalidRequest, status: 403, body: "not for you", inMsg: "Invalid Request: not for you"},
	} {
		t.Run(tc.failure, func(t *testing.T) {
			ccEras(t, func(t *testing.T, version mcp.Version) {
				sess := ccSession(t, version, ccFailure{server: tc.failure}, nil)
				err, je := ccPing(t, sess)
				if je.Code != tc.code || !strings.Contains(je.Message, tc.inMsg) {
					t.Errorf("error %d %q, want %d containing %q", je.Code, je.Message, tc.code, tc.inMsg)
				}
				if got := string(je.Data); tc.httpData && !strings.Contains(got, fmt.Sprintf(`"httpStatus":%d`, tc.status)) {
					t.Errorf("data %s, want httpStatus %d", got, tc.status)
				}
				var hse *streamable.HTTPStatusError
				if !errors.As(err, &hse) {
					t.Fatalf("errors.As(*HTTPStatusError) failed for %v", err)
				}
				if hse.StatusCode != tc.status || !strings.HasPrefix(hse.Status, fmt.Sprint(tc.status)) || hse.Method != http.MethodPost {
					t.Errorf("HTTPStatusError %+v, want POST and status %d", hse, tc.status)
				}
				if !strings.Contains(string(hse.Body), tc.body) {
					t.Errorf("body %q, want it to contain %q", hse.Body, tc.body)
				}
				if tc.authHdr && !strings.HasPrefix(hse.Header.Get("WWW-Authenticate"), "Bearer ") {
					t.Errorf("WWW-Authenticate %q", hse.Header.Get("WWW-Authenticate"))
				}
				if !strings.Contains(hse.Error(), fmt.Sprintf("POST %s", hse.URL)) {
					t.Errorf("Error() = %q", hse.Error())
				}
				var ue *url.Error
				if errors.As(err, &ue) {
					t.Errorf("an HTTP answer has a *url.Error: %v", ue)
				}
			})
		})
	}
}

// TestClientCauseRoundTripperError: the typed error of the HTTPClient's
// RoundTripper (an auth RoundTripper whose token refresh fails after the
// request went out) is found with errors.Is.
func TestClientCauseRoundTripperError(t *testing.T) {
	ccEras(t, func(t *testing.T, version mcp.Version) {
		sess := ccSession(t, version, ccFailure{rt: "sentinel"}, nil)
		err, je := ccPing(t, sess)
		if !errors.Is(err, errCCNeedsLogin) {
			t.Fatalf("errors.Is(err, sentinel) = false for %v", err)
		}
		if je.Code != jsonrpc.CodeConnectionClosed || !strings.Contains(je.Message, errCCNeedsLogin.Error()) {
			t.Errorf("error %d %q", je.Code, je.Message)
		}
	})
}

// TestClientCauseDeadline: a deadline of the transport path matches
// context.DeadlineExceeded: one met by the RoundTripper after the
// request went out, and the client's own ConnectTimeout (the request
// could not be sent in time).
func TestClientCauseDeadline(t *testing.T) {
	t.Run("round tripper", func(t *testing.T) {
		ccEras(t, func(t *testing.T, version mcp.Version) {
			sess := ccSession(t, version, ccFailure{rt: "deadline"}, nil)
			err, je := ccPing(t, sess)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("errors.Is(err, context.DeadlineExceeded) = false for %v", err)
			}
			if je.Code != jsonrpc.CodeConnectionClosed {
				t.Errorf("code %d", je.Code)
			}
		})
	})
	t.Run("connect timeout", func(t *testing.T) {
		ccEras(t, func(t *testing.T, version mcp.Version) {
			sess := ccSession(t, version, ccFailure{rt: "block"}, &streamable.ClientOptions{ConnectTimeout: 500 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := sess.Ping(ctx)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("errors.Is(err, context.DeadlineExceeded) = false for %v", err)
			}
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Errorf("no net.Error with Timeout() in %v", err)
			}
			if ctx.Err() != nil {
				t.Fatal("the caller's deadline passed: the test proves nothing")
			}
			if !strings.Contains(err.Error(), "timed out sending the request") {
				t.Errorf("message %q changed", err)
			}
		})
	})
}

// TestClientCauseFallback: in the HTTP+SSE fallback, status errors are
// *HTTPStatusError too: the refusal of an initialize that no event stream
// can rescue, and a POST the old server refuses (the text of the error
// stays as it was).
func TestClientCauseFallback(t *testing.T) {
	t.Run("no event stream", func(t *testing.T) {
		s := clNewOldServer(t, func(s *clOldServer) { s.noSSE = true })
		c := clDial(t, s.ts.URL+"/sse", nil)
		if err := clSend(t, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok || resp.Error == nil {
			t.Fatalf("got %v, want an error response", msg)
		}
		var hse *streamable.HTTPStatusError
		if !errors.As(resp.Error, &hse) || hse.StatusCode != http.StatusMethodNotAllowed || hse.Method != http.MethodPost {
			t.Fatalf("errors.As(*HTTPStatusError) = %+v for %v, want the 405 to the POST", hse, resp.Error)
		}
	})
	t.Run("POST refused", func(t *testing.T) {
		s := clNewOldServer(t, nil)
		c := clDial(t, s.ts.URL+"/sse", nil)
		clInitialize(t, c, "2024-11-05")
		if !c.UsesSSE() {
			t.Fatal("no fallback")
		}
		if err := clSend(t, c, `{"jsonrpc":"2.0","method":"test/bye"}`); err != nil {
			t.Fatal(err) // the server forgets the session
		}
		err := clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		var hse *streamable.HTTPStatusError
		if !errors.As(err, &hse) || hse.StatusCode != http.StatusNotFound || !strings.Contains(string(hse.Body), "no such session") {
			t.Fatalf("errors.As(*HTTPStatusError) = %+v for %v, want the 404", hse, err)
		}
		if !strings.HasPrefix(err.Error(), "sse: POST "+s.ts.URL+"/messages?session=1: HTTP 404 Not Found") {
			t.Errorf("message %q changed", err)
		}
	})
}
