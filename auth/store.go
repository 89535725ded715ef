package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A Token is an access token obtained for one resource from one
// authorization server, with what is needed to renew it.
type Token struct {
	// AccessToken is the token sent to the MCP server.
	AccessToken string `json:"access_token"`
	// TokenType is the token_type of the token response: "Bearer", or
	// "DPoP" for a token bound to the client's DPoP key.
	TokenType string `json:"token_type,omitempty"`
	// DPoPKeyThumbprint is, for a DPoP-bound token, the JWK SHA-256
	// thumbprint of the key it is bound to: only a Transport holding that
	// key can use it (and its refresh token).
	DPoPKeyThumbprint string `json:"dpop_jkt,omitempty"`
	// RefreshToken, if any, renews the access token without the user.
	RefreshToken string `json:"refresh_token,omitempty"`
	// Expiry is when the access token expires; zero if unknown.
	Expiry time.Time `json:"expiry,omitzero"`
	// Scopes are the scopes granted (the response's scope), or those
	// requested when the response did not say.
	Scopes []string `json:"scopes,omitempty"`
	// Requested are the scopes requested, kept so that a later
	// re-authorization asks for their union with new ones (SEP-2350).
	Requested []string `json:"requested,omitempty"`
	// Issuer is the authorization server that issued the token.
	Issuer string `json:"issuer"`
	// Resource is the resource the token was requested for, exactly as
	// its Protected Resource Metadata published it.
	Resource string `json:"resource"`
}

// expiresWithin reports whether the token expires within d of now (false
// when its expiry is unknown).
func (t *Token) expiresWithin(now time.Time, d time.Duration) bool {
	return !t.Expiry.IsZero() && !now.Add(d).Before(t.Expiry)
}

// A TokenStore keeps tokens, keyed by resource and issuer, and client
// registrations, keyed by issuer: credentials belong to the
// authorization server that issued them (SEP-2352), so a resource that
// moves to another authorization server gets a new registration there.
// A store must be safe for concurrent use. Lookups of missing entries
// return nil and no error.
//
// Tokens and client secrets are credentials: persistent stores must keep
// them where only their user can read them.
type TokenStore interface {
	// Token returns the token for resource from issuer.
	Token(ctx context.Context, resource, issuer string) (*Token, error)
	// SetToken stores tok for resource from issuer; nil deletes.
	SetToken(ctx context.Context, resource, issuer string, tok *Token) error
	// Client returns the registration at issuer.
	Client(ctx context.Context, issuer string) (*ClientCredentials, error)
	// SetClient stores the registration at issuer; nil deletes.
	SetClient(ctx context.Context, issuer string, c *ClientCredentials) error
}

type tokenKey struct{ Resource, Issuer string }

// MemoryTokenStore is a TokenStore in memory, the default. Its zero
// value is ready to use.
type MemoryTokenStore struct {
	mu      sync.Mutex
	tokens  map[tokenKey]Token
	clients map[string]ClientCredentials
}

// Token implements TokenStore.
func (s *MemoryTokenStore) Token(_ context.Context, resource, issuer string) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tokenKey{resource, issuer}]
	if !ok {
		return nil, nil
	}
	return &t, nil
}

// SetToken implements TokenStore.
func (s *MemoryTokenStore) SetToken(_ context.Context, resource, issuer string, tok *Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok == nil {
		delete(s.tokens, tokenKey{resource, issuer})
		return nil
	}
	if s.tokens == nil {
		s.tokens = map[tokenKey]Token{}
	}
	s.tokens[tokenKey{resource, issuer}] = *tok
	return nil
}

// Client implements TokenStore.
func (s *MemoryTokenStore) Client(_ context.Context, issuer string) (*ClientCredentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[issuer]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// SetClient implements TokenStore.
func (s *MemoryTokenStore) SetClient(_ context.Context, issuer string, c *ClientCredentials) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c == nil {
		delete(s.clients, issuer)
		return nil
	}
	if s.clients == nil {
		s.clients = map[string]ClientCredentials{}
	}
	s.clients[issuer] = *c
	return nil
}

// maxStoreFileBytes bounds the file a FileTokenStore reads.
const maxStoreFileBytes = 4 << 20

// FileTokenStore is a TokenStore in one JSON file, readable only by its
// owner (mode 0600), for command-line tools that must remember tokens
// between runs. Writes replace the file atomically. Processes sharing a
// file do not lock it: the last writer wins.
type FileTokenStore struct {
	path string
	mu   sync.Mutex
}

// NewFileTokenStore returns a store kept in the file at path (created on
// first write, with its directory, mode 0700).
func NewFileTokenStore(path string) *FileTokenStore { return &FileTokenStore{path: path} }

type storeFile struct {
	Tokens  []storedToken                `json:"tokens,omitempty"`
	Clients map[string]ClientCredentials `json:"clients,omitempty"`
}

type storedToken struct {
	Resource string `json:"resource"`
	Issuer   string `json:"issuer"`
	Token    Token  `json:"token"`
}

func (s *FileTokenStore) load() (*storeFile, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &storeFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readBounded(f, maxStoreFileBytes)
	if err != nil {
		return nil, fmt.Errorf("auth: token store %s: %w", s.path, err)
	}
	var sf storeFile
	if len(b) > 0 {
		if err := json.Unmarshal(b, &sf); err != nil {
			return nil, fmt.Errorf("auth: token store %s: %w", s.path, err)
		}
	}
	return &sf, nil
}

func (s *FileTokenStore) save(sf *storeFile) error {
	b, err := json.MarshalIndent(sf, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// Token implements TokenStore.
func (s *FileTokenStore) Token(_ context.Context, resource, issuer string) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sf, err := s.load()
	if err != nil {
		return nil, err
	}
	for _, t := range sf.Tokens {
		if t.Resource == resource && t.Issuer == issuer {
			tok := t.Token
			return &tok, nil
		}
	}
	return nil, nil
}

// SetToken implements TokenStore.
func (s *FileTokenStore) SetToken(_ context.Context, resource, issuer string, tok *Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sf, err := s.load()
	if err != nil {
		return err
	}
	kept := sf.Tokens[:0]
	for _, t := range sf.Tokens {
		if t.Resource != resource || t.Issuer != issuer {
			kept = append(kept, t)
		}
	}
	sf.Tokens = kept
	if tok != nil {
		sf.Tokens = append(sf.Tokens, storedToken{Resource: resource, Issuer: issuer, Token: *tok})
	}
	return s.save(sf)
}

// Client implements TokenStore.
func (s *FileTokenStore) Client(_ context.Context, issuer string) (*ClientCredentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sf, err := s.load()
	if err != nil {
		return nil, err
	}
	c, ok := sf.Clients[issuer]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// SetClient implements TokenStore.
func (s *FileTokenStore) SetClient(_ context.Context, issuer string, c *ClientCredentials) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sf, err := s.load()
	if err != nil {
		return err
	}
	if c == nil {
		delete(sf.Clients, issuer)
	} else {
		if sf.Clients == nil {
			sf.Clients = map[string]ClientCredentials{}
		}
		sf.Clients[issuer] = *c
	}
	return s.save(sf)
}
