package check

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// The frames of the JSON-RPC checks. The first two are the specification's
// own examples (§A.4 #8 and #9): neither has an id the server can read.
const (
	frameNotJSON    = `{"jsonrpc":"2.0","method":"foobar, "params":"bar","baz]`
	frameNotRequest = `{"jsonrpc":"2.0","method":1,"params":"bar"}`
)

// unknownMethod is a method no server has.
const unknownMethod = "mcpwire-check/no-such-method"

// jsonrpcChecks sends frames that break JSON-RPC, or name what does not
// exist, and checks each answer and that the connection still serves.
func (c *checker) jsonrpcChecks(ctx context.Context, p *peer) {
	// A frame that is not JSON.
	c.begin()
	r, err := p.exchange(ctx, &frame{raw: []byte(frameNotJSON), probe: true})
	st, detail := judge(r, err, jsonrpc.CodeParseError, answerRules{silence: Warn, near: nil, result: Fail})
	c.afterRaw(ctx, p, chkParseError, st, detail)

	// JSON that is not a request.
	c.begin()
	r, err = p.exchange(ctx, &frame{raw: []byte(frameNotRequest), probe: true})
	st, detail = judge(r, err, jsonrpc.CodeInvalidRequest, answerRules{silence: Warn, near: []jsonrpc.Code{jsonrpc.CodeParseError}, result: Fail})
	c.afterRaw(ctx, p, chkInvalidRequest, st, detail)

	// A request of JSON-RPC 1.0.
	c.begin()
	f := p.request(mcp.MethodListTools, nil)
	var m map[string]any
	json.Unmarshal(f.raw, &m)
	m["jsonrpc"] = "1.0"
	f.raw, _ = json.Marshal(m)
	f.probe = true
	r, err = p.exchange(ctx, f)
	st, detail = judge(r, err, jsonrpc.CodeInvalidRequest, answerRules{silence: Warn, other: Warn, result: Warn})
	if st == Warn && r != nil && r.resp != nil && r.resp.Error == nil {
		detail = `the server answered a request whose "jsonrpc" is "1.0" as if it were "2.0"`
	}
	c.afterRaw(ctx, p, chkVersion, st, detail)

	// An unknown method. A valid request: every server answers it, so
	// the wait is not cut short by a probe (a server may answer a ping
	// before a slower refusal).
	c.begin()
	f = p.request(unknownMethod, nil)
	r, err = p.exchange(ctx, f)
	st, detail = judge(r, err, jsonrpc.CodeMethodNotFound, answerRules{silence: Fail, other: Fail, result: Fail, sameID: f.id})
	c.afterRaw(ctx, p, chkUnknownMethod, st, detail)

	// Params of the wrong type.
	c.begin()
	var method string
	var params map[string]any
	switch {
	case p.caps.Tools != nil:
		method, params = mcp.MethodCallTool, map[string]any{"name": 42}
	case p.caps.Prompts != nil:
		method, params = mcp.MethodGetPrompt, map[string]any{"name": 42}
	case p.caps.Resources != nil:
		method, params = mcp.MethodReadResource, map[string]any{"uri": 42}
	default:
		c.add(chkInvalidParams, p.era(), Skip, "the server declares no tools, prompts or resources to ask wrongly for")
		return
	}
	f = p.request(method, params)
	r, err = p.exchange(ctx, f)
	st, detail = judge(r, err, jsonrpc.CodeInvalidParams, answerRules{silence: Fail, other: Warn, result: Fail, sameID: f.id})
	if st != Pass && err == nil {
		detail = fmt.Sprintf("%s with %s: %s", method, compact(mustJSON(params)), detail)
	}
	c.afterRaw(ctx, p, chkInvalidParams, st, detail)
}

// answerRules say how a wrong answer counts: silence (no answer at all),
// an error of a near code (one of near), of another code, or a result.
// sameID, if valid, is the id the answer must bear.
type answerRules struct {
	silence, other, result Status
	near                   []jsonrpc.Code
	sameID                 jsonrpc.ID
}

// judge returns how an answer to a frame that wants the error code want
// counts, and what was wrong with it.
func judge(r *reply, err error, want jsonrpc.Code, rules answerRules) (Status, string) {
	wantName := codeName(want)
	if rules.other == "" {
		rules.other = Fail
	}
	switch {
	case err != nil:
		return Fail, err.Error()
	case r.resp == nil && r.status != 0:
		return rules.silence, fmt.Sprintf("HTTP %s without a JSON-RPC error; want %s", statusText(r.status), wantName)
	case r.resp == nil:
		return rules.silence, fmt.Sprintf("nothing answered; want %s", wantName)
	case r.resp.Error == nil:
		return rules.result, fmt.Sprintf("the server answered with a result; want %s", wantName)
	}
	got := r.resp.Error.Code
	if got != want {
		st := rules.other
		for _, n := range rules.near {
			if got == n {
				st = Warn
			}
		}
		return st, fmt.Sprintf("answered %s; want %s", describeError(r.resp.Error), wantName)
	}
	if rules.sameID.IsValid() && r.resp.ID != rules.sameID {
		return Fail, fmt.Sprintf("answered %s with id %s; want the request's id %s", wantName, r.resp.ID, rules.sameID)
	}
	return Pass, ""
}

// afterRaw records the outcome of a check that sent a frame the server
// might choke on: it checks that the connection still serves (and if not,
// that is a failure of the check, and a new connection is opened for the
// checks that follow).
func (c *checker) afterRaw(ctx context.Context, p *peer, chk *Check, st Status, detail string) {
	if err := p.usable(ctx); err != nil {
		st = Fail
		if detail != "" {
			detail += "; then "
		}
		detail += "the connection is no longer usable: " + err.Error()
		c.add(chk, p.era(), st, detail)
		c.reopen(ctx, p)
		return
	}
	c.add(chk, p.era(), st, detail)
}

// reopen replaces the connection of p, after the server broke it, with a
// new one (a new process over stdio), handshake included. The frames it
// takes are not any check's.
func (c *checker) reopen(ctx context.Context, p *peer) {
	p.w.close(ctx)
	w, err := c.wire(p.url, p.modern)
	if err != nil {
		p.broken = err
		return
	}
	p.w = w
	if sw, ok := w.(*stdioWire); ok {
		sw.probe = p.probe
	}
	if hw, ok := w.(*httpWire); ok {
		hw.version = string(p.version)
	}
	if !p.modern {
		var res mcp.InitializeResult
		if _, err := p.get(ctx, mcp.MethodInitialize, map[string]any{
			"protocolVersion": p.version, "capabilities": map[string]any{}, "clientInfo": p.client,
		}, &res); err != nil {
			p.broken = fmt.Errorf("initialize on a new connection: %w", err)
			return
		}
		if err := w.notify(ctx, p.notification(mcp.NotificationInitialized, nil)); err != nil {
			p.broken = err
			return
		}
	}
	c.rec.take()
}

// mustJSON encodes v, which is made of JSON values.
func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
