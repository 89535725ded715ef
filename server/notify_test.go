package server

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// heldTarget is a target whose deliveries wait for release, and that
// records them.
type heldTarget struct {
	mu      sync.Mutex
	out     outbox
	release chan struct{}
	got     []note
	gotMu   sync.Mutex
}

func (h *heldTarget) outbox() (*sync.Mutex, *outbox) { return &h.mu, &h.out }
func (h *heldTarget) base() context.Context          { return context.Background() }
func (h *heldTarget) abandon()                       {}
func (h *heldTarget) deliver(ctx context.Context, n note) error {
	<-h.release
	h.gotMu.Lock()
	h.got = append(h.got, n)
	h.gotMu.Unlock()
	return nil
}

// What waits for a target that does not read is bounded per kind:
// resource updates by MaxSubscriptions, task states by the tasks a client
// may own; beyond that they are dropped (and logged), the other kind
// unaffected, and the latest state of a task replaces the one before.
func TestPendingNotesAreBoundedPerKind(t *testing.T) {
	s := New(mcp.Implementation{Name: "bound", Version: "1"}, &Options{MaxSubscriptions: 2, Tasks: &TaskOptions{MaxTasksPerOwner: 200}})
	h := &heldTarget{release: make(chan struct{})}
	h.out.sending = true // as if a sender were stuck: everything waits
	for i := range 5 {
		key := fmt.Sprint("u", i)
		s.post(h, func(b *outbox) bool { return s.putNote(b, key, note{method: "u", uri: key}) })
	}
	for i := range 300 {
		key := fmt.Sprint("t", i%250)
		s.post(h, func(b *outbox) bool { return s.putNote(b, key, note{method: "t", params: i}) })
	}
	close(h.release)
	s.senders.Add()
	s.send(h) // the stuck sender comes back, and takes what waits
	uris, tasks := 0, map[string]any{}
	for _, n := range h.got {
		switch n.method {
		case "u":
			uris++
		case "t":
			tasks[fmt.Sprint(n.params)] = n.params
		}
	}
	if uris != 2 {
		t.Errorf("%d resource updates delivered, want the bound of 2", uris)
	}
	if n := len(h.got) - uris; n != 200 {
		t.Errorf("%d task states delivered, want the bound of 200", n)
	}
	if _, ok := tasks["250"]; !ok {
		t.Errorf("the latest state of task t0 (250) was not the one delivered")
	}
	if _, ok := tasks["0"]; ok {
		t.Errorf("an older state of task t0 was delivered")
	}
}
