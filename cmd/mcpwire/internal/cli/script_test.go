package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the end-to-end scripts of testdata/script: the
// mcpwire program (this test binary, dispatched by TestMain to Main, as
// cmd/mcpwire does) against the testserver program (the test server over
// stdio, see testserver_test.go), as real processes.
//
// The programs are mcpwire, testserver (the test server over stdio),
// testhttpserver (the test server over HTTP, with -oauth behind the
// authorization server of httpserver_test.go) and testbrowser (a browser
// for MCPWIRE_BROWSER that follows the authorization URL back to
// mcpwire). Besides testscript's commands, the scripts have
//
//	exits CODE [-within DURATION] PROGRAM [ARG...]
//
// which runs the program like exec and checks its exit code (and that it
// ended within DURATION), and
//
//	waiturl FILE VAR
//
// which waits (up to 10 seconds) for a background testhttpserver to
// write its URL to FILE, and sets the environment variable VAR to it.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits, "waiturl": cmdWaitURL},
		Setup: func(e *testscript.Env) error {
			// Programs built with -race sleep a second on exit by default.
			e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
	})
}

// cmdExits is the exits command of the scripts.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits")
	}
	var within time.Duration
	if len(args) >= 3 && args[1] == "-within" {
		d, err := time.ParseDuration(args[2])
		if err != nil {
			ts.Fatalf("exits: invalid -within %q", args[2])
		}
		within = d
		args = append(args[:1:1], args[3:]...)
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE [-within DURATION] PROGRAM [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: invalid code %q", args[0])
	}
	got := 0
	start := time.Now()
	var ee *exec.ExitError
	if err := ts.Exec(args[1], args[2:]...); errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
	if d := time.Since(start); within > 0 && d > within {
		ts.Fatalf("%s took %v, want at most %v", args[1], d.Round(time.Millisecond), within)
	}
}

// cmdWaitURL is the waiturl command of the scripts.
func cmdWaitURL(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waiturl FILE VAR")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			ts.Setenv(args[1], strings.TrimSpace(string(b)))
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waiturl: no URL in %s after 10s", args[0])
		}
	}
}
