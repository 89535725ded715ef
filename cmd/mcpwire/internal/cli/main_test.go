package cli

import (
	"fmt"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestMain makes the test binary also the programs of the scripts:
// mcpwire, and testserver, testhttpserver and testbrowser of package
// clitest (see script_test.go); and checks that the tests leave no
// goroutine behind.
func TestMain(m *testing.M) {
	programs := clitest.Programs()
	programs["mcpwire"] = func() {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	testscript.Main(leakChecked{m}, programs)
}

// leakChecked runs the tests, then fails if goroutines are left.
type leakChecked struct{ m *testing.M }

func (l leakChecked) Run() int {
	code := l.m.Run()
	if code != 0 {
		return code
	}
	if err := goleak.Find(); err != nil {
		fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
		return 1
	}
	return 0
}

// newTestEnv returns an environment whose app talks to the test server
// in process, with every command of mcpwire.
func newTestEnv(t *testing.T, o clitest.ServerOptions) *clitest.Env {
	t.Helper()
	e := clitest.NewEnv(t, o, families()...)
	e.NewRoot = newRootCmd
	return e
}

// newCLIEnv returns an environment that runs whole command lines of
// mcpwire through the real app.Connect.
func newCLIEnv(t *testing.T) *clitest.CLIEnv {
	c := clitest.NewCLIEnv(t, families()...)
	c.NewRoot = newRootCmd
	return c
}
