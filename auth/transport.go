package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// Defaults of a Transport.
const (
	// DefaultMaxAuthAttempts bounds the authorizations per request and
	// the step-ups per operation.
	DefaultMaxAuthAttempts = 3
	// DefaultRefreshBefore is how long before expiry a token is renewed.
	DefaultRefreshBefore = time.Minute
	// DefaultMaxBufferedBody bounds the request body kept for a retry.
	DefaultMaxBufferedBody = 16 << 20
	// maxServers bounds the MCP servers a Transport keeps state for.
	maxServers = 256
	// maxOperations bounds the operations tracked per server for the
	// step-up limit.
	maxOperations = 256
	// maxDrain is how much of a 401/403 body is read before it is
	// closed, so that the connection can be reused.
	maxDrain = 64 << 10
)

// A Transport is an http.RoundTripper that authorizes the requests of an
// MCP client. It sends the stored token of the MCP server a request goes
// to; on 401 it discovers the server's authorization server, registers,
// obtains a token (or renews one) and retries; on 403 insufficient_scope
// it obtains a token with the union of the scopes asked so far and the
// challenged ones, a bounded number of times. See the package
// documentation.
//
// Tokens are sent only to the server they were obtained for: a token
// belongs to the resource its server's metadata published, and is
// attached to requests for that server's URL only. A request that
// already carries an Authorization header is passed through untouched.
// With ClientOptions.DPoP, tokens are bound to the client's key and
// presented with a DPoP proof (see the package documentation).
type Transport struct {
	base  http.RoundTripper
	opts  ClientOptions
	store TokenStore
	doer  *httpDoer
	own   *http.Client // the built-in client, if used
	dpop  *dpopClient  // nil without DPoP
	log   *slog.Logger
	now   func() time.Time

	mu      sync.Mutex
	servers map[string]*serverState
	lastURL url.URL // the URL of the last request
	lastKey string  // its serverKey
}

// serverState is what a Transport knows about one MCP server URL.
type serverState struct {
	authMu sync.Mutex // held while authorizing; serializes them

	mu        sync.Mutex
	disc      *discovery
	token     *Token
	failures  map[string]int // step-ups per operation without success
	dpopNonce string         // the server's latest DPoP-Nonce
	bearerFor *Token         // the token bearer was made for
	bearer    []string       // the Authorization header of bearerFor, a Bearer token
	// forgotten is the last token dropped unused (expired, no refresh):
	// the next authorization asks again for the scopes it was given for,
	// so that a step-up is not lost with it.
	forgotten *Token
}

// NewTransport returns a Transport sending requests through base
// (http.DefaultTransport if nil).
func NewTransport(base http.RoundTripper, opts *ClientOptions) (*Transport, error) {
	if base == nil {
		base = http.DefaultTransport
	}
	t := &Transport{base: base, servers: map[string]*serverState{}, now: time.Now}
	if opts != nil {
		t.opts = *opts
	}
	o := &t.opts
	switch o.grant() {
	case GrantAuthorizationCode, GrantClientCredentials, GrantJWTBearer:
	default:
		return nil, fmt.Errorf("auth: unsupported grant %q", o.Grant)
	}
	if o.grant() == GrantJWTBearer && o.Assertion == nil {
		return nil, errors.New("auth: GrantJWTBearer needs ClientOptions.Assertion")
	}
	if o.ClientMetadataURL != "" {
		u, err := url.Parse(o.ClientMetadataURL)
		if err != nil || !strings.EqualFold(u.Scheme, "https") || u.Host == "" || strings.TrimSuffix(u.Path, "/") == "" {
			return nil, fmt.Errorf("auth: ClientMetadataURL %q must be an https URL with a path", o.ClientMetadataURL)
		}
	}
	switch o.ApplicationType {
	case "", "native", "web":
	default:
		return nil, fmt.Errorf("auth: ApplicationType %q must be native or web", o.ApplicationType)
	}
	if o.MaxAuthAttempts <= 0 {
		o.MaxAuthAttempts = DefaultMaxAuthAttempts
	}
	if o.RefreshBefore <= 0 {
		o.RefreshBefore = DefaultRefreshBefore
	}
	if o.MaxBufferedBody <= 0 {
		o.MaxBufferedBody = DefaultMaxBufferedBody
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.DPoP != nil {
		d, err := newDPoPClient(o.DPoP)
		if err != nil {
			return nil, err
		}
		t.dpop = d
	}
	t.store = o.Store
	if t.store == nil {
		t.store = &MemoryTokenStore{}
	}
	t.log = o.Logger
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	client := o.HTTPClient
	if client == nil {
		t.own = newAuthHTTPClient(o.RequestTimeout, o.BlockPrivateNetworks, func(u string) error {
			_, err := checkSecureURL(u, o.AllowLoopbackHTTP)
			return err
		})
		client = t.own
	}
	t.doer = newDoer(client, o.RequestTimeout, o.MaxResponseBytes)
	return t, nil
}

// CloseIdleConnections closes the idle connections of the base
// transport and of the built-in client used for authorization.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
	if t.own != nil {
		t.own.CloseIdleConnections()
	}
}

// serverKey identifies the MCP server a request goes to: its URL without
// query or fragment.
func serverKey(u *url.URL) string { return stripQuery(u) }

// requestState returns the state of the server a request to u goes to.
// The last URL and its key are kept: the requests of a client go to one
// URL, whose key is then not made again for each.
func (t *Transport) requestState(u *url.URL) *serverState {
	t.mu.Lock()
	defer t.mu.Unlock()
	if *u != t.lastURL || t.lastKey == "" {
		t.lastURL, t.lastKey = *u, serverKey(u)
	}
	return t.stateLocked(t.lastKey)
}

func (t *Transport) state(key string) *serverState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stateLocked(key)
}

func (t *Transport) stateLocked(key string) *serverState {
	st, ok := t.servers[key]
	if !ok {
		if len(t.servers) >= maxServers {
			for k := range t.servers {
				delete(t.servers, k) // forget one at random
				break
			}
		}
		st = &serverState{failures: map[string]int{}}
		t.servers[key] = st
	}
	return st
}

// RoundTrip implements http.RoundTripper.
//
// A request goes out as it came when there is no token to attach (and
// as a shallow copy with its own header when there is one): its body is
// not read, and the operation it performs is named only when a step-up
// needs it. A body without GetBody is read into memory (up to
// MaxBufferedBody) first, to be sent again after a 401 or a 403.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" || req.URL == nil {
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	first, replay, err := t.resendable(req)
	if err != nil {
		return nil, err
	}
	st := t.requestState(req.URL)
	op := operation{first: first}
	tok := t.currentToken(ctx, st)
	authorized := 0     // authorizations run for this request
	fresh := false      // tok was obtained for this request
	nonceRetry := false // the request was resent with a new DPoP nonce
	for tries := 0; ; tries++ {
		r, err := t.attempt(first, tries, st, tok)
		if err != nil {
			return nil, err
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return resp, err
		}
		noted := t.noteResourceNonce(st, resp.Header)
		if !replay || tries > 2*t.opts.MaxAuthAttempts {
			return resp, nil // not replayable, or enough
		}
		bound := tok != nil && tok.bound()
		switch {
		case bound && !nonceRetry && t.useDPoPNonce(resp, noted):
			// RFC 9449 §9: the resource server wants its nonce in the
			// proof; resend once with it.
			drain(resp)
			nonceRetry = true
		case resp.StatusCode == http.StatusUnauthorized:
			ch, ours := t.challenge(resp.Header, bound)
			if fresh || authorized >= t.opts.MaxAuthAttempts || (!ours && len(resp.Header.Values("WWW-Authenticate")) > 0) {
				return resp, nil // not ours to answer, or answering failed
			}
			drain(resp)
			var ran bool
			tok, ran, err = t.handleUnauthorized(ctx, st, req, ch, tok)
			if err != nil {
				return nil, err
			}
			if ran {
				authorized++
				fresh = true
			}
		case resp.StatusCode == http.StatusForbidden:
			ch, ok := t.challenge(resp.Header, bound)
			if !ok || ch.Param("error") != "insufficient_scope" || authorized >= t.opts.MaxAuthAttempts ||
				futile(tok, ch.Scopes()) || !st.mayStepUp(op.name(), t.opts.MaxAuthAttempts) {
				return resp, nil
			}
			drain(resp)
			st.noteStepUp(op.name())
			var ran bool
			tok, ran, err = t.stepUp(ctx, st, req, ch, tok)
			if err != nil {
				return nil, err
			}
			if ran {
				authorized++
				fresh = true
			}
		default:
			if resp.StatusCode < 400 {
				st.succeeded(&op)
			}
			return resp, nil
		}
	}
}

// resendable returns the request of the first try and whether it can be
// sent again. A request without a body, or whose body GetBody fetches
// again, is its own first try. Another's body is read into memory
// (bounded): the first try is a copy of the request with that body and a
// GetBody; a body too large to keep is sent once, as it is.
func (t *Transport) resendable(req *http.Request) (first *http.Request, ok bool, err error) {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return req, true, nil
	}
	buf, err := io.ReadAll(io.LimitReader(req.Body, t.opts.MaxBufferedBody+1))
	if err != nil {
		req.Body.Close()
		return nil, false, err
	}
	first = req.WithContext(req.Context()) // a shallow copy
	if int64(len(buf)) > t.opts.MaxBufferedBody {
		rest := req.Body
		first.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf), rest), rest}
		first.GetBody = nil
		return first, false, nil
	}
	req.Body.Close()
	first.Body = io.NopCloser(bytes.NewReader(buf))
	first.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf)), nil }
	return first, true, nil
}

// attempt returns the request of try number tries of first, with tok
// (if not nil) attached. The first try without a token is first itself;
// otherwise the request is a shallow copy of first with its own header,
// and after the first try with the body fetched again.
func (t *Transport) attempt(first *http.Request, tries int, st *serverState, tok *Token) (*http.Request, error) {
	if tries == 0 && tok == nil {
		return first, nil
	}
	r := first.WithContext(first.Context()) // a shallow copy
	if tries > 0 && first.Body != nil && first.Body != http.NoBody {
		body, err := first.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	if tok == nil {
		return r, nil
	}
	r.Header = first.Header.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	if err := t.setAuthorization(r, st, tok); err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	return r, nil
}

// An operation names what a request does, for the step-up limit: the
// HTTP method, the MCP method and its target, from the Mcp-Method and
// Mcp-Name headers or from the JSON-RPC body. It is named when first
// needed (after a 403, or on success once step-ups have failed), reading
// the body again through GetBody then.
type operation struct {
	first *http.Request // the request of the first try: the caller's, or a shallow copy (same method and header) whose GetBody gives the body
	op    string
	named bool
}

// name returns the operation's name.
func (o *operation) name() string {
	if o.named {
		return o.op
	}
	method, name := o.first.Header.Get(mcp.HeaderMethod), o.first.Header.Get(mcp.HeaderName)
	if method == "" {
		if body := o.body(); body != nil {
			if calls, ok := parseCalls(body); ok && len(calls) == 1 {
				method, name = calls[0].Method, calls[0].Name
			}
		}
	}
	o.op, o.named = o.first.Method+" "+method+" "+name, true
	return o.op
}

// body returns the body of the request, up to maxDrain bytes (nil for
// a longer one, or one that cannot be read again).
func (o *operation) body() []byte {
	f := o.first
	if f.GetBody == nil || f.Body == nil || f.Body == http.NoBody || f.ContentLength > maxDrain {
		return nil
	}
	rc, err := f.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxDrain+1))
	if err != nil || len(b) > maxDrain {
		return nil
	}
	return b
}

// futile reports whether a step-up for need cannot help: the token
// sent was already granted all of it (or the challenge names no scope),
// so a new authorization would only ask for the same again. This keeps
// an always-refusing server from looping a client through consent.
func futile(sent *Token, need []string) bool {
	if len(need) == 0 {
		return true
	}
	if sent == nil {
		return false
	}
	for _, s := range need {
		if !slices.Contains(sent.Scopes, s) {
			return false
		}
	}
	return true
}

// drain reads a little of an unwanted response and closes it.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	resp.Body.Close()
}

func (st *serverState) mayStepUp(op string, limit int) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.failures[op] < limit
}

func (st *serverState) noteStepUp(op string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.failures[op]; !ok && len(st.failures) >= maxOperations {
		clear(st.failures)
	}
	st.failures[op]++
}

// succeeded forgets the step-ups of op, which succeeded. It names the
// operation only when some failed.
func (st *serverState) succeeded(op *operation) {
	st.mu.Lock()
	none := len(st.failures) == 0
	st.mu.Unlock()
	if none {
		return
	}
	name := op.name()
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.failures, name)
}

// currentToken returns the token to send to st's server, renewing it
// first when it is about to expire; nil when there is none (the server
// will say whether it needs one).
func (t *Transport) currentToken(ctx context.Context, st *serverState) *Token {
	st.mu.Lock()
	tok, d := st.token, st.disc
	st.mu.Unlock()
	if tok == nil || !tok.expiresWithin(t.now(), t.opts.RefreshBefore) {
		return tok
	}
	st.authMu.Lock()
	defer st.authMu.Unlock()
	st.mu.Lock()
	cur := st.token
	st.mu.Unlock()
	if cur != tok {
		return cur // renewed meanwhile
	}
	if tok.RefreshToken != "" && d != nil {
		nt, err := t.refresh(ctx, d, tok)
		if err == nil {
			t.setToken(ctx, st, d, nt)
			return nt
		}
		t.log.Info("auth: refresh failed", "issuer", d.issuer, "err", err)
	}
	if !tok.expiresWithin(t.now(), 0) {
		return tok // not expired yet: use it while it lasts
	}
	t.setToken(ctx, st, d, nil)
	return nil
}

// setToken records tok (nil: forgets the token) for st in memory and in
// the store.
func (t *Transport) setToken(ctx context.Context, st *serverState, d *discovery, tok *Token) {
	st.mu.Lock()
	old := st.token
	st.token = tok
	if tok == nil && old != nil {
		st.forgotten = old
	}
	st.mu.Unlock()
	if d == nil {
		return
	}
	if tok == nil && old != nil {
		if err := t.store.SetToken(ctx, old.Resource, old.Issuer, nil); err != nil {
			t.log.Warn("auth: token store", "err", err)
		}
		return
	}
	if tok != nil {
		if err := t.store.SetToken(ctx, tok.Resource, tok.Issuer, tok); err != nil {
			t.log.Warn("auth: token store", "err", err)
		}
	}
}

// handleUnauthorized reacts to a 401: unless another request renewed
// the token meanwhile, it forgets the rejected token, runs discovery
// again (the server may have moved to another authorization server),
// then uses a stored token, a refreshed one, or a new authorization. ran
// reports a new authorization or refresh.
func (t *Transport) handleUnauthorized(ctx context.Context, st *serverState, req *http.Request, ch Challenge, sent *Token) (tok *Token, ran bool, err error) {
	st.authMu.Lock()
	defer st.authMu.Unlock()
	st.mu.Lock()
	cur, prev := st.token, st.disc
	st.mu.Unlock()
	if cur != nil && cur != sent && !cur.expiresWithin(t.now(), 0) {
		return cur, false, nil
	}
	d, err := t.discover(ctx, req.URL, ch, discoveryHeader(req.Header))
	if err != nil {
		return nil, false, err
	}
	st.mu.Lock()
	st.disc = d
	st.mu.Unlock()
	if sent != nil {
		t.setToken(ctx, st, prev, nil)
	}
	var previous []string
	if sent != nil && sent.Issuer == d.issuer && sent.Resource == d.resource {
		previous = sent.Requested
		if sent.RefreshToken != "" {
			if nt, err := t.refresh(ctx, d, sent); err == nil {
				t.setToken(ctx, st, d, nt)
				return nt, true, nil
			} else {
				t.log.Info("auth: refresh failed; authorizing again", "issuer", d.issuer, "err", err)
			}
		}
	}
	if sent == nil {
		stored, err := t.store.Token(ctx, d.resource, d.issuer)
		if err != nil {
			return nil, false, fmt.Errorf("auth: token store: %w", err)
		}
		if stored != nil && !t.presentable(stored) {
			t.log.Info("auth: ignoring a stored token bound to another DPoP key", "issuer", d.issuer)
			stored = nil
		}
		if stored != nil {
			if !stored.expiresWithin(t.now(), t.opts.RefreshBefore) {
				st.mu.Lock()
				st.token = stored
				st.mu.Unlock()
				return stored, false, nil
			}
			if nt, err := t.refresh(ctx, d, stored); err == nil {
				t.setToken(ctx, st, d, nt)
				return nt, true, nil
			}
			previous = stored.Requested
		}
		st.mu.Lock()
		if f := st.forgotten; previous == nil && f != nil && f.Issuer == d.issuer && f.Resource == d.resource {
			previous = f.Requested
		}
		st.mu.Unlock()
	}
	scopes := selectScopes(ch, d, previous, t.opts.OfflineAccess)
	nt, err := t.obtain(ctx, d, scopes)
	if err != nil {
		return nil, false, err
	}
	t.setToken(ctx, st, d, nt)
	return nt, true, nil
}

// stepUp reacts to 403 insufficient_scope: unless another request
// obtained a token with the needed scopes meanwhile, it authorizes again
// for the union of the scopes requested so far and the challenged ones.
func (t *Transport) stepUp(ctx context.Context, st *serverState, req *http.Request, ch Challenge, sent *Token) (tok *Token, ran bool, err error) {
	st.authMu.Lock()
	defer st.authMu.Unlock()
	st.mu.Lock()
	cur, d := st.token, st.disc
	st.mu.Unlock()
	need := ch.Scopes()
	if cur != nil && cur != sent && !slices.ContainsFunc(need, func(s string) bool { return !slices.Contains(cur.Requested, s) }) {
		return cur, false, nil
	}
	if d == nil || (ch.Param("resource_metadata") != "" && d.prm == nil) {
		if d, err = t.discover(ctx, req.URL, ch, discoveryHeader(req.Header)); err != nil {
			return nil, false, err
		}
		st.mu.Lock()
		st.disc = d
		st.mu.Unlock()
	}
	var previous []string
	if sent != nil {
		previous = sent.Requested
	}
	scopes := selectScopes(ch, d, previous, t.opts.OfflineAccess)
	t.log.Debug("auth: step-up authorization", "scope", strings.Join(scopes, " "))
	nt, err := t.obtain(ctx, d, scopes)
	if err != nil {
		return nil, false, err
	}
	t.setToken(ctx, st, d, nt)
	return nt, true, nil
}
