// Package cannedhttp is test support: an MCP server over HTTP/1.1 that
// answers with canned bytes, parsing no more than it must, so that what a
// benchmark or an allocation test counts in the process is the client's
// (transport/streamable's client tests, the mcpwire command's cost of a
// call over --url).
package cannedhttp

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// A Server answers an MCP client's requests over HTTP/1.1 with canned
// answers, parsing no more than it must: the request line, the
// Content-Length header, and the method and id of a JSON-RPC body as
// the client encodes them. initialize, server/discover and tools/call
// get a result; other calls an empty result; notifications 202; GET 405
// (no standalone stream); DELETE 200.
type Server struct {
	// URL is the server's MCP endpoint.
	URL string

	ln     net.Listener
	sse    bool
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool // open, removed when served
	closed bool              // Close ran
}

// New starts a Server on 127.0.0.1 answering tools/call with a 100-byte
// text, as JSON or, if sse, as an SSE stream that starts with a priming
// event. Close stops it.
func New(tb testing.TB, sse bool) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{ln: ln, URL: "http://" + ln.Addr().String() + "/mcp", sse: sse, conns: map[net.Conn]bool{}}
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			if s.closed { // accepted as Close ran: Close did not see it
				s.mu.Unlock()
				conn.Close()
				return
			}
			s.conns[conn] = true
			s.mu.Unlock()
			s.wg.Go(func() {
				s.serve(conn)
				conn.Close()
				s.mu.Lock()
				delete(s.conns, conn)
				s.mu.Unlock()
			})
		}
	})
	return s
}

// Close stops the server and closes its connections.
func (s *Server) Close() {
	s.ln.Close()
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// maxBody bounds the body of a request the server reads.
const maxBody = 1 << 20

const (
	cannedInit     = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`
	cannedDiscover = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":60000,"cacheScope":"public","resultType":"complete"}`
)

var cannedEcho = `{"content":[{"type":"text","text":"` + string(bytes.Repeat([]byte("x"), 100)) + `"}],"resultType":"complete"}`

func (s *Server) serve(conn net.Conn) {
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
		if length < 0 || length > maxBody {
			return // not a request of the tests: the connection is closed
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
