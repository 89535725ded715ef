package bridge

import (
	"crypto/rand"
	"encoding/base32"
	"sync"
)

// The pool gives each request an id of the bridge's own (and its
// progress token with it): 128 bits of crypto/rand, so that no client
// can name another's request, even where a server echoes what it is
// given. crypto/rand is read a block at a time, and each block's bytes
// are handed out once: a read per request would cost more than the rest
// of the bridge's work on it where getrandom is a system call.

// idBlock is how many bytes of crypto/rand are read at a time: the ids
// of 256 requests.
const idBlock = 4096

// An idSource hands out random ids (pool.ids).
type idSource struct {
	mu   sync.Mutex
	buf  [idBlock]byte
	left int // the bytes at the end of buf not handed out yet
}

// idEncoding writes an id: 26 letters and digits.
var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// next returns a new id for a request of the bridge to a process.
func (s *idSource) next() string {
	var b [16]byte
	s.mu.Lock()
	if s.left < len(b) {
		rand.Read(s.buf[:]) // never fails (crypto/rand)
		s.left = len(s.buf)
	}
	i := len(s.buf) - s.left
	copy(b[:], s.buf[i:])
	clear(s.buf[i : i+len(b)])
	s.left -= len(b)
	s.mu.Unlock()
	var out [26]byte
	idEncoding.Encode(out[:], b[:])
	return string(out[:])
}
