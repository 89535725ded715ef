//go:build linux

package filesystem

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mcpwire/mcpwire/client"
)

// TestEscapeBySwappedLink races the tools against a directory that is
// swapped, atomically and over and over, with a link to the outside
// (renameat2 RENAME_EXCHANGE): a check-then-use server would act outside
// some of the time. Every call must act inside or fail, and the outside
// tree must not change.
func TestEscapeBySwappedLink(t *testing.T) {
	allowed, outside := escapeFixture(t)
	// "swap" is a real directory holding f.txt; "spare" a link to the
	// outside directory that also holds f.txt. They trade places.
	swap, spare := filepath.Join(allowed, "swap"), filepath.Join(allowed, "spare")
	if err := os.Rename(filepath.Join(allowed, "real"), swap); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "dir"), spare); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, outside)
	cs := startOurs(t, []string{allowed}, nil, "2025-11-25", nil)
	leaks := raceSwaps(t, cs, allowed, swap, spare, 150)
	if leaks > 0 {
		t.Errorf("%d calls read the outside", leaks)
	}
	if d := diffSnapshots(before, snapshot(t, outside)); d != "" {
		t.Errorf("the outside tree changed:\n%s", d)
	}
}

// raceSwaps runs calls on swap/... while swap and spare trade places, and
// returns how many results showed the outside's contents.
func raceSwaps(t *testing.T, cs *client.Session, allowed, swap, spare string, rounds int) (leaks int) {
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, swap, unix.AT_FDCWD, spare, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
			swaps.Add(1)
			runtime.Gosched()
		}
	}()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_text_file", a("path", "swap/f.txt")},
		{"write_file", a("path", "swap/f.txt", "content", "PWNED\n")},
		{"write_file", a("path", "swap/new.txt", "content", "PWNED\n")},
		{"edit_file", a("path", "swap/f.txt", "edits", []map[string]any{{"oldText": "line:", "newText": "PWNED:"}})},
		{"create_directory", a("path", "swap/made")},
		{"move_file", a("source", "swap/f.txt", "destination", "swap/g.txt")},
		{"move_file", a("source", "swap/g.txt", "destination", "swap/f.txt")},
		{"list_directory", a("path", "swap")},
		{"get_file_info", a("path", "swap/f.txt")},
		{"search_files", a("path", "swap", "pattern", "**")},
	}
	var okCalls, failed int
	for i := 0; i < rounds; i++ {
		for _, c := range calls {
			r := callTool(t, cs, allowed, c.tool, c.args)
			if r.IsError {
				failed++
			} else {
				okCalls++
			}
			if strings.Contains(r.Text, "TOP SECRET") {
				leaks++
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d swaps during %d calls: %d succeeded, %d failed", swaps.Load(), okCalls+failed, okCalls, failed)
	if swaps.Load() < 100 {
		t.Errorf("only %d swaps: the race was not run", swaps.Load())
	}
	return leaks
}

// TestOfficialEscapesBySwappedLink runs the same race against the official
// server, which checks a path and then uses it. It only reports what
// happened: that the race makes a check-then-use server act outside shows
// that TestEscapeBySwappedLink can fail.
func TestOfficialEscapesBySwappedLink(t *testing.T) {
	allowed, outside := escapeFixture(t)
	swap, spare := filepath.Join(allowed, "swap"), filepath.Join(allowed, "spare")
	if err := os.Rename(filepath.Join(allowed, "real"), swap); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "dir"), spare); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, outside)
	cs := startOfficial(t, []string{allowed}, nil)
	leaks := raceSwaps(t, cs, allowed, swap, spare, 40)
	t.Logf("the official server: %d results showed the outside; outside tree changed: %v", leaks, diffSnapshots(before, snapshot(t, outside)) != "")
}
