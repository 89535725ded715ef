package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/store"
)

// Scale-out: with Options.Store and no Options.RequestStateKeys, request
// state is sealed with the keys of the store's KeyRing, which every
// instance shares, so that a round begun on one instance completes on
// another. They are cached for ringRefresh; a state sealed with a key
// not in the cache (the ring rotated) fetches them again, at most every
// ringRetry. While the store cannot be reached, the cached keys go on
// serving; with none, a round fails with an internal error that says so.

const (
	ringRefresh = time.Minute
	ringRetry   = time.Second
)

// ringCache holds the keys of a store's ring.
type ringCache struct {
	ring store.KeyRing // nil: the server's own keys

	mu      sync.Mutex
	keys    [][]byte
	fetched time.Time
}

// current returns the keys to seal and open with; want, when not "", is
// the id of the key a state names.
func (sk *stateKeys) current(ctx context.Context, want string) ([][]byte, error) {
	rc := &sk.ring
	if rc.ring == nil {
		return sk.keys, nil
	}
	rc.mu.Lock()
	keys, age := rc.keys, time.Since(rc.fetched)
	rc.mu.Unlock()
	missing := want != "" && !hasKeyID(keys, want)
	if keys != nil && age < ringRefresh && (!missing || age < ringRetry) {
		return keys, nil
	}
	fresh, err := rc.ring.Keys(ctx)
	if err == nil && len(fresh) > 0 {
		rc.mu.Lock()
		rc.keys, rc.fetched = fresh, time.Now()
		rc.mu.Unlock()
		return fresh, nil
	}
	if keys != nil {
		return keys, nil // the store is away: the keys known go on
	}
	if err == nil {
		err = errEmptyRing
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the keys that seal request state are unavailable: %v", err)
}

var errEmptyRing = errors.New("the key ring is empty")

func hasKeyID(keys [][]byte, id string) bool {
	for _, k := range keys {
		if keyID(k) == id {
			return true
		}
	}
	return false
}
