package streamable_test

import (
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/transport/internal/memnet"
)

// newMemNet serves h on an in-memory network until the test ends, for
// tests run by synctest.Test (see package memnet).
func newMemNet(t *testing.T, h http.Handler) *memnet.Network {
	n := memnet.Serve(h)
	t.Cleanup(n.Close)
	return n
}
