package check

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A peer is one connection to the server in one protocol era, as the
// checks use it: it writes the frames of that era (the _meta envelope on
// every modern request) and knows what the server said of itself.
type peer struct {
	w       wire
	url     string // the HTTP endpoint; "" for a server process
	broken  error  // the connection broke and could not be opened again
	modern  bool
	version mcp.Version // the revision spoken
	info    mcp.Implementation
	caps    mcp.ServerCapabilities
	client  mcp.Implementation // who the checks say they are
	next    int64

	// A resource that reads and a prompt that renders, for the checks of
	// Mcp-Name, which need a request that succeeds when its headers are
	// right.
	readable, renderable string

	// What the server sent besides answers: notifications, by method.
	notes map[string]int
	// What modern results lacked (see checkResultMeta).
	results, noResultType, noServerInfo, noCache int
	firstNoResultType, firstNoServerInfo         string
	firstNoCache                                 string
}

// cacheable are the methods whose modern results must say how long they
// may be kept (ttlMs, cacheScope: 2026-07-28 §1, SEP-2549).
var cacheable = map[string]bool{
	mcp.MethodDiscover: true, mcp.MethodListTools: true, mcp.MethodListPrompts: true,
	mcp.MethodListResources: true, mcp.MethodListResourceTemplates: true, mcp.MethodReadResource: true,
}

// era names the peer's era for the report: its revision.
func (p *peer) era() string { return string(p.version) }

// id returns the next request id.
func (p *peer) id() jsonrpc.ID {
	p.next++
	return jsonrpc.Int64ID(p.next)
}

// envelope returns the _meta of a modern request of version v: the
// revision, no client capabilities, and the client's info.
func (p *peer) envelope(v mcp.Version) map[string]any {
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    v,
		mcp.MetaKeyClientCapabilities: map[string]any{},
		mcp.MetaKeyClientInfo:         p.client,
	}
}

// params returns the params of a request of the peer's era: params (nil
// for none), with the envelope in _meta when modern.
func (p *peer) params(params map[string]any) map[string]any {
	if !p.modern {
		return params
	}
	out := map[string]any{"_meta": p.envelope(p.version)}
	for k, v := range params {
		out[k] = v
	}
	return out
}

// request returns the frame of a call of method with params (nil for
// none), in the peer's era, with a new id.
func (p *peer) request(method string, params map[string]any) *frame {
	return p.requestWith(p.id(), method, p.params(params))
}

// requestWith returns the frame of a call whose params are given as
// they are (the envelope, if any, already in them).
func (p *peer) requestWith(id jsonrpc.ID, method string, params map[string]any) *frame {
	m := map[string]any{"jsonrpc": "2.0", "id": id.Raw(), "method": method}
	if params != nil {
		m["params"] = params
	}
	raw, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("check: encoding a %s request: %v", method, err)) // params are built from JSON values
	}
	f := &frame{raw: raw, id: id, method: method}
	if key := mcp.NameHeaderParam(method); key != "" {
		if s, ok := params[key].(string); ok {
			f.name = s
		}
	}
	return f
}

// notification returns the frame of a notification.
func (p *peer) notification(method string, params map[string]any) *frame {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	raw, _ := json.Marshal(m)
	return &frame{raw: raw, method: method}
}

// probe returns the request the stdio wire sends after a frame that may
// go unanswered: ping in a legacy session, server/discover in the modern
// era (which has no ping).
func (p *peer) probe(id jsonrpc.ID) *frame {
	if p.modern {
		return p.requestWith(id, mcp.MethodDiscover, p.params(nil))
	}
	return p.requestWith(id, mcp.MethodPing, nil)
}

// call sends a request of method and returns what answered it.
func (p *peer) call(ctx context.Context, method string, params map[string]any) (*reply, error) {
	return p.exchange(ctx, p.request(method, params))
}

// exchange sends f and notes what the answer teaches about the server:
// the notifications that came with it, and in the modern era whether the
// result has its resultType and the server's info.
func (p *peer) exchange(ctx context.Context, f *frame) (*reply, error) {
	r, err := p.w.exchange(ctx, f)
	if r == nil {
		return r, err
	}
	for _, m := range r.seen {
		if n, ok := m.(*jsonrpc.Request); ok && !n.IsCall() {
			if p.notes == nil {
				p.notes = map[string]int{}
			}
			if len(p.notes) < maxSeen {
				p.notes[n.Method]++
			}
		}
	}
	if p.modern && r.resp != nil && r.resp.Error == nil {
		p.results++
		if !hasMember(r.resp.Result, "resultType") {
			if p.noResultType++; p.firstNoResultType == "" {
				p.firstNoResultType = f.method
			}
		}
		if serverInfoOf(r.resp.Result).Name == "" {
			if p.noServerInfo++; p.firstNoServerInfo == "" {
				p.firstNoServerInfo = f.method
			}
		}
		if cacheable[f.method] && !isInputRequired(r.resp.Result) && (!hasMember(r.resp.Result, "ttlMs") || !hasMember(r.resp.Result, "cacheScope")) {
			if p.noCache++; p.firstNoCache == "" {
				p.firstNoCache = f.method
			}
		}
	}
	return r, err
}

// get sends a request and decodes its result into out; an error response,
// or no answer, is an error (a *jsonrpc.Error for the former).
func (p *peer) get(ctx context.Context, method string, params map[string]any, out any) (*reply, error) {
	r, err := p.call(ctx, method, params)
	if err != nil {
		return r, err
	}
	if err := r.result(out); err != nil {
		return r, err
	}
	return r, nil
}

// usable checks that the connection still answers: a ping (legacy) or a
// server/discover (modern). It returns nil, or why not.
func (p *peer) usable(ctx context.Context) error {
	f := p.probe(p.id())
	r, err := p.exchange(ctx, f)
	switch {
	case err != nil:
		return err
	case r.resp == nil:
		if e := p.w.ended(); e != nil {
			return e
		}
		return fmt.Errorf("it no longer answers (%s went unanswered)", f.method)
	}
	return nil // an answer, even an error, is a connection that serves
}

// describeError writes a JSON-RPC error for a report: "-32601 Method not
// found (the server's message)".
func describeError(e *jsonrpc.Error) string {
	s := codeName(e.Code)
	if e.Message != "" && !strings.HasSuffix(s, " "+e.Message) {
		s += " (" + clip(e.Message, 120) + ")"
	}
	return s
}

// codeName writes an error code with its name, when JSON-RPC or MCP gives
// it one: "-32602 Invalid params", "-32022 UnsupportedProtocolVersion".
func codeName(c jsonrpc.Code) string {
	name := ""
	switch c {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError:
		name = c.String()
	case mcp.CodeResourceNotFound:
		name = "resource not found"
	case mcp.CodeHeaderMismatch:
		name = "HeaderMismatch"
	case mcp.CodeMissingRequiredClientCapability:
		name = "MissingRequiredClientCapability"
	case mcp.CodeUnsupportedProtocolVersion:
		name = "UnsupportedProtocolVersion"
	}
	if name == "" {
		return fmt.Sprintf("%d", int64(c))
	}
	return fmt.Sprintf("%d %s", int64(c), name)
}

// clip cuts s to n bytes, on one line, its runs of spaces folded.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
