package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Defaults of the JWKS cache.
const (
	// DefaultJWKSCacheTTL is how long a fetched key set is used before it
	// is fetched again.
	DefaultJWKSCacheTTL = time.Hour
	// DefaultJWKSMinRefresh is the shortest time between two fetches of a
	// key set, however many tokens name unknown keys.
	DefaultJWKSMinRefresh = 30 * time.Second
	// DefaultMaxJWKSKeys bounds the keys kept from a key set.
	DefaultMaxJWKSKeys = 64
)

// jwksCache holds the signing keys of one JWKS URL. Keys are refetched
// when older than ttl, or when a token names a key id not in the set, but
// never more often than every minRefresh; concurrent callers share one
// fetch. A failed fetch keeps the keys already known.
type jwksCache struct {
	url        string
	doer       *httpDoer
	ttl        time.Duration
	minRefresh time.Duration
	maxKeys    int
	now        func() time.Time

	mu          sync.Mutex
	keys        []jose.JSONWebKey // public signing keys
	fetched     time.Time         // last successful fetch
	lastAttempt time.Time         // last fetch started
	lastErr     error             // error of the last fetch, if it failed
	inflight    chan struct{}     // closed when the running fetch ends
}

// keysFor returns the candidate keys for a token's kid ("" when the
// token names none: every key). It returns an error wrapping
// ErrInvalidToken when the key set is known but has no such key, and a
// plain error when no key set could be fetched.
func (c *jwksCache) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	refreshed := false // a fetch ended since we started
	for {
		c.mu.Lock()
		now := c.now()
		found := match(c.keys, kid)
		stale := c.fetched.IsZero() || now.Sub(c.fetched) >= c.ttl
		if len(found) > 0 && (!stale || refreshed) {
			c.mu.Unlock()
			return found, nil
		}
		mayFetch := c.lastAttempt.IsZero() || now.Sub(c.lastAttempt) >= c.minRefresh
		if refreshed || (!mayFetch && c.inflight == nil) {
			err, haveSet := c.lastErr, !c.fetched.IsZero()
			c.mu.Unlock()
			switch {
			case len(found) > 0:
				return found, nil // stale, but the best we have
			case !haveSet:
				return nil, fmt.Errorf("auth: key set unavailable: %w", err)
			}
			return nil, fmt.Errorf("%w: no signing key with id %q", ErrInvalidToken, kid)
		}
		if ch := c.inflight; ch != nil {
			c.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			refreshed = true
			continue
		}
		ch := make(chan struct{})
		c.inflight, c.lastAttempt = ch, now
		c.mu.Unlock()
		keys, err := c.fetch(context.WithoutCancel(ctx))
		c.mu.Lock()
		if err == nil {
			c.keys, c.fetched, c.lastErr = keys, c.now(), nil
		} else {
			c.lastErr = err
		}
		c.inflight = nil
		close(ch)
		c.mu.Unlock()
		refreshed = true
	}
}

func match(keys []jose.JSONWebKey, kid string) []jose.JSONWebKey {
	if kid == "" {
		return keys
	}
	var out []jose.JSONWebKey
	for _, k := range keys {
		if k.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

// fetch downloads and parses the key set, keeping the public signing
// keys it understands (others, such as encryption keys or unknown key
// types, are skipped) up to maxKeys.
func (c *jwksCache) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	resp, err := c.doer.get(ctx, c.url, nil)
	if err != nil {
		return nil, err
	}
	if resp.status != http.StatusOK {
		return nil, fmt.Errorf("auth: JWKS %s answered %d", c.url, resp.status)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := resp.decodeJSON(&set); err != nil {
		return nil, err
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		if len(keys) >= c.maxKeys {
			break
		}
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || !k.Valid() {
			continue
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		pub := k.Public()
		if !pub.Valid() {
			continue // symmetric keys have no public form
		}
		keys = append(keys, pub)
	}
	if len(keys) == 0 {
		return nil, errors.New("auth: key set has no usable signing key")
	}
	return keys, nil
}
