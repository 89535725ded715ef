package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A Status is the outcome of a check.
type Status string

// The outcomes. A warning is a rule the specification states with SHOULD,
// or one most servers break without harm to clients (the report says
// which); a failure breaks a MUST, or clients.
const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// A Result is the outcome of one check, in one era, about one subject.
type Result struct {
	Check   *Check
	Era     string // the revision it ran in; "" when it spans both
	Subject string // the tool, resource or prompt it is about, if one
	Status  Status
	Detail  string          // what was seen: why it warns or fails, or a note
	Frames  []frames.Record // the frames exchanged, for a warning or a failure
}

// A checker runs the checks against one server and collects the results.
type checker struct {
	a       *app.App
	o       *options
	rec     *recorder
	results []*Result
	logw    io.Writer // the server's stderr with --verbose, or nil
	// releases free the HTTP clients' connections, at the end.
	releases []func()
}

// begin starts a check: the frames recorded so far are not its own.
func (c *checker) begin() { c.rec.take() }

// add records the outcome of a check, with the frames since begin for a
// warning or a failure.
func (c *checker) add(chk *Check, era string, st Status, detail string) *Result {
	r := &Result{Check: chk, Era: era, Status: st, Detail: detail}
	fr := c.rec.take()
	if st == Warn || st == Fail {
		r.Frames = fr
	}
	c.results = append(c.results, r)
	return r
}

// addf records an outcome with a formatted detail.
func (c *checker) addf(chk *Check, era string, st Status, format string, args ...any) *Result {
	return c.add(chk, era, st, fmt.Sprintf(format, args...))
}

// wire opens a connection to the server: a new process over stdio, or the
// HTTP endpoint url.
func (c *checker) wire(url string, modern bool) (wire, error) {
	t := &c.a.Global.Target
	if url == "" {
		w, err := startStdio(t.Cmd(), c.rec, c.logw, c.o.timeout)
		if err != nil {
			return nil, app.StartError(t.Command[0], err)
		}
		return w, nil
	}
	tt := *t
	tt.URL = url
	l, err := c.a.HTTPLink(&tt)
	if err != nil {
		return nil, err
	}
	c.releases = append(c.releases, l.Release)
	return &httpWire{url: url, client: l.Client, header: l.Header, modern: modern, tracker: newTracker(c.rec, url), timeout: c.o.timeout, explain: l.Explain}, nil
}

// newPeer returns a peer of the era on w, a wire to url.
func (c *checker) newPeer(w wire, url string, modern bool, v mcp.Version) *peer {
	p := &peer{w: w, url: url, modern: modern, version: v, client: mcp.Implementation{Name: "mcpwire-check", Version: mcpwire.Version()}}
	if sw, ok := w.(*stdioWire); ok {
		sw.probe = p.probe
	}
	return p
}

// run runs every check against the server at url ("" for the command
// of the target), in both eras unless --protocol names one.
func (c *checker) run(ctx context.Context, url string) error {
	want := c.a.Global.Protocol
	var legacy, modern *peer
	var legacyErr, modernErr error
	var nj *notJSONRPCError
	stop := c.a.WaitNotice(&c.a.Global.Target, c.a.Logger()) // until the first server answers
	defer stop()
	if want == "" || mcp.IsLegacy(want) {
		legacy, legacyErr = c.openLegacy(ctx, url)
		stop()
		if legacy != nil {
			c.legacyChecks(ctx, legacy, url)
			legacy.w.close(ctx)
		}
		var start *app.ExitError
		switch {
		case errors.As(legacyErr, &nj):
			// Not a server that speaks another era: one that does not
			// speak JSON-RPC at all.
			return app.ConnectErrorf("cannot check the server: %v", nj)
		case errors.As(legacyErr, &start):
			return legacyErr // it cannot be started (or reached): no era can be checked
		}
	}
	if (want == "" || mcp.IsModern(want)) && ctx.Err() == nil { // no server is started past --timeout
		modern, modernErr = c.openModern(ctx, url)
		stop()
		if errors.As(modernErr, &nj) {
			return app.ConnectErrorf("cannot check the server: %v", nj)
		}
		if modern != nil {
			c.modernChecks(ctx, modern, url)
			modern.w.close(ctx)
		}
	}
	if legacy == nil && modern == nil {
		err := errors.Join(legacyErr, modernErr)
		var e *app.ExitError
		if errors.As(err, &e) {
			return err
		}
		return app.ConnectErrorf("the server answered neither initialize nor server/discover: %v", err)
	}
	return nil
}

// openLegacy starts a legacy session: initialize, then initialized. It
// returns nil, and records why, when the server does not speak the
// legacy era.
func (c *checker) openLegacy(ctx context.Context, url string) (*peer, error) {
	w, err := c.wire(url, false)
	if err != nil {
		return nil, err
	}
	v := c.a.Global.Protocol
	if v == "" {
		v = mcp.Version20251125
	}
	p := c.newPeer(w, url, false, v)
	c.begin()
	var res mcp.InitializeResult
	r, err := p.get(ctx, mcp.MethodInitialize, map[string]any{
		"protocolVersion": v, "capabilities": map[string]any{}, "clientInfo": p.client,
	}, &res)
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		c.addf(chkInitialize, "", Skip, "the server refused initialize (%s): it does not speak the legacy revisions; their checks are skipped", describeError(je))
		w.close(ctx)
		return nil, je
	case err != nil:
		if e := w.ended(); e != nil {
			err = e
		}
		c.addf(chkInitialize, "", Skip, "initialize failed (%v); the legacy checks are skipped", err)
		w.close(ctx)
		return nil, fmt.Errorf("initialize: %w", err)
	}
	var problems []string
	switch {
	case res.ProtocolVersion == "":
		problems = append(problems, "no protocolVersion")
	case !mcp.IsSupported(res.ProtocolVersion) || mcp.IsModern(res.ProtocolVersion):
		problems = append(problems, fmt.Sprintf("protocolVersion %q is not a legacy revision mcpwire knows", res.ProtocolVersion))
	}
	if res.ServerInfo.Name == "" {
		problems = append(problems, "no serverInfo.name")
	}
	if !hasMember(r.resp.Result, "capabilities") {
		problems = append(problems, "no capabilities")
	}
	if len(problems) > 0 {
		c.addf(chkInitialize, string(v), Fail, "the result has %s", joinAnd(problems))
		if res.ProtocolVersion == "" || !mcp.IsSupported(res.ProtocolVersion) {
			w.close(ctx)
			return nil, errors.New("initialize: " + joinAnd(problems))
		}
	} else {
		detail := fmt.Sprintf("%s %s speaks %s", res.ServerInfo.Name, res.ServerInfo.Version, res.ProtocolVersion)
		if res.ProtocolVersion != v {
			detail += fmt.Sprintf(" (asked for %s)", v)
		}
		c.add(chkInitialize, string(res.ProtocolVersion), Pass, detail)
	}
	p.version, p.info, p.caps = res.ProtocolVersion, res.ServerInfo, res.Capabilities
	if hw, ok := w.(*httpWire); ok {
		hw.version = string(p.version)
	}
	if err := w.notify(ctx, p.notification(mcp.NotificationInitialized, nil)); err != nil {
		c.addf(chkInitialize, p.era(), Fail, "notifications/initialized: %v", err)
		w.close(ctx)
		return nil, err
	}
	return p, nil
}

// openModern asks server/discover in the modern era. It returns nil, and
// records why, when the server does not speak it.
func (c *checker) openModern(ctx context.Context, url string) (*peer, error) {
	w, err := c.wire(url, true)
	if err != nil {
		return nil, err
	}
	p := c.newPeer(w, url, true, mcp.Version20260728)
	if hw, ok := w.(*httpWire); ok {
		hw.version = string(p.version)
	}
	c.begin()
	var res mcp.DiscoverResult
	r, err := p.get(ctx, mcp.MethodDiscover, nil, &res)
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		c.addf(chkDiscover, "", Skip, "the server refused server/discover (%s): it does not speak 2026-07-28; its checks are skipped", describeError(je))
		w.close(ctx)
		return nil, je
	case err != nil:
		if e := w.ended(); e != nil {
			err = e
		}
		c.addf(chkDiscover, "", Skip, "server/discover failed (%v); the 2026-07-28 checks are skipped", err)
		w.close(ctx)
		return nil, fmt.Errorf("server/discover: %w", err)
	}
	p.caps = res.Capabilities
	p.info = serverInfoOf(r.resp.Result)
	var problems []string
	if !slices.Contains(res.SupportedVersions, mcp.Version20260728) {
		problems = append(problems, fmt.Sprintf("supportedVersions %v without 2026-07-28", res.SupportedVersions))
	}
	for _, m := range []string{"capabilities", "ttlMs", "cacheScope"} {
		if !hasMember(r.resp.Result, m) {
			problems = append(problems, "no "+m)
		}
	}
	if len(problems) > 0 {
		c.addf(chkDiscover, p.era(), Fail, "the result has %s", joinAnd(problems))
	} else {
		c.addf(chkDiscover, p.era(), Pass, "%s %s supports %v", p.info.Name, p.info.Version, res.SupportedVersions)
	}
	return p, nil
}

// legacyChecks runs the checks of a legacy session.
func (c *checker) legacyChecks(ctx context.Context, p *peer, url string) {
	c.checkNegotiation(ctx, url)
	c.checkPing(ctx, p)
	c.jsonrpcChecks(ctx, p)
	c.featureChecks(ctx, p)
	if url != "" {
		c.legacyHTTPChecks(ctx, p)
	}
	c.checkListChanged(p)
}

// modernChecks runs the checks of the stateless era.
func (c *checker) modernChecks(ctx context.Context, p *peer, url string) {
	c.checkUnsupportedVersion(ctx, p)
	c.checkMissingCapabilities(ctx, p)
	c.checkPingRemoved(ctx, p)
	c.jsonrpcChecks(ctx, p)
	c.featureChecks(ctx, p)
	c.checkListen(ctx, p)
	if url != "" {
		c.modernHTTPChecks(ctx, p)
	}
	c.checkResultMeta(p)
}

// checkNegotiation asks, on a connection of its own, for a revision no
// server speaks.
func (c *checker) checkNegotiation(ctx context.Context, url string) {
	const bogus = "1999-01-01"
	w, err := c.wire(url, false)
	if err != nil {
		c.addf(chkNegotiation, "", Fail, "cannot open a second connection: %v", err)
		return
	}
	defer w.close(ctx)
	p := c.newPeer(w, url, false, bogus)
	c.begin()
	var res mcp.InitializeResult
	_, err = p.get(ctx, mcp.MethodInitialize, map[string]any{
		"protocolVersion": bogus, "capabilities": map[string]any{}, "clientInfo": p.client,
	}, &res)
	era := string(mcp.Version20251125)
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		c.addf(chkNegotiation, era, Fail, "initialize with protocolVersion %q was refused with %s; the server must answer with a revision it supports", bogus, describeError(je))
	case err != nil:
		c.addf(chkNegotiation, era, Fail, "initialize with protocolVersion %q: %v", bogus, orEnded(err, w))
	case res.ProtocolVersion == bogus:
		c.addf(chkNegotiation, era, Fail, "the server accepted the unknown revision %q instead of offering one it supports", bogus)
	case !mcp.IsSupported(res.ProtocolVersion):
		c.addf(chkNegotiation, era, Warn, "the server offered %q, a revision mcpwire does not know", res.ProtocolVersion)
	default:
		c.addf(chkNegotiation, era, Pass, "asked for %s, offered %s", bogus, res.ProtocolVersion)
	}
}

// orEnded returns how the server ended, if it has, or err.
func orEnded(err error, w wire) error {
	if e := w.ended(); e != nil {
		return e
	}
	return err
}

// checkPing pings a legacy session.
func (c *checker) checkPing(ctx context.Context, p *peer) {
	c.begin()
	r, err := p.call(ctx, mcp.MethodPing, nil)
	switch {
	case err != nil:
		c.addf(chkPing, p.era(), Fail, "ping: %v", orEnded(err, p.w))
	case r.resp == nil:
		c.add(chkPing, p.era(), Fail, "ping went unanswered")
	case r.resp.Error != nil:
		c.addf(chkPing, p.era(), Fail, "ping was answered with an error: %s", describeError(r.resp.Error))
	case !isEmptyObject(r.resp.Result):
		c.addf(chkPing, p.era(), Warn, "ping was answered with %s, not an empty result", clip(string(r.resp.Result), 200))
	default:
		c.add(chkPing, p.era(), Pass, "")
	}
}

// checkPingRemoved pings in the modern era, which has no ping.
func (c *checker) checkPingRemoved(ctx context.Context, p *peer) {
	c.begin()
	r, err := p.call(ctx, mcp.MethodPing, nil)
	code, isErr := codeOf(r)
	switch {
	case err != nil:
		c.addf(chkPingRemoved, p.era(), Fail, "ping: %v", orEnded(err, p.w))
	case r.resp == nil:
		c.add(chkPingRemoved, p.era(), Fail, "ping went unanswered; an unknown method gets -32601")
	case !isErr:
		c.add(chkPingRemoved, p.era(), Fail, "ping with a 2026-07-28 envelope was answered with a result; the revision removed it (-32601)")
	case code != jsonrpc.CodeMethodNotFound:
		c.addf(chkPingRemoved, p.era(), Warn, "ping was refused with %s, not -32601", describeError(r.resp.Error))
	default:
		c.add(chkPingRemoved, p.era(), Pass, "")
	}
}

// checkUnsupportedVersion sends a modern request of an unknown revision.
func (c *checker) checkUnsupportedVersion(ctx context.Context, p *peer) {
	const bogus = "1999-01-01"
	c.begin()
	f := p.requestWith(p.id(), mcp.MethodDiscover, map[string]any{"_meta": p.envelope(bogus)})
	f.header = map[string][]string{"Mcp-Protocol-Version": {bogus}}
	r, err := p.w.exchange(ctx, f)
	code, isErr := codeOf(r)
	switch {
	case err != nil:
		c.addf(chkUnsupported, p.era(), Fail, "server/discover in revision %s: %v", bogus, orEnded(err, p.w))
		return
	case r.resp == nil:
		c.addf(chkUnsupported, p.era(), Fail, "server/discover in revision %s went unanswered", bogus)
		return
	case !isErr:
		c.addf(chkUnsupported, p.era(), Fail, "server/discover in revision %s was answered with a result", bogus)
		return
	case code != mcp.CodeUnsupportedProtocolVersion:
		c.addf(chkUnsupported, p.era(), Fail, "server/discover in revision %s was refused with %s, not -32022", bogus, describeError(r.resp.Error))
		return
	}
	var data mcp.UnsupportedVersionData
	if json.Unmarshal(r.resp.Error.Data, &data) != nil || len(data.Supported) == 0 || data.Requested != bogus {
		c.addf(chkUnsupported, p.era(), Warn, "-32022 without data {supported: [...], requested: %q}: %s", bogus, clip(string(r.resp.Error.Data), 200))
		return
	}
	if r.status != 0 && r.status != 400 {
		c.addf(chkUnsupported, p.era(), Fail, "-32022 came with HTTP %s, not 400", statusText(r.status))
		return
	}
	c.addf(chkUnsupported, p.era(), Pass, "supported: %v", data.Supported)
}

// checkMissingCapabilities sends a modern request whose _meta lacks
// clientCapabilities.
func (c *checker) checkMissingCapabilities(ctx context.Context, p *peer) {
	c.begin()
	env := p.envelope(p.version)
	delete(env, mcp.MetaKeyClientCapabilities)
	r, err := p.w.exchange(ctx, p.requestWith(p.id(), mcp.MethodDiscover, map[string]any{"_meta": env}))
	code, isErr := codeOf(r)
	switch {
	case err != nil:
		c.addf(chkMissingMeta, p.era(), Fail, "%v", orEnded(err, p.w))
	case r.resp == nil:
		c.add(chkMissingMeta, p.era(), Fail, "server/discover without clientCapabilities went unanswered")
	case !isErr:
		c.add(chkMissingMeta, p.era(), Fail, "server/discover without clientCapabilities was answered with a result; the member is required")
	case code != jsonrpc.CodeInvalidParams:
		c.addf(chkMissingMeta, p.era(), Warn, "refused with %s, not -32602", describeError(r.resp.Error))
	case r.status != 0 && r.status != 400:
		c.addf(chkMissingMeta, p.era(), Fail, "-32602 came with HTTP %s, not 400", statusText(r.status))
	default:
		c.add(chkMissingMeta, p.era(), Pass, "")
	}
}

// checkResultMeta reports what the modern results lacked.
func (c *checker) checkResultMeta(p *peer) {
	c.begin()
	switch {
	case p.results == 0:
		c.add(chkResultMeta, p.era(), Skip, "no result to look at")
	case p.noResultType > 0:
		c.addf(chkResultMeta, p.era(), Fail, "%d of %d results had no resultType (the first: %s)", p.noResultType, p.results, p.firstNoResultType)
	case p.noCache > 0:
		c.addf(chkResultMeta, p.era(), Fail, "%d results of discover, lists or reads had no ttlMs or cacheScope (the first: %s)", p.noCache, p.firstNoCache)
	case p.noServerInfo > 0:
		c.addf(chkResultMeta, p.era(), Warn, "%d of %d results had no _meta %q (the first: %s)", p.noServerInfo, p.results, mcp.MetaKeyServerInfo, p.firstNoServerInfo)
	default:
		c.addf(chkResultMeta, p.era(), Pass, "%d results", p.results)
	}
}

// checkListChanged reports list_changed notifications that the server's
// capabilities did not announce.
func (c *checker) checkListChanged(p *peer) {
	c.begin()
	declared := map[string]bool{
		mcp.NotificationToolListChanged:     p.caps.Tools != nil && p.caps.Tools.ListChanged,
		mcp.NotificationPromptListChanged:   p.caps.Prompts != nil && p.caps.Prompts.ListChanged,
		mcp.NotificationResourceListChanged: p.caps.Resources != nil && p.caps.Resources.ListChanged,
	}
	var bad []string
	seen := 0
	for method, n := range p.notes {
		if d, known := declared[method]; known {
			seen += n
			if !d {
				bad = append(bad, fmt.Sprintf("%s (%d×)", method, n))
			}
		}
	}
	slices.Sort(bad)
	switch {
	case len(bad) > 0:
		c.addf(chkListChanged, p.era(), Fail, "the server sent %s without declaring listChanged for that list", joinAnd(bad))
	default:
		c.addf(chkListChanged, p.era(), Pass, "%d list_changed notifications seen, all declared", seen)
	}
}
