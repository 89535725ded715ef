package login

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/talk"
)

// TestMain checks that the tests of this package leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newCLIEnv returns an environment that runs whole command lines, with
// the commands of this package and those of package talk, which send
// the tokens login obtains.
func newCLIEnv(t *testing.T) *clitest.CLIEnv {
	return clitest.NewCLIEnv(t, talk.Family(), Family())
}
