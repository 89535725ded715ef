//go:build unix

package streamable

import (
	"net"
	"syscall"
)

// h1Supported: idle connections can be checked here (h1Alive).
const h1Supported = true

// h1Alive returns the check of an idle connection: a read that does not
// wait, which finds nothing to read on a connection still open; the end
// of the stream, an error, or bytes the server sent unasked (the
// connection is out of step) mean it cannot carry a request.
func h1Alive(nc net.Conn) func() bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return func() bool { return false }
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return func() bool { return false }
	}
	p := &h1Probe{rc: rc}
	p.read = p.readNow // made once: a closure per check would be an allocation
	return p.check
}

// An h1Probe checks one connection.
type h1Probe struct {
	rc    syscall.RawConn
	read  func(fd uintptr) bool
	buf   [1]byte
	alive bool
}

func (p *h1Probe) check() bool {
	p.alive = false
	return p.rc.Read(p.read) == nil && p.alive
}

// readNow reads without waiting: EAGAIN means open and quiet.
func (p *h1Probe) readNow(fd uintptr) bool {
	_, err := syscall.Read(int(fd), p.buf[:])
	p.alive = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
	return true // never wait
}
