package auth

// Checking DPoP proofs (RFC 9449 §4.3): the DPoPVerifier of resource
// servers (through ResourceOptions.DPoP) and of token endpoints.

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Defaults of DPoPVerifier.
const (
	// DefaultDPoPMaxProofAge is how old a proof's iat may be. It is the
	// ±5 minutes of SEP-1932 on the past side; the future side is the
	// clock skew.
	DefaultDPoPMaxProofAge = 5 * time.Minute
	// DefaultDPoPNonceLifetime is how long a nonce the verifier issued
	// is accepted.
	DefaultDPoPNonceLifetime = 5 * time.Minute
	// DefaultDPoPReplayEntries bounds the proof identifiers remembered to
	// refuse replays.
	DefaultDPoPReplayEntries = 100_000
	// DefaultMaxDPoPProofBytes bounds the size of a proof.
	DefaultMaxDPoPProofBytes = 8 << 10
)

// Errors of DPoP proof checks. The resource-server middleware answers
// ErrInvalidDPoPProof with 401 error="invalid_dpop_proof" and
// ErrUseDPoPNonce with 401 error="use_dpop_nonce" and a DPoP-Nonce
// header (a token endpoint answers both with 400).
var (
	// ErrInvalidDPoPProof: the DPoP proof is missing, malformed, badly
	// signed, made for another request or another token, too old, or
	// replayed.
	ErrInvalidDPoPProof = errors.New("auth: invalid DPoP proof")
	// ErrUseDPoPNonce: the verifier requires a nonce it issued, and the
	// proof has none, or a stale or foreign one.
	ErrUseDPoPNonce = errors.New("auth: DPoP nonce required")
	// ErrDPoPReplayCacheFull: the verifier remembers DPoPVerifierOptions.
	// MaxReplayEntries recent proofs and cannot accept another until
	// some expire; the middleware answers 503.
	ErrDPoPReplayCacheFull = errors.New("auth: DPoP replay cache full")
)

// DPoPVerifierOptions configure a DPoPVerifier. The zero value is ready:
// asymmetric algorithms, proofs up to five minutes old, no nonces.
type DPoPVerifierOptions struct {
	// Algorithms lists the accepted proof algorithms. Default: ES256,
	// ES384, ES512, RS256, RS384, RS512, PS256, PS384, PS512, EdDSA.
	// "none" and MACs are never accepted.
	Algorithms []string
	// MaxProofAge is how old a proof's iat may be. Default
	// DefaultDPoPMaxProofAge.
	MaxProofAge time.Duration
	// ClockSkew is how far in the future a proof's iat may be, and the
	// leeway on nonces. Default DefaultClockSkew.
	ClockSkew time.Duration
	// RequireNonce requires every proof to carry a nonce issued by this
	// verifier (RFC 9449 §8-9): a proof without one, or with one older
	// than NonceLifetime, gets ErrUseDPoPNonce, and the client retries
	// with the nonce of the DPoP-Nonce header. Nonces bound the life of
	// a proof by the server's clock, not the client's.
	RequireNonce bool
	// NonceLifetime is how long an issued nonce is accepted. Default
	// DefaultDPoPNonceLifetime.
	NonceLifetime time.Duration
	// NonceKey authenticates the nonces, which are stateless (a time and
	// a MAC). Servers behind one load balancer share it; at least 32
	// bytes. Default: random, per verifier.
	NonceKey []byte
	// MaxReplayEntries bounds the proof identifiers (jti) remembered to
	// refuse replays, each for MaxProofAge plus ClockSkew. When it is
	// reached, new proofs are refused with ErrDPoPReplayCacheFull rather
	// than accepted unchecked. Default DefaultDPoPReplayEntries.
	MaxReplayEntries int
	// MaxProofBytes bounds a proof's size. Default
	// DefaultMaxDPoPProofBytes.
	MaxProofBytes int
}

// A DPoPVerifier checks DPoP proofs (RFC 9449 §4.3): their form and
// signature, that they were made for the request they come with, recently,
// for the access token presented, with a nonce it issued when it requires
// them, and only once. It is safe for concurrent use.
//
// Give it to ResourceOptions.DPoP to accept DPoP-bound tokens in the
// middleware. An authorization server's token endpoint can use Verify
// too (with no access token), then bind the token it issues to the
// proof's KeyThumbprint (the cnf.jkt claim).
type DPoPVerifier struct {
	opts     DPoPVerifierOptions
	algs     []jose.SignatureAlgorithm
	nonceKey []byte
	now      func() time.Time
	replay   replayCache
}

// NewDPoPVerifier checks opts (nil means the defaults) and returns a
// verifier.
func NewDPoPVerifier(opts *DPoPVerifierOptions) (*DPoPVerifier, error) {
	v := &DPoPVerifier{now: time.Now}
	if opts != nil {
		v.opts = *opts
	}
	o := &v.opts
	names := o.Algorithms
	if names == nil {
		names = dpopAlgorithms
	}
	for _, a := range names {
		if !slices.Contains(dpopAlgorithms, a) {
			return nil, fmt.Errorf("auth: unsupported DPoP algorithm %q", a)
		}
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	if len(v.algs) == 0 {
		return nil, errors.New("auth: DPoPVerifierOptions.Algorithms is empty")
	}
	o.Algorithms = slices.Clone(names)
	o.MaxProofAge = orDuration(o.MaxProofAge, DefaultDPoPMaxProofAge)
	o.ClockSkew = orDuration(o.ClockSkew, DefaultClockSkew)
	o.NonceLifetime = orDuration(o.NonceLifetime, DefaultDPoPNonceLifetime)
	o.MaxReplayEntries = orInt(o.MaxReplayEntries, DefaultDPoPReplayEntries)
	o.MaxProofBytes = orInt(o.MaxProofBytes, DefaultMaxDPoPProofBytes)
	switch {
	case o.NonceKey == nil:
		v.nonceKey = make([]byte, 32)
		rand.Read(v.nonceKey) // never fails (crypto/rand)
	case len(o.NonceKey) < 32:
		return nil, errors.New("auth: DPoPVerifierOptions.NonceKey must have at least 32 bytes")
	default:
		v.nonceKey = slices.Clone(o.NonceKey)
	}
	v.replay.max = o.MaxReplayEntries
	return v, nil
}

// Algorithms returns the accepted proof algorithms, for
// dpop_signing_alg_values_supported and the algs of DPoP challenges.
func (v *DPoPVerifier) Algorithms() []string { return slices.Clone(v.opts.Algorithms) }

// RequiresNonce reports whether proofs must carry a nonce of this
// verifier.
func (v *DPoPVerifier) RequiresNonce() bool { return v.opts.RequireNonce }

// Verify checks the DPoP proof of r: exactly one DPoP header, a valid
// proof for r's method and for targetURL (the URI the client addressed
// r to, as the client sees it: behind a proxy, not r.URL), made within
// MaxProofAge, carrying the hash of accessToken (unless accessToken is
// "", as at a token endpoint), with a fresh nonce of this verifier when
// nonces are required, and not seen before. Errors wrap
// ErrInvalidDPoPProof, ErrUseDPoPNonce or ErrDPoPReplayCacheFull.
//
// Verify does not know the token: the caller must check that the token
// is bound to the proof's KeyThumbprint (cnf.jkt).
func (v *DPoPVerifier) Verify(r *http.Request, targetURL, accessToken string) (*DPoPProof, error) {
	p, err := v.check(r, targetURL, accessToken)
	if err != nil {
		return nil, err
	}
	if _, err := v.checkNonce(p); err != nil {
		return nil, err
	}
	if err := v.record(p); err != nil {
		return nil, err
	}
	return p, nil
}

// check runs the stateless checks of Verify.
func (v *DPoPVerifier) check(r *http.Request, targetURL, accessToken string) (*DPoPProof, error) {
	vals := r.Header.Values(headerDPoP)
	switch {
	case len(vals) == 0:
		return nil, fmt.Errorf("%w: no DPoP header", ErrInvalidDPoPProof)
	case len(vals) > 1:
		return nil, fmt.Errorf("%w: several DPoP headers", ErrInvalidDPoPProof)
	}
	p, err := parseDPoPProof(vals[0], v.algs, v.opts.MaxProofBytes)
	if err != nil {
		return nil, err
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	if p.Method != method {
		return nil, fmt.Errorf("%w: htm is not the request's method", ErrInvalidDPoPProof)
	}
	if !sameProofURL(p.URL, targetURL) {
		return nil, fmt.Errorf("%w: htu is not the request's URI", ErrInvalidDPoPProof)
	}
	now := v.now()
	switch {
	case p.IssuedAt.Before(now.Add(-v.opts.MaxProofAge)):
		return nil, fmt.Errorf("%w: iat is too old", ErrInvalidDPoPProof)
	case p.IssuedAt.After(now.Add(v.opts.ClockSkew)):
		return nil, fmt.Errorf("%w: iat is in the future", ErrInvalidDPoPProof)
	}
	if accessToken != "" && subtle.ConstantTimeCompare([]byte(p.AccessTokenHash), []byte(accessTokenHash(accessToken))) != 1 {
		return nil, fmt.Errorf("%w: ath does not match the access token", ErrInvalidDPoPProof)
	}
	return p, nil
}

// Nonce returns a fresh nonce of this verifier, for a DPoP-Nonce header.
func (v *DPoPVerifier) Nonce() string { return v.nonceAt(v.now()) }

// Nonces are base64url(issued unix seconds, 8 bytes big-endian ‖ first 16
// bytes of HMAC-SHA256(key, "mcpwire dpop nonce" ‖ those 8 bytes)).
const nonceBytes = 8 + 16

func (v *DPoPVerifier) nonceMAC(stamp []byte) []byte {
	m := hmac.New(sha256.New, v.nonceKey)
	m.Write([]byte("mcpwire dpop nonce"))
	m.Write(stamp)
	return m.Sum(nil)[:16]
}

func (v *DPoPVerifier) nonceAt(t time.Time) string {
	b := make([]byte, 8, nonceBytes)
	binary.BigEndian.PutUint64(b, uint64(t.Unix()))
	b = append(b, v.nonceMAC(b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// checkNonce checks the proof's nonce when nonces are required, and
// returns its age.
func (v *DPoPVerifier) checkNonce(p *DPoPProof) (time.Duration, error) {
	if !v.opts.RequireNonce {
		return 0, nil
	}
	if p.Nonce == "" {
		return 0, fmt.Errorf("%w: the proof has no nonce", ErrUseDPoPNonce)
	}
	b, err := base64.RawURLEncoding.DecodeString(p.Nonce)
	if err != nil || len(b) != nonceBytes || !hmac.Equal(b[8:], v.nonceMAC(b[:8])) {
		return 0, fmt.Errorf("%w: the proof's nonce is not ours", ErrUseDPoPNonce)
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0)
	age := v.now().Sub(issued)
	if age > v.opts.NonceLifetime || age < -v.opts.ClockSkew {
		return 0, fmt.Errorf("%w: the proof's nonce is stale", ErrUseDPoPNonce)
	}
	return age, nil
}

// record remembers the proof's jti (with its key) until it could no
// longer be accepted, and refuses one seen before.
func (v *DPoPVerifier) record(p *DPoPProof) error {
	now := v.now()
	key := sha256.Sum256([]byte(p.KeyThumbprint + "\x00" + p.ID))
	return v.replay.add(key, now, now.Add(v.opts.MaxProofAge+v.opts.ClockSkew))
}

// replayCache remembers proof identifiers until they expire. Entries are
// kept in insertion order; since each lives the same time, that is
// expiry order too, and expired ones are dropped from the front.
type replayCache struct {
	mu    sync.Mutex
	max   int
	seen  map[[32]byte]struct{}
	order []replayEntry // oldest first
}

type replayEntry struct {
	key     [32]byte
	expires time.Time
}

func (c *replayCache) add(key [32]byte, now, expires time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[[32]byte]struct{}{}
	}
	for len(c.order) > 0 && !now.Before(c.order[0].expires) {
		delete(c.seen, c.order[0].key)
		c.order[0] = replayEntry{}
		c.order = c.order[1:]
	}
	if _, dup := c.seen[key]; dup {
		return fmt.Errorf("%w: replayed (jti seen before)", ErrInvalidDPoPProof)
	}
	if len(c.seen) >= c.max {
		return ErrDPoPReplayCacheFull
	}
	c.seen[key] = struct{}{}
	c.order = append(c.order, replayEntry{key, expires})
	return nil
}

func (c *replayCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}
