package server

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/mcpwire/mcpwire/mcp"
)

// clientState is what initialize negotiated for a legacy session: the
// revision, and what the client said of itself. It is written once,
// before the session is seen initialized, and never changed: requests
// read it without the session's lock, and sessions whose clients said the
// same share one (clientStates).
type clientState struct {
	version mcp.Version
	info    mcp.Implementation
	caps    mcp.ClientCapabilities
}

// encodedSize returns the length of the state encoded in JSON, which
// clientStates.intern holds to maxSharedStateSize, or an error when it
// does not encode.
func (cs *clientState) encodedSize() (int, error) {
	b, err := json.Marshal(struct {
		V mcp.Version            `json:"v"`
		I mcp.Implementation     `json:"i"`
		C mcp.ClientCapabilities `json:"c"`
	}{cs.version, cs.info, cs.caps})
	return len(b), err
}

// Bounds of clientStates.
const (
	maxClientStates    = 64   // states kept for sharing; the table is emptied when full
	maxSharedStateSize = 4096 // bytes of JSON beyond which a state is not kept for sharing
)

// clientStates keeps the states of recent sessions so that the next
// session of the same client (the same revision, info and capabilities,
// compared after decoding) shares one instead of holding a copy: most
// servers see a handful of kinds of client, many sessions each. It
// bounds what it keeps, in count and size, so that no client can make it
// hold more than about maxClientStates*maxSharedStateSize bytes.
type clientStates struct {
	mu     sync.Mutex
	states map[clientKey]*clientState
}

// clientKey finds the candidate state of a client; reflect.DeepEqual
// decides whether it is the same.
type clientKey struct {
	version       mcp.Version
	name, release string
}

// intern returns the state to keep for a session that negotiated v with
// a client that declared info and caps: a shared one equal to it, or a
// new one, kept for the next sessions if it is small enough.
func (t *clientStates) intern(v mcp.Version, info mcp.Implementation, caps mcp.ClientCapabilities) *clientState {
	k := clientKey{v, info.Name, info.Version}
	t.mu.Lock()
	old := t.states[k]
	t.mu.Unlock()
	if old != nil && reflect.DeepEqual(old.info, info) && reflect.DeepEqual(old.caps, caps) {
		return old
	}
	cs := &clientState{version: v, info: info, caps: caps}
	if n, err := cs.encodedSize(); err != nil || n > maxSharedStateSize {
		return cs
	}
	t.mu.Lock()
	if t.states == nil || len(t.states) >= maxClientStates {
		t.states = make(map[clientKey]*clientState)
	}
	t.states[k] = cs
	t.mu.Unlock()
	return cs
}
