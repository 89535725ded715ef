package config

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the tests of this package leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// machine returns a Linux machine with the environment env, in dir.
func machine(dir string, env map[string]string) *Machine {
	return &Machine{
		GOOS:      "linux",
		Dir:       dir,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
}
