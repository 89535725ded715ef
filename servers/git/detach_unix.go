//go:build unix

package git

import (
	"os/exec"
	"syscall"
)

// detach starts git in a session of its own, without a controlling
// terminal, so that nothing it runs (ssh asking for a passphrase or to
// trust a host key) can open /dev/tty and wait for an answer. When the
// command's time is up, the whole session is killed: git and what it
// started (ssh, a remote helper, a hook).
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
