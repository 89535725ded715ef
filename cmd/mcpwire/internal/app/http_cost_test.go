//go:build !race

package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestHTTPCallCost bounds what a tools/call over --url costs mcpwire
// (bench, call, bridge --url and the inspector open their sessions so):
// the MCP client, the layers of http.go (the watches and auth.Transport,
// with no token here) and the streamable transport, against a server
// that answers at once with canned bytes (cannedHTTP), so that the
// allocations counted are the client's. On 6ebbd51 the layers went over
// a net/http client, and auth.Transport fetched, read and parsed every
// body and cloned every request: 192 allocations for a legacy call, 95
// for a modern one.
func TestHTTPCallCost(t *testing.T) {
	for _, tc := range []struct {
		era     string
		version mcp.Version
	}{{"legacy", mcp.Version20251125}, {"modern", ""}} {
		t.Run(tc.era, func(t *testing.T) {
			srv := newCannedHTTP(t)
			defer srv.close()
			a := New(strings.NewReader(""), io.Discard, io.Discard)
			a.Global.Protocol = tc.version
			ctx := context.Background()
			sess, end, err := a.OpenSession(ctx, &Target{URL: srv.url})
			if err != nil {
				t.Fatal(err)
			}
			defer end()
			args := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)}
			allocs := testing.AllocsPerRun(300, func() {
				if _, err := sess.CallTool(ctx, args); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%.0f allocations per call", allocs)
			if allocs > 50 {
				t.Errorf("%.0f allocations per call, want at most 50", allocs)
			}
		})
	}
}

// cannedHTTP answers over HTTP/1.1 with canned bytes, parsing no more
// than it must: the request line, Content-Length, and the id and method
// of a JSON-RPC body as the client encodes them. initialize and
// server/discover get their result, tools/call a text, notifications
// 202, GET 405 (no standalone stream), DELETE 200.
type cannedHTTP struct {
	ln  net.Listener
	url string
	wg  sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]bool
}

func newCannedHTTP(t *testing.T) *cannedHTTP {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &cannedHTTP{ln: ln, url: "http://" + ln.Addr().String() + "/mcp", conns: map[net.Conn]bool{}}
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

func (s *cannedHTTP) close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *cannedHTTP) serve(conn net.Conn) {
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
		switch string(verb) {
		case "GET":
			bw.WriteString("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		case "DELETE":
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		default:
			id := cannedValue(body, `"id":`, ',')
			if id == nil {
				bw.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
				break
			}
			result := `{}`
			switch string(cannedValue(body, `"method":"`, '"')) {
			case mcp.MethodInitialize:
				result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`
			case mcp.MethodDiscover:
				result = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":60000,"cacheScope":"public","resultType":"complete"}`
			case mcp.MethodCallTool:
				result = `{"content":[{"type":"text","text":"hello"}],"resultType":"complete"}`
			}
			msg = append(append(append(append(msg[:0], `{"jsonrpc":"2.0","id":`...), id...), `,"result":`...), result...)
			msg = append(msg, '}')
			bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: canned-session\r\nContent-Length: ")
			bw.Write(strconv.AppendInt(num[:0], int64(len(msg)), 10))
			bw.WriteString("\r\n\r\n")
			bw.Write(msg)
		}
		if bw.Flush() != nil {
			return
		}
	}
}

// cannedValue returns what follows key in b up to end, or nil.
func cannedValue(b []byte, key string, end byte) []byte {
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
