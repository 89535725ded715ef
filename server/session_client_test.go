package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestClientStatesShared: sessions whose clients declared the same share
// one state; a difference after decoding (even nil against an empty map)
// makes a state of its own; what is kept for sharing is bounded in count
// and size.
func TestClientStatesShared(t *testing.T) {
	var cs clientStates
	info := mcp.Implementation{Name: "c", Version: "1"}
	caps := mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true}}
	a := cs.intern(mcp.Version20251125, info, caps)
	b := cs.intern(mcp.Version20251125, info, mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true}})
	if a != b {
		t.Error("two sessions of the same client do not share their state")
	}
	if a.version != mcp.Version20251125 || a.info.Name != "c" || !a.caps.Roots.ListChanged {
		t.Errorf("state %+v", a)
	}
	for _, other := range []*clientState{
		cs.intern(mcp.Version20250618, info, caps),
		cs.intern(mcp.Version20251125, mcp.Implementation{Name: "c", Version: "1", Title: "t"}, caps),
		cs.intern(mcp.Version20251125, info, mcp.ClientCapabilities{Roots: &mcp.RootsCapability{}}),
		cs.intern(mcp.Version20251125, info, mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true}, Experimental: map[string]json.RawMessage{}}),
	} {
		if other == a {
			t.Errorf("a different client shares %+v", other)
		}
	}
	big := mcp.Implementation{Name: "big", Version: "1", Description: strings.Repeat("x", maxSharedStateSize)}
	first := cs.intern(mcp.Version20251125, big, caps)
	if cs.intern(mcp.Version20251125, big, caps) == first {
		t.Error("a state over maxSharedStateSize was kept for sharing")
	}
	for i := range 3 * maxClientStates {
		cs.intern(mcp.Version20251125, mcp.Implementation{Name: "c", Version: string(rune('a' + i))}, caps)
		if n := len(cs.states); n > maxClientStates {
			t.Fatalf("%d states kept, want at most %d", n, maxClientStates)
		}
	}
}

// TestClientStateSizeBound: a state is kept for sharing when its JSON,
// {"v":…,"i":…,"c":…}, is at most maxSharedStateSize bytes, and not when
// it is one byte more.
func TestClientStateSizeBound(t *testing.T) {
	caps := mcp.ClientCapabilities{Roots: &mcp.RootsCapability{ListChanged: true}}
	size := func(info mcp.Implementation) int {
		v, _ := json.Marshal(mcp.Version20251125)
		i, _ := json.Marshal(info)
		c, _ := json.Marshal(caps)
		return len(`{"v":,"i":,"c":}`) + len(v) + len(i) + len(c)
	}
	info := mcp.Implementation{Name: "c", Version: "1", Description: "x"}
	info.Description = strings.Repeat("x", 1+maxSharedStateSize-size(info))
	if n := size(info); n != maxSharedStateSize {
		t.Fatalf("the state is %d bytes, want %d", n, maxSharedStateSize)
	}
	var cs clientStates
	if a := cs.intern(mcp.Version20251125, info, caps); cs.intern(mcp.Version20251125, info, caps) != a {
		t.Errorf("a state of %d bytes was not kept for sharing", maxSharedStateSize)
	}
	info.Description += "x"
	if a := cs.intern(mcp.Version20251125, info, caps); cs.intern(mcp.Version20251125, info, caps) == a {
		t.Errorf("a state of %d bytes was kept for sharing", maxSharedStateSize+1)
	}
}
