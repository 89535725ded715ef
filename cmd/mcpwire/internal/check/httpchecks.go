package check

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// foreignOrigin is the Origin of a page no local server should serve.
const foreignOrigin = "http://mcpwire-check.invalid"

// legacyHTTPChecks checks the headers of a legacy Streamable HTTP
// session.
func (c *checker) legacyHTTPChecks(ctx context.Context, p *peer) {
	w, ok := p.w.(*httpWire)
	if !ok || p.broken != nil {
		return
	}
	// An unsupported MCP-Protocol-Version.
	c.begin()
	f := p.request(mcp.MethodPing, nil)
	f.header = http.Header{"Mcp-Protocol-Version": {"1999-01-01"}}
	r, err := w.exchange(ctx, f)
	st, detail := judgeHTTP(r, err, http.StatusBadRequest, 0, Fail)
	c.add(chkProtocolHeader, p.era(), st, detail)

	// No Mcp-Session-Id.
	c.begin()
	if w.session == "" {
		c.add(chkSessionHeader, p.era(), Skip, "the server gave no Mcp-Session-Id")
	} else {
		f = p.request(mcp.MethodPing, nil)
		f.header = http.Header{mcp.HeaderSessionID: {""}}
		r, err = w.exchange(ctx, f)
		st, detail = judgeHTTP(r, err, http.StatusBadRequest, 0, Warn)
		c.add(chkSessionHeader, p.era(), st, detail)
	}

	c.checkOrigin(ctx, p, w)
}

// checkOrigin sends a request from a foreign Origin: servers must check
// it, against DNS rebinding, and those on this machine most of all.
func (c *checker) checkOrigin(ctx context.Context, p *peer, w *httpWire) {
	c.begin()
	f := p.request(mcp.MethodPing, nil)
	if p.modern {
		f = p.request(mcp.MethodDiscover, nil)
	}
	f.header = http.Header{"Origin": {foreignOrigin}}
	r, err := w.exchange(ctx, f)
	accepted := Warn
	if u, perr := url.Parse(w.url); perr == nil && app.IsLoopback(u) {
		accepted = Fail // a local server is what DNS rebinding reaches
	}
	st, detail := judgeHTTP(r, err, http.StatusForbidden, 0, accepted)
	if st != Pass && err == nil && r.status/100 == 2 {
		detail = fmt.Sprintf("a request with Origin: %s was served (HTTP %s)", foreignOrigin, statusText(r.status))
	}
	c.add(chkOrigin, p.era(), st, detail)
}

// modernHTTPChecks checks the headers of the stateless era.
func (c *checker) modernHTTPChecks(ctx context.Context, p *peer) {
	w, ok := p.w.(*httpWire)
	if !ok || p.broken != nil {
		return
	}
	mismatch := jsonrpc.Code(mcp.CodeHeaderMismatch)

	// Mcp-Method missing, then naming another method.
	c.begin()
	f := p.request(mcp.MethodDiscover, nil)
	f.header = http.Header{mcp.HeaderMethod: {""}}
	r, err := w.exchange(ctx, f)
	st, detail := judgeHTTP(r, err, http.StatusBadRequest, mismatch, Fail)
	if st == Pass {
		f = p.request(mcp.MethodDiscover, nil)
		f.header = http.Header{mcp.HeaderMethod: {mcp.MethodListTools}}
		r, err = w.exchange(ctx, f)
		st, detail = judgeHTTP(r, err, http.StatusBadRequest, mismatch, Fail)
		if st != Pass {
			detail = "Mcp-Method: tools/list on server/discover: " + detail
		}
	} else {
		detail = "no Mcp-Method: " + detail
	}
	c.add(chkMethodHeader, p.era(), st, detail)

	// Mcp-Name naming another tool, prompt or resource.
	c.begin()
	// A request that succeeds with the right header, so that one served
	// with the wrong one shows (a tool is never called for it).
	switch {
	case p.readable != "":
		f = p.request(mcp.MethodReadResource, map[string]any{"uri": p.readable})
	case p.renderable != "":
		f = p.request(mcp.MethodGetPrompt, map[string]any{"name": p.renderable})
	default:
		f = nil
	}
	if f == nil {
		c.add(chkNameHeader, p.era(), Skip, "no resource that reads, nor prompt that renders without arguments, to ask for")
	} else {
		f.header = http.Header{mcp.HeaderName: {"mcpwire-check-another-name"}}
		r, err = w.exchange(ctx, f)
		st, detail = judgeHTTP(r, err, http.StatusBadRequest, mismatch, Fail)
		if st != Pass {
			detail = fmt.Sprintf("%s with Mcp-Name: mcpwire-check-another-name: %s", f.method, detail)
		}
		c.add(chkNameHeader, p.era(), st, detail)
	}

	// MCP-Protocol-Version unlike _meta's.
	c.begin()
	f = p.request(mcp.MethodDiscover, nil)
	f.header = http.Header{"Mcp-Protocol-Version": {string(mcp.Version20251125)}}
	r, err = w.exchange(ctx, f)
	st, detail = judgeHTTP(r, err, http.StatusBadRequest, mismatch, Fail)
	c.add(chkVersionHeader, p.era(), st, detail)

	// An unknown method: 404.
	c.begin()
	r, err = p.call(ctx, unknownMethod, nil)
	st, detail = judgeHTTP(r, err, http.StatusNotFound, jsonrpc.CodeMethodNotFound, Fail)
	c.add(chkNotFound404, p.era(), st, detail)

	// No session minted.
	c.begin()
	r, err = p.call(ctx, mcp.MethodDiscover, nil)
	switch {
	case err != nil:
		c.addf(chkNoSession, p.era(), Fail, "%v", err)
	case r.header.Get(mcp.HeaderSessionID) != "":
		c.addf(chkNoSession, p.era(), Warn, "a stateless answer carries Mcp-Session-Id: %s", clip(r.header.Get(mcp.HeaderSessionID), 40))
	default:
		c.add(chkNoSession, p.era(), Pass, "")
	}

	c.checkOrigin(ctx, p, w)
}

// judgeHTTP judges the answer to a request the server should refuse with
// HTTP status want and, if code is not 0, that JSON-RPC error code;
// accepted is how a request served (2xx) counts.
func judgeHTTP(r *reply, err error, want int, code jsonrpc.Code, accepted Status) (Status, string) {
	switch {
	case err != nil:
		return Fail, err.Error()
	case r.status/100 == 2:
		what := "a result"
		if r.resp != nil && r.resp.Error != nil {
			what = "error " + describeError(r.resp.Error)
		}
		return accepted, fmt.Sprintf("HTTP %s with %s; want HTTP %s", statusText(r.status), what, statusText(want))
	case r.status != want:
		return Warn, fmt.Sprintf("HTTP %s; want %s", statusText(r.status), statusText(want))
	case code == 0:
		return Pass, ""
	case r.resp == nil || r.resp.Error == nil:
		return Warn, fmt.Sprintf("HTTP %s without a JSON-RPC error; want %s", statusText(r.status), codeName(code))
	case r.resp.Error.Code != code:
		return Warn, fmt.Sprintf("HTTP %s with %s; want %s", statusText(r.status), describeError(r.resp.Error), codeName(code))
	}
	return Pass, ""
}

// sortedCopy returns s sorted, as a new slice.
func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
