package jsonscan

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the tests of this package leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
