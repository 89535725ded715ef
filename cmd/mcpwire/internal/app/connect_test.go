package app

import (
	"os/exec"
	"testing"

	"github.com/mcpwire/mcpwire/transport/command"
)

// TestServerExit: the exit status and the last stderr line of the
// server, skipping the line "go run" adds.
func TestServerExit(t *testing.T) {
	err := exec.Command("sh", "-c", "exit 3").Run()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Skipf("no sh: %v", err)
	}
	tests := []struct {
		stderr []string
		want   string
	}{
		{nil, "the server exited with status 3"},
		{[]string{"starting", "fatal: no config"}, "the server exited with status 3: fatal: no config"},
		{[]string{"fatal: no config", "exit status 3"}, "the server exited with status 3: fatal: no config"},
		{[]string{"exit status 3"}, "the server exited with status 3: exit status 3"},
	}
	for _, tt := range tests {
		g := serverExit(&command.ExitError{Command: "srv", Pid: 1, State: ee.ProcessState, Stderr: tt.stderr})
		if got := g.Error(); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.stderr, got, tt.want)
		}
	}
}
