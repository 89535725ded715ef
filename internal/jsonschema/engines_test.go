package jsonschema

import "testing"

// The full engine is registered by full_link_test.go, in the external test
// package of this directory, which shares the test binary.

// theFullEngine returns the registered full engine.
func theFullEngine(tb testing.TB) FullEngine {
	tb.Helper()
	e := registeredFull()
	if e == nil {
		tb.Fatal("no full engine registered: full_link_test.go imports internal/jsonschema/full")
	}
	return e
}

// compileFull compiles a document with the full engine alone.
func compileFull(tb testing.TB, raw []byte, assertFormat bool) (FullSchema, error) {
	tb.Helper()
	return theFullEngine(tb).Compile(raw, assertFormat)
}

// withoutFullEngine unregisters the full engine until the test ends, so
// that Compile runs as in a program that does not link it. Tests that
// call it must not run in parallel.
func withoutFullEngine(tb testing.TB) {
	tb.Helper()
	saved := fullEngine.Swap(nil)
	tb.Cleanup(func() { fullEngine.Store(saved) })
}

// bothWays runs f with the full engine registered and without it.
func bothWays(t *testing.T, f func(t *testing.T)) {
	t.Run("full", func(t *testing.T) {
		theFullEngine(t)
		f(t)
	})
	t.Run("builtin", func(t *testing.T) {
		withoutFullEngine(t)
		f(t)
	})
}
