package app

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// slowStart is how long mcpwire waits for a server's first answer before
// it says what it waits for.
const slowStart = 2 * time.Second

// WaitNotice says, once, what mcpwire is waiting for when the server t
// names has not answered within slowStart: a server started with go run
// is compiled first, npx may download one, and until then nothing shows.
// The line goes to a person: on stderr when it is a terminal, or to the
// --verbose log; a script's stderr never gets it, so that what it reads
// there does not depend on a machine's speed. The function returned
// stops the notice; once it has returned, nothing more is written.
func (a *App) WaitNotice(t *Target, log *slog.Logger) (stop func()) {
	terminal := a.IsTerminal != nil && a.IsTerminal(a.Stderr)
	if log == nil && !terminal {
		return func() {}
	}
	msg := waitingFor(t)
	var mu sync.Mutex
	stopped := false
	timer := time.AfterFunc(slowStart, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		if log != nil {
			log.Info(msg)
		} else {
			fmt.Fprintf(a.Stderr, "mcpwire: %s\n", msg)
		}
	})
	return func() {
		timer.Stop()
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}

// waitingFor words what mcpwire waits for from the server t names.
func waitingFor(t *Target) string {
	if t.URL != "" {
		return "waiting for " + t.URL + " to answer…"
	}
	if len(t.Command) == 0 {
		return "waiting for the server to answer…"
	}
	prog := strings.TrimSuffix(filepath.Base(t.Command[0]), ".exe")
	switch {
	case prog == "go" && len(t.Command) > 1 && t.Command[1] == "run":
		return "waiting for the server to start (go run compiles it first)…"
	case prog == "npx" || prog == "uvx" || prog == "pipx" || prog == "bunx":
		return "waiting for the server to start (" + prog + " may download it first)…"
	case prog == "docker" || prog == "podman":
		return "waiting for the server to start (" + prog + " may pull its image first)…"
	}
	return "waiting for the server to answer…"
}
