//go:build !unix

package git

import "os/exec"

// detach does nothing here: GIT_TERMINAL_PROMPT=0 and the empty askpass
// programs keep git from asking. The process is killed at its time limit
// (os.Process.Kill: there is no signal git could clean up on), and the
// wait bounded by the command's WaitDelay (run.go).
func detach(cmd *exec.Cmd) (waited func()) {
	return func() {}
}
