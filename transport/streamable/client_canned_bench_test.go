package streamable_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/client"
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
		srv := newCannedServer(b, era.sse)
		ctx := context.Background()
		args := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(echoArgs)}

		capture := &benchCapture{base: &http.Transport{}}
		c := client.New(mcp.Implementation{Name: "bench", Version: "1"}, &client.Options{Version: era.version})
		sess, err := c.Connect(ctx, streamable.NewTransport(srv.url, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: capture}}))
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
				sess, err := c.Connect(ctx, streamable.NewTransport(srv.url, nil))
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
					req, _ := http.NewRequest(http.MethodPost, srv.url, bytes.NewReader(body))
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
		srv.close()
	}
}

// A cannedServer answers the client's requests over HTTP/1.1 with canned
// answers, parsing no more than it must: the request line, the
// Content-Length header, and the method and id of a JSON-RPC body as
// the client encodes them. initialize, server/discover and tools/call
// get a result; other calls an empty result; notifications 202; GET 405
// (no standalone stream); DELETE 200.
type cannedServer struct {
	ln    net.Listener
	url   string
	sse   bool
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
}

func newCannedServer(tb testing.TB, sse bool) *cannedServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &cannedServer{ln: ln, url: "http://" + ln.Addr().String() + "/mcp", sse: sse, conns: map[net.Conn]bool{}}
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns[conn] = true
			s.mu.Unlock()
			s.wg.Go(func() {
				s.serve(conn)
				conn.Close()
			})
		}
	})
	return s
}

func (s *cannedServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

const (
	cannedInit     = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`
	cannedDiscover = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":60000,"cacheScope":"public","resultType":"complete"}`
)

var cannedEcho = `{"content":[{"type":"text","text":"` + string(bytes.Repeat([]byte("x"), 100)) + `"}],"resultType":"complete"}`

func (s *cannedServer) serve(conn net.Conn) {
	br := bufio.NewReaderSize(conn, 16<<10)
	bw := bufio.NewWriterSize(conn, 16<<10)
	var body, msg []byte
	var num [20]byte
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		verb, _, _ := bytes.Cut(line, []byte(" "))
		get, del := string(verb) == http.MethodGet, string(verb) == http.MethodDelete
		length := 0
		for {
			h, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			h = bytes.TrimRight(h, "\r\n")
			if len(h) == 0 {
				break
			}
			if k, v, ok := bytes.Cut(h, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
				length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
			}
		}
		body = append(body[:0], make([]byte, length)...)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		switch {
		case get:
			bw.WriteString("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		case del:
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		default:
			id := cannedField(body, `"id":`, ',')
			if id == nil {
				bw.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
				break
			}
			result := `{}`
			switch string(cannedField(body, `"method":"`, '"')) {
			case mcp.MethodInitialize:
				result = cannedInit
			case mcp.MethodDiscover:
				result = cannedDiscover
			case mcp.MethodCallTool:
				result = cannedEcho
			}
			msg = append(append(append(append(msg[:0], `{"jsonrpc":"2.0","id":`...), id...), `,"result":`...), result...)
			msg = append(msg, '}')
			if s.sse {
				bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: canned-session\r\nTransfer-Encoding: chunked\r\n\r\n")
				ev := len("id: 1\ndata: \n\n") + len("event: message\nid: 2\ndata: ") + len(msg) + len("\n\n")
				bw.Write(strconv.AppendInt(num[:0], int64(ev), 16))
				bw.WriteString("\r\n")
				bw.WriteString("id: 1\ndata: \n\nevent: message\nid: 2\ndata: ")
				bw.Write(msg)
				bw.WriteString("\n\n\r\n0\r\n\r\n")
			} else {
				bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: canned-session\r\nContent-Length: ")
				bw.Write(strconv.AppendInt(num[:0], int64(len(msg)), 10))
				bw.WriteString("\r\n\r\n")
				bw.Write(msg)
			}
		}
		if bw.Flush() != nil {
			return
		}
	}
}

// cannedField returns what follows key in b up to end (a JSON value as
// the client's encoder writes it: the id before the method, the method
// before the params), or nil.
func cannedField(b []byte, key string, end byte) []byte {
	_, rest, ok := bytes.Cut(b, []byte(key))
	if !ok {
		return nil
	}
	v, _, ok := bytes.Cut(rest, []byte{end})
	if !ok {
		return nil
	}
	return v
}
