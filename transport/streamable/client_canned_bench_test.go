package streamable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/internal/cannedhttp"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// BenchmarkClientCallCanned measures what a tools/call costs the client
// alone: the server is a loop over a TCP connection that reads each
// request and writes a canned answer (a few allocations per call at
// most), so that allocs/op, B/op and cpu-µs/op are almost all the
// client's. Eras and answers:
//
//   - modern/json: 2026-07-28, answered with JSON;
//   - legacy/json: 2025-11-25 in a session, answered with JSON;
//   - legacy/sse: 2025-11-25, answered with an SSE stream that starts
//     with a priming event.
//
// "client" is the MCP client over this package's ClientConn with default
// options; "nethttp" posts the same bytes with a bare net/http client and
// reads the answer to its end: the floor of net/http's own client.
//
//	go test -run '^$' -bench ClientCallCanned -benchmem ./transport/streamable
func BenchmarkClientCallCanned(b *testing.B) {
	for _, era := range []struct {
		name    string
		version mcp.Version
		sse     bool
	}{
		{"modern/json", "", false},
		{"legacy/json", mcp.Version20251125, false},
		{"legacy/sse", mcp.Version20251125, true},
	} {
		srv := cannedhttp.New(b, era.sse)
		ctx := context.Background()
		args := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(echoArgs)}

		capture := &benchCapture{base: &http.Transport{}}
		c := client.New(mcp.Implementation{Name: "bench", Version: "1"}, &client.Options{Version: era.version})
		sess, err := c.Connect(ctx, streamable.NewTransport(srv.URL, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: capture}}))
		if err != nil {
			b.Fatal(err)
		}
		capture.on.Store(true)
		if _, err := sess.CallTool(ctx, args); err != nil {
			b.Fatal(err)
		}
		capture.on.Store(false)
		sess.Close()
		capture.base.CloseIdleConnections()

		for _, conc := range []int{1, 8} {
			name := era.name + "/c=" + strconv.Itoa(conc)
			b.Run(name+"/client", func(b *testing.B) {
				c := client.New(mcp.Implementation{Name: "bench", Version: "1"}, &client.Options{Version: era.version})
				sess, err := c.Connect(ctx, streamable.NewTransport(srv.URL, nil))
				if err != nil {
					b.Fatal(err)
				}
				defer sess.Close()
				benchParallel(b, conc, func() error {
					res, err := sess.CallTool(ctx, args)
					if err == nil && (res.IsError || len(res.Content) != 1) {
						b.Errorf("unexpected result %+v", res)
					}
					return err
				})
			})
			b.Run(name+"/nethttp", func(b *testing.B) {
				tr := &http.Transport{MaxIdleConnsPerHost: 64}
				defer tr.CloseIdleConnections()
				hc := &http.Client{Transport: tr}
				var ids atomic.Int64
				pre, post, ok := bytes.Cut(capture.body, []byte(`"id":`))
				if !ok {
					b.Fatalf("no id in %s", capture.body)
				}
				_, post, _ = bytes.Cut(post, []byte(","))
				benchParallel(b, conc, func() error {
					body := append(append(append([]byte(nil), pre...), `"id":`...), strconv.FormatInt(ids.Add(1), 10)...)
					body = append(append(body, ','), post...)
					req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
					req.Header = capture.header
					resp, err := hc.Do(req)
					if err != nil {
						return err
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || n == 0 {
						b.Errorf("HTTP %d, %d bytes", resp.StatusCode, n)
					}
					return nil
				})
			})
		}
		srv.Close()
	}
}
