package observetest

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the subprocess server of the command case when asked to,
// and otherwise checks that the tests leave no goroutine behind.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		runChild()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
