package auth

// DPoP proofs (RFC 9449 §4), as both sides build and read them.
//
// A proof is a JWT signed by the client's key, with that key's public half
// in its header:
//
//	{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"…","y":"…"}}
//	{"jti":"…","htm":"POST","htu":"https://mcp.example.com/mcp","iat":1767225600,
//	 "nonce":"…","ath":"…"}
//
// htm and htu name the request it goes with (the URI without query and
// fragment), jti makes it single use, nonce carries a value the server
// supplied, and ath (requests to a resource server only) is the base64url
// SHA-256 of the access token it accompanies. A token bound to the key
// names its thumbprint in the cnf.jkt claim (RFC 9449 §6).

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Header fields and values of DPoP.
const (
	headerDPoP      = "DPoP"
	headerDPoPNonce = "DPoP-Nonce"
	dpopProofType   = "dpop+jwt"
	schemeDPoP      = "DPoP"
	schemeBearer    = "Bearer"
	// maxDPoPNonceBytes bounds a nonce a client keeps and sends back.
	maxDPoPNonceBytes = 1024
)

// dpopAlgorithms are the proof algorithms a verifier accepts by default:
// the asymmetric ones, never "none" nor a MAC (RFC 9449 §4.3).
var dpopAlgorithms = []string{"ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"}

// A DPoPProof is a DPoP proof (RFC 9449 §4.2) whose signature verified
// with the key in its header.
type DPoPProof struct {
	// ID is the proof's unique identifier ("jti").
	ID string
	// Method is the HTTP method it was made for ("htm").
	Method string
	// URL is the HTTP URI it was made for ("htu"), as the proof names
	// it (clients leave out query and fragment; checks ignore them).
	URL string
	// IssuedAt is when it was made ("iat").
	IssuedAt time.Time
	// Nonce is the server-provided nonce it carries ("nonce"), if any.
	Nonce string
	// AccessTokenHash is "ath", the base64url SHA-256 of the access token
	// it accompanies; proofs sent to token endpoints have none.
	AccessTokenHash string
	// Algorithm is its signature algorithm ("alg").
	Algorithm string
	// KeyThumbprint is the JWK SHA-256 thumbprint (RFC 7638) of the key
	// that signed it, base64url: what cnf.jkt of a token bound to that
	// key holds.
	KeyThumbprint string
}

// proofClaims are the claims of a DPoP proof.
type proofClaims struct {
	ID       string           `json:"jti"`
	Method   string           `json:"htm"`
	URL      string           `json:"htu"`
	IssuedAt *jwt.NumericDate `json:"iat"`
	Nonce    string           `json:"nonce,omitempty"`
	ATH      string           `json:"ath,omitempty"`
}

// DPoPThumbprint returns the JWK SHA-256 thumbprint (RFC 7638) of a
// public key (an *ecdsa.PublicKey, *rsa.PublicKey or ed25519.PublicKey),
// base64url without padding. An authorization server puts it in the
// cnf.jkt claim of the tokens it binds to that key (RFC 9449 §6).
func DPoPThumbprint(pub crypto.PublicKey) (string, error) {
	jwk := jose.JSONWebKey{Key: pub}
	if !jwk.IsPublic() {
		return "", fmt.Errorf("auth: %T is not a supported public key", pub)
	}
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("auth: thumbprint: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}

// accessTokenHash is the ath of a proof sent with token: base64url,
// without padding, of the SHA-256 of its ASCII bytes.
func accessTokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// keyAlgorithms lists the signature algorithms a public key can make
// proofs with, the preferred first; nil for an unsupported key.
func keyAlgorithms(pub crypto.PublicKey) []jose.SignatureAlgorithm {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return []jose.SignatureAlgorithm{jose.ES256}
		case elliptic.P384():
			return []jose.SignatureAlgorithm{jose.ES384}
		case elliptic.P521():
			return []jose.SignatureAlgorithm{jose.ES512}
		}
	case *rsa.PublicKey:
		return []jose.SignatureAlgorithm{jose.RS256, jose.PS256, jose.RS384, jose.PS384, jose.RS512, jose.PS512}
	case ed25519.PublicKey:
		return []jose.SignatureAlgorithm{jose.EdDSA}
	}
	return nil
}

// A dpopKey makes the proofs of one key.
type dpopKey struct {
	key  any                       // what go-jose signs with
	algs []jose.SignatureAlgorithm // what it can sign with, preferred first
	jkt  string                    // its thumbprint

	mu      sync.Mutex
	signers map[jose.SignatureAlgorithm]jose.Signer
}

// newDPoPKey prepares s for proofs; alg, if set, is the only algorithm
// it will use.
func newDPoPKey(s crypto.Signer, alg string) (*dpopKey, error) {
	pub := s.Public()
	algs := keyAlgorithms(pub)
	if algs == nil {
		return nil, fmt.Errorf("auth: unsupported DPoP key type %T", pub)
	}
	if alg != "" {
		if !slices.Contains(algs, jose.SignatureAlgorithm(alg)) {
			return nil, fmt.Errorf("auth: DPoP algorithm %q does not fit the %T key", alg, pub)
		}
		algs = []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)}
	}
	jkt, err := DPoPThumbprint(pub)
	if err != nil {
		return nil, err
	}
	var key any = s
	switch s.(type) {
	case *ecdsa.PrivateKey, *rsa.PrivateKey, ed25519.PrivateKey:
	default:
		key = cryptosigner.Opaque(s)
	}
	return &dpopKey{key: key, algs: algs, jkt: jkt, signers: map[jose.SignatureAlgorithm]jose.Signer{}}, nil
}

// pick returns the first algorithm of the key that supported lists, or
// "".
func (k *dpopKey) pick(supported []string) jose.SignatureAlgorithm {
	for _, a := range k.algs {
		if slices.Contains(supported, string(a)) {
			return a
		}
	}
	return ""
}

func (k *dpopKey) signer(alg jose.SignatureAlgorithm) (jose.Signer, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.signers[alg]; ok {
		return s, nil
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType(dpopProofType)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: k.key}, opts)
	if err != nil {
		return nil, fmt.Errorf("auth: DPoP signer: %w", err)
	}
	k.signers[alg] = s
	return s, nil
}

// proof makes a proof for a request with method to htu (a URI without
// query and fragment), carrying nonce when not "" and, when accessToken
// is not "", its hash.
func (k *dpopKey) proof(alg jose.SignatureAlgorithm, method, htu, nonce, accessToken string, now time.Time) (string, error) {
	s, err := k.signer(alg)
	if err != nil {
		return "", err
	}
	c := proofClaims{
		ID:       randomToken(16),
		Method:   method,
		URL:      htu,
		IssuedAt: jwt.NewNumericDate(now),
		Nonce:    nonce,
	}
	if accessToken != "" {
		c.ATH = accessTokenHash(accessToken)
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	jws, err := s.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("auth: DPoP proof: %w", err)
	}
	return jws.CompactSerialize()
}

// proofURL returns the htu of a request to u: the URI without query,
// fragment or user information.
func proofURL(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return c.String()
}

// sameProofURL compares a proof's htu with the URI of the request it came
// with, after syntax- and scheme-based normalization (RFC 9449 §4.3 step
// 9, RFC 3986 §6.2.2-6.2.3): scheme and host case, default ports, an
// empty path as "/"; query and fragment are ignored.
func sameProofURL(htu, target string) bool {
	a, ok1 := normalProofURL(htu)
	b, ok2 := normalProofURL(target)
	return ok1 && ok2 && a == b
}

func normalProofURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return "", false
	}
	o := origin(u)
	if o == "" {
		return "", false
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return o + upperPercentHex(p), true
}

// upperPercentHex upper-cases the hexadecimal digits of percent-encodings
// (%2f and %2F are the same octet).
func upperPercentHex(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	b := []byte(p)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1] = upper(b[i+1])
			b[i+2] = upper(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

// validNonce reports whether s may be a DPoP nonce: 1*NQCHAR (RFC 9449
// §8.1), bounded.
func validNonce(s string) bool {
	if s == "" || len(s) > maxDPoPNonceBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// parseDPoPProof checks a proof's form and signature (RFC 9449 §4.3
// steps 2-6): one compact JWT of type dpop+jwt signed with one of algs
// by the public key in its jwk header, with jti, htm, htu and iat. The
// reasons of its errors never quote the proof.
func parseDPoPProof(proof string, algs []jose.SignatureAlgorithm, maxBytes int) (*DPoPProof, error) {
	if len(proof) > maxBytes {
		return nil, fmt.Errorf("%w: too large", ErrInvalidDPoPProof)
	}
	jws, err := jose.ParseSignedCompact(proof, algs)
	if err != nil {
		return nil, fmt.Errorf("%w: not a JWT signed with an accepted algorithm", ErrInvalidDPoPProof)
	}
	if len(jws.Signatures) != 1 {
		return nil, fmt.Errorf("%w: expected one signature", ErrInvalidDPoPProof)
	}
	h := jws.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); !strings.EqualFold(typ, dpopProofType) {
		return nil, fmt.Errorf("%w: typ is not %s", ErrInvalidDPoPProof, dpopProofType)
	}
	jwk := h.JSONWebKey
	if jwk == nil || !jwk.Valid() || !jwk.IsPublic() {
		return nil, fmt.Errorf("%w: no public key in the jwk header", ErrInvalidDPoPProof)
	}
	payload, err := jws.Verify(jwk)
	if err != nil {
		return nil, fmt.Errorf("%w: signature does not verify", ErrInvalidDPoPProof)
	}
	var c proofClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("%w: malformed claims", ErrInvalidDPoPProof)
	}
	if c.ID == "" || c.Method == "" || c.URL == "" || c.IssuedAt == nil {
		return nil, fmt.Errorf("%w: jti, htm, htu and iat are required", ErrInvalidDPoPProof)
	}
	jkt, err := DPoPThumbprint(jwk.Key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidDPoPProof, err)
	}
	return &DPoPProof{
		ID:              c.ID,
		Method:          c.Method,
		URL:             c.URL,
		IssuedAt:        c.IssuedAt.Time(),
		Nonce:           c.Nonce,
		AccessTokenHash: c.ATH,
		Algorithm:       h.Algorithm,
		KeyThumbprint:   jkt,
	}, nil
}
