package store_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return store.NewMemory(&store.MemoryOptions{MaxEventsPerSession: 50})
	}, 50)
}
