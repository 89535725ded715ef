package transport

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the tests of package transport leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
