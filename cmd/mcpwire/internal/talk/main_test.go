package talk

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestMain checks that the tests of this package leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newTestEnv returns an environment whose app talks to the test server
// in process, with the commands of this package.
func newTestEnv(t *testing.T, o clitest.ServerOptions) *clitest.Env {
	t.Helper()
	return clitest.NewEnv(t, o, Family())
}
