//go:build !unix

package git

import (
	"os/exec"
	"time"
)

// detach only bounds the wait: GIT_TERMINAL_PROMPT=0 and the empty
// askpass programs keep git from asking. The process is killed at its
// time limit (os.Process.Kill: there is no signal git could clean up
// on).
func detach(cmd *exec.Cmd) (waited func()) {
	cmd.WaitDelay = stopDelay + time.Second
	return func() {}
}
