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
	wrote chan struct{} // closed by the next write, waking every waiter; nil when none waits
}

// Write appends p.
func (s *LogBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return n, err
}

// WaitFor waits until the buffer holds text, for d at most, and reports
// whether it does. Any number of goroutines may wait at once.
func (s *LogBuffer) WaitFor(text string, d time.Duration) bool {
	timeout := time.After(d)
	for {
		s.mu.Lock()
		done := strings.Contains(s.b.String(), text)
		if !done && s.wrote == nil {
			s.wrote = make(chan struct{})
		}
		wrote := s.wrote
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
