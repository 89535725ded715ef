package check

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// brokenArg, as the first argument of the test binary, makes it the
// broken server (see broken_test.go), with the defects of the second.
const brokenArg = "mcpwire-check-broken-server"

// TestMain runs the tests, or the broken server over stdio: the test
// binary is the server the tests check.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == brokenArg {
		newBrokenServer(os.Args[2]).serveStdio(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
