// Package memnet is an in-memory network for the tests of the HTTP
// transports: an http.Handler served on a listener whose connections are
// in-memory pipes, and an *http.Client that dials it.
//
// Every goroutine of the server and of the client then blocks on
// channels or condition variables, so that a test run by synctest.Test
// sees them as durably blocked: the fake clock moves past a retry delay
// or an idle timeout at once and exactly, and synctest.Wait, or a sleep
// of fake time, proves that nothing more happens, where a test on a real
// network must sleep "long enough" and hope. (A test that touches a real
// socket inside a bubble hangs instead: nothing there is durably blocked.)
package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// A Network serves one http.Handler. Its zero value is not usable: call
// Serve.
type Network struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	srv    *http.Server
	served chan struct{}
	tr     *http.Transport
	// Client sends requests to the handler; any host name reaches it.
	Client *http.Client
}

// Serve serves h until Close.
func Serve(h http.Handler) *Network {
	n := &Network{conns: make(chan net.Conn), closed: make(chan struct{}), served: make(chan struct{})}
	n.srv = &http.Server{Handler: h}
	n.tr = &http.Transport{DialContext: n.dial}
	n.Client = &http.Client{Transport: n.tr}
	go func() {
		defer close(n.served)
		n.srv.Serve(listener{n})
	}()
	return n
}

// Close closes the client's idle connections and the server with its
// connections, and waits for the server to stop.
func (n *Network) Close() {
	n.tr.CloseIdleConnections()
	n.srv.Close()
	<-n.served
}

// dial connects to the server.
func (n *Network) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, s := memPipe()
	select {
	case n.conns <- s:
		return c, nil
	case <-n.closed:
		return nil, errors.New("memnet: closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A listener is the server's side of a Network.
type listener struct{ n *Network }

// Accept implements net.Listener.
func (l listener) Accept() (net.Conn, error) {
	n := l.n
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.closed:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (l listener) Close() error {
	l.n.once.Do(func() { close(l.n.closed) })
	return nil
}

// Addr implements net.Listener.
func (l listener) Addr() net.Addr { return memAddr{} }

type memAddr struct{}

func (memAddr) Network() string { return "memnet" }
func (memAddr) String() string  { return "mcp.test:80" }

// memBuffer bounds the bytes in flight in each direction of a memConn,
// as a socket's buffers do: a writer waits beyond it. (net.Pipe has no
// buffer at all, so that a server writing an SSE event would wait for
// the client to read it, which a test on TCP never sees.)
const memBuffer = 256 << 10

// A memStream is one direction of a memConn.
type memStream struct {
	mu     sync.Mutex
	cond   sync.Cond
	buf    []byte
	closed bool // either end closed: reads drain buf, then EOF
}

// memPipe returns the two ends of an in-memory connection.
func memPipe() (net.Conn, net.Conn) {
	a, b := &memStream{}, &memStream{}
	a.cond.L, b.cond.L = &a.mu, &b.mu
	return &memConn{in: a, out: b}, &memConn{in: b, out: a}
}

// A memConn is one end: it reads in and writes out.
type memConn struct {
	in, out    *memStream
	rdl, wdl   memDeadline
	closeOnce  sync.Once
	localClose bool
}

// A memDeadline is a read or write deadline; its timer wakes the waiters
// of its stream when it passes.
type memDeadline struct {
	mu    sync.Mutex
	at    time.Time
	timer *time.Timer
}

// set sets the deadline and wakes the waiters of s to look at it. (The
// stream's lock is never taken under the deadline's: Read and Write look
// at the deadline under the stream's.)
func (d *memDeadline) set(t time.Time, s *memStream) {
	wake := func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	}
	d.mu.Lock()
	d.at = t
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	if !t.IsZero() {
		d.timer = time.AfterFunc(time.Until(t), wake)
	}
	d.mu.Unlock()
	wake()
}

func (d *memDeadline) passed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return !d.at.IsZero() && !time.Now().Before(d.at)
}

func (c *memConn) Read(p []byte) (int, error) {
	s := c.in
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) == 0 || c.localClose {
		switch {
		case c.localClose:
			return 0, net.ErrClosed
		case s.closed:
			return 0, io.EOF
		case c.rdl.passed():
			return 0, os.ErrDeadlineExceeded
		}
		s.cond.Wait()
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	s.cond.Broadcast()
	return n, nil
}

func (c *memConn) Write(p []byte) (int, error) {
	s := c.out
	s.mu.Lock()
	defer s.mu.Unlock()
	written := 0
	for written < len(p) {
		switch {
		case s.closed:
			return written, io.ErrClosedPipe
		case c.wdl.passed():
			return written, os.ErrDeadlineExceeded
		case len(s.buf) >= memBuffer:
			s.cond.Wait()
			continue
		}
		n := min(len(p)-written, memBuffer-len(s.buf))
		s.buf = append(s.buf, p[written:written+n]...)
		written += n
		s.cond.Broadcast()
	}
	return written, nil
}

// Close ends both directions: the peer reads what was written, then EOF.
func (c *memConn) Close() error {
	c.closeOnce.Do(func() {
		for _, s := range []*memStream{c.in, c.out} {
			s.mu.Lock()
			s.closed = true
			if s == c.in {
				c.localClose = true
			}
			s.cond.Broadcast()
			s.mu.Unlock()
		}
		c.rdl.set(time.Time{}, c.in)
		c.wdl.set(time.Time{}, c.out)
	})
	return nil
}

func (c *memConn) LocalAddr() net.Addr  { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr { return memAddr{} }

func (c *memConn) SetDeadline(t time.Time) error {
	c.rdl.set(t, c.in)
	c.wdl.set(t, c.out)
	return nil
}
func (c *memConn) SetReadDeadline(t time.Time) error  { c.rdl.set(t, c.in); return nil }
func (c *memConn) SetWriteDeadline(t time.Time) error { c.wdl.set(t, c.out); return nil }
