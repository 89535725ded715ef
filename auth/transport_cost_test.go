package auth

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// The cost of a request through a Transport that has nothing to do but
// send it (no token yet, or a token to attach): the path of every call
// of mcpwire bench, bridge --url and the inspector.

const (
	costLegacyCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world"}}}`
	costModernCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
)

// costRequest is a POST of body as the Streamable HTTP client makes it
// (a body in memory with GetBody; Mcp-Method and Mcp-Name for a modern
// call), whose body reset rewinds for the next use.
func costRequest(u *url.URL, body string, modern bool) (req *http.Request, reset func()) {
	b := []byte(body)
	rd := bytes.NewReader(b)
	h := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	if modern {
		h[mcp.HeaderProtocolVersion] = []string{"2026-07-28"}
		h[mcp.HeaderMethod] = []string{"tools/call"}
		h[mcp.HeaderName] = []string{"echo"}
	} else {
		h[mcp.HeaderProtocolVersion] = []string{"2025-11-25"}
		h[mcp.HeaderSessionID] = []string{"0123456789abcdef"}
	}
	req = &http.Request{
		Method:        http.MethodPost,
		URL:           u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(rd),
		GetBody:       func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		ContentLength: int64(len(body)),
		Host:          u.Host,
	}
	return req, func() { rd.Reset(b) }
}

// cannedBase answers every request with one response, reading the body
// to its end as a transport does.
type cannedBase struct {
	resp *http.Response
	auth string // the Authorization header of the last request
}

func (b *cannedBase) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	b.auth = req.Header.Get("Authorization")
	return b.resp, nil
}

// storeTestToken gives tr a token for the server at u, as a finished
// authorization leaves it.
func storeTestToken(tr *Transport, u *url.URL) {
	st := tr.state(serverKey(u))
	st.mu.Lock()
	st.token = &Token{AccessToken: "opaque-access-token", TokenType: "Bearer", Expiry: time.Now().Add(time.Hour), Issuer: "https://as.example.com", Resource: u.String()}
	st.mu.Unlock()
}

// TestTransportCostPerRequest bounds the allocations of a request
// through a Transport that only passes it on (no token) or attaches its
// token: it must neither read nor parse the body (which it needs only to
// name the operation of a step-up on 403), nor copy the request when it
// changes nothing. On 6ebbd51 a legacy tools/call cost 107 allocations (109 with a token):
// the body fetched again and parsed with encoding/json on every request.
func TestTransportCostPerRequest(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:1/mcp")
	for _, tc := range []struct {
		name   string
		body   string
		modern bool
		token  bool
		max    float64
	}{
		{"legacy, no token", costLegacyCall, false, false, 0},
		{"modern, no token", costModernCall, true, false, 0},
		{"legacy, token", costLegacyCall, false, true, 4},
		{"modern, token", costModernCall, true, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := &cannedBase{resp: &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody}}
			tr, err := NewTransport(base, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.token {
				storeTestToken(tr, u)
			}
			req, reset := costRequest(u, tc.body, tc.modern)
			allocs := testing.AllocsPerRun(100, func() {
				reset()
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			})
			if want := map[bool]string{false: "", true: "Bearer opaque-access-token"}[tc.token]; base.auth != want {
				t.Errorf("Authorization %q, want %q", base.auth, want)
			}
			if req.Header.Get("Authorization") != "" {
				t.Error("the caller's request was changed")
			}
			t.Logf("%.0f allocations per request", allocs)
			if allocs > tc.max {
				t.Errorf("%.0f allocations per request, want at most %.0f", allocs, tc.max)
			}
		})
	}
}

// BenchmarkTransportCall measures a tools/call through a Transport to an
// HTTP server, without a token and with one, in each era.
func BenchmarkTransportCall(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello world"}]}}`)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/mcp")
	for _, era := range []struct {
		name   string
		body   string
		modern bool
	}{{"legacy", costLegacyCall, false}, {"modern", costModernCall, true}} {
		for _, token := range []bool{false, true} {
			name := era.name + "/no-token"
			if token {
				name = era.name + "/token"
			}
			b.Run(name, func(b *testing.B) {
				base := http.DefaultTransport.(*http.Transport).Clone()
				defer base.CloseIdleConnections()
				tr, err := NewTransport(base, nil)
				if err != nil {
					b.Fatal(err)
				}
				if token {
					storeTestToken(tr, u)
				}
				req, reset := costRequest(u, era.body, era.modern)
				b.ReportAllocs()
				for b.Loop() {
					reset()
					resp, err := tr.RoundTrip(req)
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
	}
}

// TestRequestStateIgnoresQuery checks that the state a request finds,
// whose key requestState keeps for the next request, is that of its
// URL without query or fragment, whichever URL came before.
func TestRequestStateIgnoresQuery(t *testing.T) {
	tr, err := NewTransport(http.DefaultTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://mcp.example.com/mcp")
	want := tr.state(serverKey(base))
	for _, s := range []string{"https://mcp.example.com/mcp?session=1", "https://mcp.example.com/mcp?session=2#f", "https://mcp.example.com/mcp", "https://mcp.example.com/mcp?"} {
		u, _ := url.Parse(s)
		if tr.requestState(u) != want {
			t.Errorf("%s: not the state of %s", s, base)
		}
	}
	other, _ := url.Parse("https://mcp.example.com/other?session=1")
	if tr.requestState(other) == want {
		t.Errorf("%s: the state of %s", other, base)
	}
}
