package mcptest_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// fakeT is the part of a testing.TB that mcptest uses, recording a
// failure instead of failing the real test, so that the tests can check
// that the helpers fail when they should. The examples use it as a
// stand-in for a test's *testing.T.
type fakeT struct {
	testing.TB // nil: only the methods below are called

	mu       sync.Mutex
	failed   string
	cleanups []func()
}

func (t *fakeT) Helper() {}

func (t *fakeT) Fatalf(format string, args ...any) {
	t.mu.Lock()
	t.failed = fmt.Sprintf(format, args...)
	t.mu.Unlock()
	runtime.Goexit()
}

func (t *fakeT) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

// finish runs the cleanups, last first, as the testing package does.
func (t *fakeT) finish() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// run runs f with t in a goroutine of its own, as a test runs (Fatalf
// ends that goroutine), and returns the failure message, if any.
func (t *fakeT) run(f func(t testing.TB)) string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(t)
	}()
	<-done
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}
