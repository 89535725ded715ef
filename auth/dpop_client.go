package auth

// The client side of DPoP (RFC 9449): proofs with token requests and with
// every request that presents a DPoP-bound token, and server nonces.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// DPoPOptions turn on DPoP (RFC 9449, MCP SEP-1932) in a Transport:
// tokens bound to a key of the client, useless to whoever steals them.
// The zero value is ready: a fresh P-256 key, DPoP with every
// authorization server that advertises it.
type DPoPOptions struct {
	// Key signs the proofs; tokens are bound to it. An
	// *ecdsa.PrivateKey (P-256, P-384, P-521), *rsa.PrivateKey,
	// ed25519.PrivateKey, or a crypto.Signer of one of those (a key in
	// an HSM or a platform keystore). Default: a P-256 key made by
	// NewTransport and kept in memory only, so that tokens bound to it
	// (and a public client's refresh tokens, bound too) die with the
	// Transport; a persistent TokenStore then keeps them in vain.
	Key crypto.Signer
	// Algorithm is the proofs' "alg". Default: the first the
	// authorization server lists among those of the key: ES256, ES384
	// or ES512 by curve, EdDSA, or for RSA RS256, PS256, RS384, PS384,
	// RS512, PS512.
	Algorithm string
	// Always sends proofs to authorization servers whose metadata has
	// no dpop_signing_alg_values_supported (RFC 9449 §5.1: its absence
	// does not mean no support; a server without DPoP ignores proofs).
	// By default proofs go only to servers that list an algorithm of the
	// key.
	Always bool
	// Require refuses bearer tokens: proofs go to every authorization
	// server (as with Always), and obtaining a token fails with
	// ErrDPoPUnsupported when the server lists algorithms but none of
	// the key's, or answers with a Bearer token. Without it, a server
	// that ignores DPoP gives a bearer token, which is used as such (RFC
	// 9449 §5). A resource whose metadata sets
	// dpop_bound_access_tokens_required is treated as if Require were
	// set.
	Require bool
}

// ErrDPoPUnsupported: DPoP is required (DPoPOptions.Require, or the
// resource's dpop_bound_access_tokens_required) and the authorization
// server does not support it with the client's key.
var ErrDPoPUnsupported = errors.New("auth: authorization server does not support DPoP with this key")

// errForeignDPoPKey: a token bound to a key the Transport does not hold.
var errForeignDPoPKey = errors.New("auth: the token is bound to a DPoP key this Transport does not hold")

// maxASNonces bounds the authorization servers a Transport keeps a DPoP
// nonce for.
const maxASNonces = 256

// dpopClient is the DPoP state of a Transport.
type dpopClient struct {
	key  *dpopKey
	opts DPoPOptions

	mu       sync.Mutex
	asNonces map[string]string // issuer → latest DPoP-Nonce
}

func newDPoPClient(o *DPoPOptions) (*dpopClient, error) {
	signer := o.Key
	if signer == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("auth: DPoP key: %w", err)
		}
		signer = k
	}
	key, err := newDPoPKey(signer, o.Algorithm)
	if err != nil {
		return nil, err
	}
	return &dpopClient{key: key, opts: *o, asNonces: map[string]string{}}, nil
}

// required reports whether tokens for d must be DPoP-bound.
func (c *dpopClient) required(d *discovery) bool {
	return c.opts.Require || (d.prm != nil && d.prm.DPoPBoundAccessTokensRequired)
}

// tokenAlg returns the algorithm of the proofs for the token requests of
// d's authorization server: "" for none (no DPoP with it).
func (c *dpopClient) tokenAlg(d *discovery) (jose.SignatureAlgorithm, error) {
	if c == nil {
		return "", nil
	}
	listed := d.as.DPoPSigningAlgValuesSupported
	if listed != nil { // advertised, perhaps empty
		if a := c.key.pick(listed); a != "" {
			return a, nil
		}
		if c.required(d) {
			return "", fmt.Errorf("%w: %s lists %q", ErrDPoPUnsupported, d.issuer, truncate(strings.Join(listed, " "), 200))
		}
		return "", nil
	}
	if c.opts.Always || c.required(d) {
		return c.key.algs[0], nil
	}
	return "", nil
}

// resourceAlg returns the algorithm of the proofs for a resource server:
// one its metadata lists, else the key's first.
func (c *dpopClient) resourceAlg(d *discovery) jose.SignatureAlgorithm {
	if d != nil && d.prm != nil {
		if a := c.key.pick(d.prm.DPoPSigningAlgValuesSupported); a != "" {
			return a
		}
	}
	return c.key.algs[0]
}

// asNonce returns the latest nonce of the authorization server issuer.
func (c *dpopClient) asNonce(issuer string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asNonces[issuer]
}

// noteASNonce keeps the DPoP-Nonce of an authorization server's
// response, and reports whether there was one.
func (c *dpopClient) noteASNonce(issuer string, h http.Header) bool {
	n := h.Get(headerDPoPNonce)
	if !validNonce(n) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.asNonces[issuer]; !ok && len(c.asNonces) >= maxASNonces {
		for k := range c.asNonces {
			delete(c.asNonces, k) // forget one at random
			break
		}
	}
	c.asNonces[issuer] = n
	return true
}

// bound reports whether tok is DPoP-bound.
func (tok *Token) bound() bool {
	return tok.DPoPKeyThumbprint != "" || strings.EqualFold(tok.TokenType, schemeDPoP)
}

// presentable reports whether the Transport can present tok: a bearer
// token, or one bound to its key.
func (t *Transport) presentable(tok *Token) bool {
	return !tok.bound() || (t.dpop != nil && tok.DPoPKeyThumbprint == t.dpop.key.jkt)
}

// setAuthorization presents tok on r: "Bearer <token>", or "DPoP
// <token>" with a fresh proof carrying its hash and the server's latest
// nonce.
func (t *Transport) setAuthorization(r *http.Request, st *serverState, tok *Token) error {
	if !tok.bound() {
		st.mu.Lock()
		if st.bearerFor != tok {
			st.bearerFor, st.bearer = tok, []string{schemeBearer + " " + tok.AccessToken}
		}
		v := st.bearer
		st.mu.Unlock()
		r.Header["Authorization"] = v[:1:1] // shared by the requests: an append copies it
		return nil
	}
	if !t.presentable(tok) {
		return errForeignDPoPKey
	}
	st.mu.Lock()
	nonce, d := st.dpopNonce, st.disc
	st.mu.Unlock()
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	proof, err := t.dpop.key.proof(t.dpop.resourceAlg(d), method, proofURL(r.URL), nonce, tok.AccessToken, t.now())
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", schemeDPoP+" "+tok.AccessToken)
	r.Header.Set(headerDPoP, proof)
	return nil
}

// noteResourceNonce keeps the DPoP-Nonce of a resource server's
// response, and reports whether there was one.
func (t *Transport) noteResourceNonce(st *serverState, h http.Header) bool {
	if t.dpop == nil {
		return false
	}
	n := h.Get(headerDPoPNonce)
	if !validNonce(n) {
		return false
	}
	st.mu.Lock()
	st.dpopNonce = n
	st.mu.Unlock()
	return true
}

// challenge returns the challenge to act on: the first Bearer challenge
// or, when DPoP is on, DPoP challenge; the DPoP one first when preferDPoP
// (the token sent was DPoP-bound).
func (t *Transport) challenge(h http.Header, preferDPoP bool) (Challenge, bool) {
	var bearer, dpop *Challenge
	chs := ParseChallenges(h.Values("WWW-Authenticate"))
	for i := range chs {
		switch {
		case strings.EqualFold(chs[i].Scheme, schemeBearer) && bearer == nil:
			bearer = &chs[i]
		case strings.EqualFold(chs[i].Scheme, schemeDPoP) && dpop == nil && t.dpop != nil:
			dpop = &chs[i]
		}
	}
	if preferDPoP && dpop != nil {
		return *dpop, true
	}
	if bearer != nil {
		return *bearer, true
	}
	if dpop != nil {
		return *dpop, true
	}
	return Challenge{}, false
}

// useDPoPNonce reports whether resp is a resource server's demand for a
// nonce (401, a DPoP challenge with error="use_dpop_nonce") and a new
// nonce came with it.
func (t *Transport) useDPoPNonce(resp *http.Response, noted bool) bool {
	if !noted || resp.StatusCode != http.StatusUnauthorized {
		return false
	}
	for _, c := range ParseChallenges(resp.Header.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.Scheme, schemeDPoP) && c.Param("error") == "use_dpop_nonce" {
			return true
		}
	}
	return false
}

// tokenProof returns the DPoP header of a token request to d's
// authorization server with alg.
func (t *Transport) tokenProof(d *discovery, alg jose.SignatureAlgorithm, now time.Time) (string, error) {
	u, err := parseAbs(d.as.TokenEndpoint)
	if err != nil {
		return "", err
	}
	return t.dpop.key.proof(alg, http.MethodPost, proofURL(u), t.dpop.asNonce(d.issuer), "", now)
}
