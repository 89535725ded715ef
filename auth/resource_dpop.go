package auth

// The DPoP side of the resource-server middleware (RFC 9449 §7): the
// binding of tokens to proofs, nonces, and challenges per scheme.

import (
	"errors"
	"net/http"
	"strings"
)

// requestURL is the URI a client addressed r to, for htu.
func (rs *ResourceServer) requestURL(r *http.Request) string {
	if rs.opts.RequestURL != nil {
		return rs.opts.RequestURL(r)
	}
	p := r.URL.EscapedPath()
	if p == "" {
		p = "/"
	}
	return rs.origin + p
}

// checkBinding applies RFC 9449 §7 to a verified token: a DPoP-bound
// token only with the DPoP scheme and a proof of its key, then the nonce
// and replay checks of that proof (last, so that only holders of a valid
// token fill the replay cache). It answers the request itself and
// returns false when the request must not go on.
func (rs *ResourceServer) checkBinding(w http.ResponseWriter, r *http.Request, scheme string, info *TokenInfo, proof *DPoPProof) bool {
	jkt := info.dpopThumbprint()
	switch {
	case scheme == schemeBearer && jkt != "":
		rs.log.InfoContext(r.Context(), "auth: DPoP-bound token presented as a bearer token", "subject", info.Subject)
		rs.failScheme(w, http.StatusUnauthorized, schemeBearer, "invalid_token", "A DPoP-bound token must be presented with the DPoP scheme and a proof.", rs.opts.Scopes)
		return false
	case scheme != schemeDPoP:
		return true
	case jkt == "":
		rs.failScheme(w, http.StatusUnauthorized, schemeDPoP, "invalid_token", "The access token is not DPoP-bound.", rs.opts.Scopes)
		return false
	case jkt != proof.KeyThumbprint:
		rs.log.InfoContext(r.Context(), "auth: DPoP proof signed by another key than the token's", "subject", info.Subject)
		rs.failScheme(w, http.StatusUnauthorized, schemeDPoP, "invalid_dpop_proof", "The DPoP proof is not signed by the key the token is bound to.", rs.opts.Scopes)
		return false
	}
	v := rs.opts.DPoP
	age, err := v.checkNonce(proof)
	if err == nil {
		err = v.record(proof)
	}
	if err != nil {
		rs.refuseProof(w, r, err)
		return false
	}
	if v.opts.RequireNonce && age > v.opts.NonceLifetime/2 {
		w.Header().Set(headerDPoPNonce, v.Nonce()) // the next one, before this one expires
	}
	return true
}

// refuseProof answers a request whose DPoP proof failed a check.
func (rs *ResourceServer) refuseProof(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, ErrUseDPoPNonce):
		rs.failScheme(w, http.StatusUnauthorized, schemeDPoP, "use_dpop_nonce", "Resend the request with a proof carrying the DPoP-Nonce provided.", nil)
	case errors.Is(err, ErrInvalidDPoPProof):
		rs.log.InfoContext(r.Context(), "auth: DPoP proof refused", "err", err)
		// The reasons never quote the proof: safe to tell the client.
		desc := strings.TrimPrefix(err.Error(), "auth: ")
		rs.failScheme(w, http.StatusUnauthorized, schemeDPoP, "invalid_dpop_proof", desc, rs.opts.Scopes)
	default:
		rs.log.ErrorContext(r.Context(), "auth: DPoP proof not checked", "err", err)
		w.Header().Set("Retry-After", "5")
		writeOAuthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "The DPoP proof could not be checked; try again later.")
	}
}

// failScheme writes an OAuth error response with a challenge in scheme
// (the one the request used), or, for "", with one per accepted scheme:
// Bearer unless DPoP is required, and DPoP, with its algorithms. A 401
// with a DPoP challenge carries a DPoP-Nonce when nonces are required.
func (rs *ResourceServer) failScheme(w http.ResponseWriter, status int, scheme, code, desc string, scopes []string) {
	h := w.Header()
	scope := strings.Join(scopes, " ")
	if scheme == schemeBearer || (scheme == "" && !rs.opts.RequireDPoP) {
		h.Add("WWW-Authenticate", formatChallenge(schemeBearer,
			"error", code,
			"error_description", desc,
			"scope", scope,
			"resource_metadata", rs.metaURL))
	}
	if v := rs.opts.DPoP; v != nil && scheme != schemeBearer {
		h.Add("WWW-Authenticate", formatChallenge(schemeDPoP,
			"error", code,
			"error_description", desc,
			"algs", strings.Join(v.opts.Algorithms, " "),
			"scope", scope,
			"resource_metadata", rs.metaURL))
		if v.opts.RequireNonce && status == http.StatusUnauthorized {
			h.Set(headerDPoPNonce, v.Nonce()) // saves the client a round trip
		}
	}
	writeOAuthError(w, status, code, desc)
}
