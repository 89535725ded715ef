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

// MarshalJSON encodes the state, to measure it (clientStates.intern).
func (cs *clientState) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		V mcp.Version            `json:"v"`
		I mcp.Implementation     `json:"i"`
		C mcp.ClientCapabilities `json:"c"`
	}{cs.version, cs.info, cs.caps})
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
	if b, err := json.Marshal(cs); err != nil || len(b) > maxSharedStateSize {
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

// deepCopy returns a copy of v that shares no memory with it (pointers,
// slices and maps are copied too): what a session hands out of its
// shared clientState.
func deepCopy[T any](v T) T {
	var out T
	copyValue(reflect.ValueOf(&out).Elem(), reflect.ValueOf(v))
	return out
}

// copyValue sets dst, which is settable, to a deep copy of src.
func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			p := reflect.New(src.Type().Elem())
			copyValue(p.Elem(), src.Elem())
			dst.Set(p)
		}
	case reflect.Struct:
		dst.Set(src) // unexported fields as they are
		for i := range src.NumField() {
			if f := dst.Field(i); f.CanSet() {
				copyValue(f, src.Field(i))
			}
		}
	case reflect.Slice:
		if !src.IsNil() {
			s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
			for i := range src.Len() {
				copyValue(s.Index(i), src.Index(i))
			}
			dst.Set(s)
		}
	case reflect.Map:
		if !src.IsNil() {
			m := reflect.MakeMapWithSize(src.Type(), src.Len())
			for it := src.MapRange(); it.Next(); {
				v := reflect.New(src.Type().Elem()).Elem()
				copyValue(v, it.Value())
				m.SetMapIndex(it.Key(), v)
			}
			dst.Set(m)
		}
	case reflect.Interface:
		if !src.IsNil() {
			v := reflect.New(src.Elem().Type()).Elem()
			copyValue(v, src.Elem())
			dst.Set(v)
		}
	default:
		dst.Set(src)
	}
}
