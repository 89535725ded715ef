package bridge

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/auth"
)

// A hugeBody is a JSON-RPC call whose one string argument goes on for
// size bytes in all, made as it is read (never held in memory); read
// counts what was taken of it.
type hugeBody struct {
	prefix string
	size   int64
	read   atomic.Int64
}

func (b *hugeBody) Read(p []byte) (int, error) {
	off := b.read.Load()
	if off >= b.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), b.size-off))
	p = p[:n]
	if off < int64(len(b.prefix)) {
		p = p[copy(p, b.prefix[off:]):]
	}
	for len(p) > 0 {
		p = p[copy(p, xs[:]):]
	}
	b.read.Add(int64(n))
	return n, nil
}

// xs is what a hugeBody is made of after its prefix.
var xs = [4096]byte(bytes.Repeat([]byte{'x'}, 4096))

// TestRequestBodiesBounded: every HTTP entry point of a bridge (--listen)
// refuses a body over --max-message-size with 413 early, having read at
// most about the limit of it, with or without a declared length, behind
// OAuth too, and without allocating the body: a client that streams a
// 200 MiB body gets its 413 long before it has sent it all.
func TestRequestBodiesBounded(t *testing.T) {
	const huge = 200 << 20
	const limit = 2 << 20 // --max-message-size: the default (16 MiB) works alike, only slower under -race
	is := newIssuer(t)
	plain := startBridge(t, Options{}, httpLimits{maxMessage: limit}, nil)
	protected := startBridge(t, Options{}, httpLimits{maxMessage: limit}, func(base string) *auth.ResourceServer {
		f := authFlags{issuer: is.URL, scopes: []string{"mcp:tools"}}
		rs, err := f.resourceServer(context.Background(), base)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	})
	token := is.token(t, "alice", protected.base+"/mcp", "mcp:tools")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()

	c := &rawClient{t: t, url: plain.base + "/mcp"}
	c.initialize(ctx)
	sseStream, err := http.NewRequestWithContext(ctx, http.MethodGet, plain.base+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	sseStream.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(sseStream)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	endpoint, err := newEvents(stream.Body).next()
	if err != nil || !strings.HasPrefix(endpoint.data, "/sse") {
		t.Fatalf("/sse: no endpoint event: %+v, %v", endpoint, err)
	}

	legacy := map[string]string{"MCP-Protocol-Version": "2025-11-25"}
	for _, tc := range []struct {
		name, url string
		header    map[string]string
		status    int // 0: 413
	}{
		{"/mcp initialize", plain.base + "/mcp", legacy, 0},
		{"/mcp in a session", plain.base + "/mcp", map[string]string{"MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": c.session}, 0},
		{"/mcp modern", plain.base + "/mcp", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}, 0},
		{"/sse message endpoint", plain.base + endpoint.data, nil, 0},
		{"/mcp behind OAuth", protected.base + "/mcp", map[string]string{"MCP-Protocol-Version": "2025-11-25", "Authorization": "Bearer " + token}, 0},
		{"/mcp behind OAuth, no token", protected.base + "/mcp", legacy, http.StatusUnauthorized},
		{"the Protected Resource Metadata", protected.base + "/.well-known/oauth-protected-resource/mcp", nil, http.StatusMethodNotAllowed},
		{"a path of no handler", plain.base + "/elsewhere", nil, http.StatusNotFound},
	} {
		for _, declared := range []bool{true, false} {
			name := tc.name + ", chunked"
			if declared {
				name = tc.name + ", Content-Length"
			}
			t.Run(name, func(t *testing.T) {
				body := &hugeBody{prefix: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`, size: huge}
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, tc.url, body)
				if err != nil {
					t.Fatal(err)
				}
				req.ContentLength = -1
				if declared {
					req.ContentLength = huge
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range tc.header {
					req.Header.Set(k, v)
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				sent := body.read.Load()
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
				resp.Body.Close()
				runtime.ReadMemStats(&after)
				want := cmp.Or(tc.status, http.StatusRequestEntityTooLarge)
				if resp.StatusCode != want {
					t.Errorf("%s %.200s, want %d", resp.Status, b, want)
				}
				// The limit, and what the sockets between client and bridge
				// hold besides.
				if most := int64(limit + 48<<20); sent > most {
					t.Errorf("the client had sent %d MiB when it got the answer, more than %d MiB", sent>>20, most>>20)
				}
				// Reading up to the limit, and what the client and the
				// bridge allocate besides: far from the body's size.
				if alloc, most := after.TotalAlloc-before.TotalAlloc, uint64(8*limit+16<<20); alloc > most {
					t.Errorf("%d MiB allocated for the refused body, more than %d MiB", alloc>>20, most>>20)
				}
			})
		}
	}
}
