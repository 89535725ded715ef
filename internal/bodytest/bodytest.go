// Package bodytest checks that an HTTP entry point refuses a huge request
// body early, reading little more of it than its limit: test support,
// imported by tests only.
//
// A Server serves a handler on 127.0.0.1 behind a listener that counts
// the bytes the server reads from each connection. Post sends one request
// whose body, Huge bytes, is made as it is written (never held in
// memory), with a declared Content-Length or chunked, on a connection of
// its own; it reads the response while the body is still being written,
// as a server that refuses early answers, waits for the server to close
// its side, and reports the status, the start of the answer, the bytes
// the server read and the bytes the process allocated meanwhile.
package bodytest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Huge is the size of the body Post sends: 200 MiB.
const Huge = 200 << 20

// Slack is what a server may read beyond its limit: the request's
// headers, its buffers, and the 256 KiB net/http discards of an unread
// body before it closes the connection.
const Slack = 1 << 20

// A Server is an httptest server whose listener counts what is read.
type Server struct {
	// URL is the base URL, http://127.0.0.1:PORT.
	URL string
	// Addr is the listening address, 127.0.0.1:PORT.
	Addr string

	ts    *httptest.Server
	mu    sync.Mutex
	conns map[string]*countingConn // by the client's address
}

// NewServer serves h; the server is closed when the test ends.
func NewServer(tb testing.TB, h http.Handler) *Server {
	tb.Helper()
	s := NewUnstartedServer(tb)
	s.Start(h)
	return s
}

// NewUnstartedServer listens without serving yet, for handlers that need
// the address first; Start serves them.
func NewUnstartedServer(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{conns: map[string]*countingConn{}}
	s.ts = httptest.NewUnstartedServer(nil)
	s.ts.Listener = &countingListener{Listener: s.ts.Listener, s: s}
	s.Addr = s.ts.Listener.Addr().String()
	s.URL = "http://" + s.Addr
	tb.Cleanup(func() {
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
	return s
}

// Start serves h.
func (s *Server) Start(h http.Handler) {
	s.ts.Config.Handler = h
	s.ts.Start()
}

type countingListener struct {
	net.Listener
	s *Server
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	cc := &countingConn{Conn: c}
	l.s.mu.Lock()
	l.s.conns[c.RemoteAddr().String()] = cc
	l.s.mu.Unlock()
	return cc, nil
}

// A countingConn is a server's connection that counts what it reads.
type countingConn struct {
	net.Conn
	read atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// CloseWrite lets the server close its side first, as it does on a bare
// TCP connection.
func (c *countingConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// A Body is the body Post sends: Prefix, then Fill repeated, cut at Huge
// bytes.
type Body struct {
	Prefix string
	Fill   string // default "x"
}

// A Result is what became of a huge POST.
type Result struct {
	Status    int    // the response's status; 0 if none came
	Answer    string // the start of the response's body
	Read      int64  // bytes the server read from the connection, headers included
	Sent      int64  // body bytes the client got to write
	Allocated uint64 // bytes the process allocated meanwhile
	Err       error  // why no response was read, if none was
}

func (r Result) String() string {
	return fmt.Sprintf("status %d %q; the server read %d bytes (%d sent); %d bytes allocated; error %v",
		r.Status, r.Answer, r.Read, r.Sent, r.Allocated, r.Err)
}

// Post sends method path (with its query) with the headers h (Host is
// the server's unless h sets it) and a Huge body, declared with
// Content-Length or, if chunked, sent chunked.
func (s *Server) Post(tb testing.TB, method, path string, h http.Header, body Body, chunked bool) Result {
	tb.Helper()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	conn, err := net.Dial("tcp", s.Addr)
	if err != nil {
		tb.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	head := method + " " + path + " HTTP/1.1\r\n"
	if h.Get("Host") == "" {
		head += "Host: " + s.Addr + "\r\n"
	}
	for k, vs := range h {
		for _, v := range vs {
			head += k + ": " + v + "\r\n"
		}
	}
	if chunked {
		head += "Transfer-Encoding: chunked\r\n"
	} else {
		head += "Content-Length: " + strconv.Itoa(Huge) + "\r\n"
	}
	head += "Connection: close\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		tb.Fatal(err)
	}
	var sent atomic.Int64
	written := make(chan struct{})
	go func() {
		defer close(written)
		var w io.Writer = conn
		var cw io.WriteCloser
		if chunked {
			cw = httputil.NewChunkedWriter(conn)
			w = cw
		}
		n, _ := io.Copy(w, &generator{body: body})
		sent.Store(n)
		if cw != nil && n == Huge {
			cw.Close()
			io.WriteString(conn, "\r\n")
		}
	}()
	res := Result{}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		res.Err = err
	} else {
		res.Status = resp.StatusCode
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		res.Answer = string(b)
		// The server closes its side once it is done with the request
		// (Connection: close), after discarding what it will of the
		// unread body: what it read is known then.
		if _, err := io.Copy(io.Discard, io.LimitReader(br, 1<<20)); err != nil {
			res.Err = err
		}
	}
	s.mu.Lock()
	sc := s.conns[conn.LocalAddr().String()]
	s.mu.Unlock()
	if sc != nil {
		res.Read = sc.read.Load()
	}
	conn.Close()
	<-written
	res.Sent = sent.Load()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	res.Allocated = after.TotalAlloc - before.TotalAlloc
	return res
}

// A generator reads a Body of Huge bytes, made as it is read.
type generator struct {
	body Body
	off  int64
}

func (g *generator) Read(p []byte) (int, error) {
	if g.off >= Huge {
		return 0, io.EOF
	}
	if rest := Huge - g.off; int64(len(p)) > rest {
		p = p[:rest]
	}
	fill := g.body.Fill
	if fill == "" {
		fill = "x"
	}
	n := 0
	for n < len(p) {
		var k int
		if g.off < int64(len(g.body.Prefix)) {
			k = copy(p[n:], g.body.Prefix[g.off:])
		} else {
			k = copy(p[n:], fill[(g.off-int64(len(g.body.Prefix)))%int64(len(fill)):])
		}
		n += k
		g.off += int64(k)
	}
	return n, nil
}
