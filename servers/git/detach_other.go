//go:build !unix

package git

import "os/exec"

// detach does nothing here: GIT_TERMINAL_PROMPT=0 and the empty askpass
// programs keep git from asking.
func detach(cmd *exec.Cmd) {}
