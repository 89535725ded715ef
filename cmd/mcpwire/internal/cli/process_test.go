package cli

import (
	"os/exec"
	"testing"

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
