package command

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"unicode/utf8"
)

// tailLines is the number of stderr lines kept for ExitError.
const tailLines = 10

// stderrLog is the server's stderr: os/exec copies the process's output
// into it, and it logs one record per line, keeping the last lines.
// Memory is bounded by max bytes for the line being assembled and
// tailLines lines of at most max bytes.
type stderrLog struct {
	max   int
	ready chan struct{} // closed by start: log is set
	once  sync.Once
	log   *slog.Logger // nil: lines are only kept, not logged

	mu        sync.Mutex
	line      []byte // the line being assembled, at most max bytes
	truncated bool   // the line passed max bytes: drop the rest of it
	last      [tailLines]string
	n         int // lines written to last, in all
}

func newStderrLog(max int) *stderrLog {
	return &stderrLog{max: max, ready: make(chan struct{})}
}

// start sets the logger, once the pid is known, and lets Write proceed.
func (s *stderrLog) start(log *slog.Logger) {
	s.once.Do(func() {
		s.log = log
		close(s.ready)
	})
}

// Write takes a piece of the server's stderr. It never fails: a failing
// writer would make os/exec stop reading, and the server block or die.
func (s *stderrLog) Write(p []byte) (int, error) {
	<-s.ready
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !s.truncated {
			if room := s.max - len(s.line); len(chunk) > room {
				s.line = append(s.line, chunk[:room]...)
				s.truncated = true
			} else {
				s.line = append(s.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		s.emit()
		p = p[i+1:]
	}
	return n, nil
}

// flush emits a last line that had no line ending.
func (s *stderrLog) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.line) > 0 {
		s.emit()
	}
}

// emit logs and keeps the line assembled so far. s.mu is held.
func (s *stderrLog) emit() {
	b := bytes.TrimSuffix(s.line, []byte{'\r'})
	truncated := s.truncated
	if truncated {
		// Drop a character cut in the middle.
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					b = b[:i]
				}
				break
			}
		}
	}
	s.line, s.truncated = s.line[:0], false
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	line := string(b)
	s.last[s.n%tailLines] = line
	s.n++
	if s.log == nil || !s.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	if truncated {
		s.log.LogAttrs(context.Background(), slog.LevelInfo, "stderr", slog.String("line", line), slog.Bool("truncated", true))
	} else {
		s.log.LogAttrs(context.Background(), slog.LevelInfo, "stderr", slog.String("line", line))
	}
}

// tail returns the last lines, oldest first.
func (s *stderrLog) tail() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := min(s.n, tailLines)
	out := make([]string, 0, k)
	for i := s.n - k; i < s.n; i++ {
		out = append(out, s.last[i%tailLines])
	}
	return out
}
