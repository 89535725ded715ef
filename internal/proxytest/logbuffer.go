package proxytest

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// LogBuffer is a buffer safe for concurrent writers, for the log of a
// proxy under test (an http.Server's ErrorLog, a slog handler): a test
// waits for a line with WaitFor. The zero value is ready to use.
type LogBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // signalled after each write
}

// Write appends p.
func (s *LogBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	defer func() {
		select {
		case s.wrote <- struct{}{}:
		default:
		}
	}()
	return s.b.Write(p)
}

// init makes the write signal; s.mu is held.
func (s *LogBuffer) init() {
	if s.wrote == nil {
		s.wrote = make(chan struct{}, 1)
	}
}

// WaitFor waits until the buffer holds text, for d at most, and reports
// whether it does.
func (s *LogBuffer) WaitFor(text string, d time.Duration) bool {
	timeout := time.After(d)
	for {
		s.mu.Lock()
		s.init()
		done, wrote := strings.Contains(s.b.String(), text), s.wrote
		s.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-wrote:
		case <-timeout:
			return false
		}
	}
}

// String returns what was written.
func (s *LogBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
