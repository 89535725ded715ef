package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	p := &Progress{}
	p.Calls.Store(12345)
	p.Errors.Store(2)
	b := &progressBar{p: p, duration: 10 * time.Second}
	got := b.line(5 * time.Second)
	for _, want := range []string{" 50% ", strings.Repeat("█", 15) + strings.Repeat("░", 15), "5.0s/10s", "12,345 calls", "2,469/s", "2 errors"} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q lacks %q", got, want)
		}
	}
	// With a count, the bar follows the calls; past the end it is full.
	b = &progressBar{p: p, count: 10000}
	if got := b.line(time.Second); !strings.HasPrefix(got, "100% "+strings.Repeat("█", barWidth)+" ") {
		t.Errorf("past the count: %q", got)
	}
}

// TestProgressBarErasesItself checks that the bar, stopped, leaves its
// line blank for the report. (Only the bar's goroutine writes, and end
// waits for it.)
func TestProgressBarErasesItself(t *testing.T) {
	var w bytes.Buffer
	b := startProgress(&w, &Progress{}, time.Second, 0)
	b.end()
	if out := w.String(); !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the bar ends with %q", out)
	}
}
