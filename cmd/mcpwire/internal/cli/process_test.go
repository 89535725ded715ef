package cli

import (
	"os/exec"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Regression (issue 18): a server command that exits at once with status
// 1 was reported, once in a few runs, as "write |1: broken pipe": the
// handshake's write failed before the process was reaped, and nothing
// then told how it had ended. Every run must name the exit status.
func TestServerThatExitsAtOnceIsReportedByItsStatus(t *testing.T) {
	if _, err := exec.LookPath("false"); err != nil {
		t.Skip("no false program")
	}
	c := newCLIEnv(t)
	const runs = 50
	bad := 0
	for range runs {
		code, _, stderr := c.Run("tools", "--", "false")
		if want := "mcpwire: the server exited with status 1 before answering\n"; code != app.ExitConnect || stderr != want {
			if bad++; bad <= 3 {
				t.Errorf("exit %d, stderr %q; want exit %d, %q", code, stderr, app.ExitConnect, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d runs did not report the exit status", bad, runs)
	}
}

// Regression (issue 18): --timeout 3s returned after 5 s against a server
// that never answers and stays after the end of its stdin: the shutdown
// waited its fixed 2 seconds for the server to leave, then 2 more after
// SIGTERM, after the timeout had passed. --timeout bounds the whole
// command, the server's shutdown included.
func TestTimeoutBoundsTheServersShutdown(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep program")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	c := newCLIEnv(t)
	const timeout = time.Second
	for _, server := range [][]string{
		{"sleep", "60"}, // stays after the end of stdin, leaves on SIGTERM
		{"sh", "-c", `trap "" TERM; exec sleep 60`}, // ignores SIGTERM too
	} {
		start := time.Now()
		code, _, stderr := c.Run(append([]string{"tools", "--timeout", timeout.String(), "--"}, server...)...)
		d := time.Since(start)
		if want := "mcpwire: cannot connect to the server: timed out after 1s (see --timeout)\n"; code != app.ExitConnect || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want exit %d, %q", server, code, stderr, app.ExitConnect, want)
		}
		if d > timeout+time.Second {
			t.Errorf("%s: mcpwire took %v with --timeout %v", server, d.Round(10*time.Millisecond), timeout)
		}
	}
}
