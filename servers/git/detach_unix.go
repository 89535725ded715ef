//go:build unix

package git

import (
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// detach starts git in a session of its own, without a controlling
// terminal, so that nothing it runs (ssh asking for a passphrase or to
// trust a host key) can open /dev/tty and wait for an answer. When the
// command's time is up, or its call is cancelled, the whole session is
// asked to stop (SIGTERM: git then removes the lock files it holds, as
// .git/index.lock and HEAD.lock, which a SIGKILL would leave behind for
// every later command to fail on), and killed (SIGKILL) if it has not
// stopped after stopDelay: git and what it started (ssh, a remote helper,
// a hook). The returned func is called once cmd.Wait has returned; it
// stops that kill.
func detach(cmd *exec.Cmd) (waited func()) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var (
		mu    sync.Mutex
		done  bool
		timer *time.Timer
	)
	cmd.Cancel = func() error {
		pid := cmd.Process.Pid
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(stopDelay, func() {
			mu.Lock()
			defer mu.Unlock()
			if !done { // the session's leader is not reaped: its id is still the session's
				syscall.Kill(-pid, syscall.SIGKILL)
			}
		})
		return syscall.Kill(-pid, syscall.SIGTERM)
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		done = true
		if timer != nil {
			timer.Stop()
		}
	}
}
