package bridge

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A pool is the server processes that serve modern (2026-07-28)
// requests. A modern request stands alone, so any process serves any
// request, and one process serves the requests of many clients at once.
// Their ids could clash, so each request gets an id of the bridge's on
// its way to the process (and its progress token with it), and its own
// back on the way out: the process never sees two requests with one id,
// and a client never sees another's. The bridge's ids are random (128
// bits, crypto/rand), so that a client cannot name another's request
// even where a server echoes what it is given. What the process sends
// while it serves a request goes to that request's stream:
//
//   - notifications/progress, by its progress token;
//   - notifications/message, to the one request of the process that asked
//     for log messages (_meta logLevel): a process serves one such request
//     at a time, since a log message does not say which request it is
//     for;
//   - notifications of a subscriptions/listen stream, by their
//     subscription id (the listen's id), which is mapped back too, as in
//     the listen's final result;
//   - notifications/cancelled of a listen, which the process ends so.
//
// A modern server sends no requests; the pool refuses any, and drops the
// other notifications (they belong to no request).
//
// Processes start when requests need them, up to PoolSize, each serving
// up to PoolConcurrency requests; requests beyond wait (at most
// MaxQueued of them, for at most QueueTimeout), then are refused with
// CodeOverloaded (HTTP 503, Retry-After). Listens count against
// MaxListens, not against a process's concurrency. A process idle for
// PoolIdleTimeout is stopped; one that dies fails its requests, and the
// next request starts another. The retry of a multi round-trip request
// (its requestState) goes to the process that issued the state, while
// it runs: a server's state keys are often its process's own.
type pool struct {
	b   *Bridge
	ids idSource // the ids of the requests (ids.go)

	mu       sync.Mutex
	children []*pooled
	starting int           // processes being started
	waiting  int           // requests waiting for room
	listens  int           // listens open
	changed  chan struct{} // closed, and replaced, when room may have freed
	closed   bool
	sticky   map[string]stickyEntry // requestState → the process that issued it
	order    []string               // sticky's keys, oldest first
	tools    toolSchemas            // of the modern tools/list results
	reaping  sync.WaitGroup         // idle processes being stopped
}

// A pooled is one process of the pool.
type pooled struct {
	c        *child // set once started
	inflight int    // requests served, listens aside (pool.mu)
	listens  int    // listens open (pool.mu)
	logBusy  bool   // it serves a request that asked for log messages (pool.mu)
	lastUsed time.Time
	idle     *time.Timer // stops the process once idle long enough (pool.mu)
	gone     bool        // dead or stopped: no longer in the pool (pool.mu)

	mu      sync.Mutex
	reqs    map[string]*pcall // requests in flight, by the bridge's id
	logging *pcall            // the request that asked for log messages
}

// A pcall is a modern request in flight on a pooled process.
type pcall struct {
	orig    jsonrpc.ID
	method  string
	token   []byte // the client's progress token (raw JSON), or nil
	listen  bool
	ended   chan struct{} // closed when the listen ends (the process cancelled it, or the bridge closes), or the client is too slow (out)
	endOnce sync.Once
	out     outbox // what the process sends for the request, on its way to the request's stream
}

// end ends a listen without a result, or a request whose client does not
// read its stream.
func (c *pcall) end() { c.endOnce.Do(func() { close(c.ended) }) }

// A stickyEntry remembers the process that issued a requestState.
type stickyEntry struct {
	pc      *pooled
	expires time.Time
}

// Bounds of the pool's memory.
const (
	maxSticky = 10_000           // requestStates remembered
	stickyTTL = 15 * time.Minute // how long one is remembered
	maxTools  = 10_000           // tool schemas remembered
)

func newPool(b *Bridge) *pool {
	return &pool{b: b, changed: make(chan struct{})}
}

// probe starts the pool's first process and asks it server/discover. It
// returns the modern revisions the server speaks; none when it answers
// with an error or not in time, in which case the process is stopped.
func (p *pool) probe(ctx context.Context) ([]mcp.Version, error) {
	pc, err := p.spawn()
	if err != nil {
		return nil, err
	}
	var modern []mcp.Version
	for _, v := range mcp.SupportedVersions() {
		if mcp.IsModern(v) {
			modern = append(modern, v)
		}
	}
	params, _ := json.Marshal(map[string]any{"_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    modern[len(modern)-1],
		mcp.MetaKeyClientCapabilities: struct{}{},
		mcp.MetaKeyClientInfo:         mcp.Implementation{Name: "mcpwire-bridge", Version: "1"},
	}})
	id := jsonrpc.StringID(p.ids.next())
	ctx, cancel := context.WithTimeout(ctx, p.b.opts.ProbeTimeout)
	defer cancel()
	ch, err := pc.c.call(ctx, &jsonrpc.Request{ID: id, Method: mcp.MethodDiscover, Params: params})
	var resp *jsonrpc.Response
	if err == nil {
		select {
		case resp = <-ch:
		case <-ctx.Done():
			pc.c.forget(id)
			p.b.log.Warn("bridge: the server did not answer server/discover in time; serving the legacy era only", "timeout", p.b.opts.ProbeTimeout)
		}
	}
	if err == nil && resp == nil && ctx.Err() == nil {
		err = pc.c.errGone()
	}
	if err != nil {
		pc.c.close()
		return nil, &goneError{reason: err.Error() + " (before answering server/discover)"}
	}
	got := discovered(resp)
	var speaks []mcp.Version
	for _, v := range modern {
		for _, g := range got {
			if g == v {
				speaks = append(speaks, v)
			}
		}
	}
	if len(speaks) == 0 {
		pc.c.close()
		return nil, nil
	}
	p.mu.Lock()
	p.children = append(p.children, pc)
	p.idleLocked(pc)
	p.mu.Unlock()
	return speaks, nil
}

// discovered returns the versions an answer to server/discover names:
// its supportedVersions, or the supported list of a -32022 error.
func discovered(resp *jsonrpc.Response) []mcp.Version {
	if resp == nil {
		return nil
	}
	var vs []mcp.Version
	list := member(resp.Result, "supportedVersions")
	if resp.Error != nil {
		list = nil
		if resp.Error.Code == mcp.CodeUnsupportedProtocolVersion {
			list = member(resp.Error.Data, "supported")
		}
	}
	if list == nil || json.Unmarshal(list, &vs) != nil {
		return nil
	}
	return vs
}

// spawn starts a process for the pool (not yet counted in it).
func (p *pool) spawn() (*pooled, error) {
	pc := &pooled{reqs: make(map[string]*pcall)}
	c, err := p.b.start(func(c *child, m *jsonrpc.Request) { p.route(pc, c, m) }, func(string) { p.died(pc) })
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	pc.c = c
	p.mu.Unlock()
	return pc, nil
}

// want is what a request needs of a process.
type want struct {
	listen  bool
	logging bool
	sticky  *pooled // the process that issued the request's requestState
}

// serve forwards a modern request to a pooled process.
func (p *pool) serve(ctx context.Context, req *jsonrpc.Request, w jsonrpc.Writer) *jsonrpc.Response {
	if !req.IsCall() {
		// The only notification of a modern client is notifications/cancelled,
		// whose id names a request of its own: over HTTP a client cancels
		// by closing the request's stream.
		p.b.log.Debug("bridge: a modern notification dropped", "method", req.Method)
		return nil
	}
	// The members the pool reads of the params: _meta and requestState,
	// then logLevel and progressToken of _meta.
	var top, meta [2]span
	findMembers(req.Params, 0, []string{"_meta", "requestState"}, top[:])
	if top[0].end != 0 {
		findMembers(req.Params, top[0].start, []string{mcp.MetaKeyLogLevel, mcp.MetaKeyProgressToken}, meta[:])
	}
	wt := want{listen: req.Method == mcp.MethodSubscriptionsListen, logging: meta[0].end != 0}
	if state, ok := decodeString(top[1].in(req.Params)); ok {
		wt.sticky = p.stickyFor(state)
	}
	pc, e := p.acquire(ctx, wt)
	switch {
	case e != nil:
		return &jsonrpc.Response{ID: req.ID, Error: e}
	case pc == nil:
		return nil // the client went away while waiting
	}
	n := p.ids.next()
	call := &pcall{orig: req.ID, method: req.Method, listen: wt.listen, ended: make(chan struct{}), out: outbox{w: w, ctx: ctx}}
	params := req.Params
	if tok := meta[1]; tok.end != 0 {
		params, call.token = replaceSpan(params, tok, jsonrpc.StringID(n).AppendJSON(nil)), tok.in(params)
	}
	pc.register(n, call, wt.logging)
	// Deferred, in this order: the process's room is given back, whatever
	// the client's pace; then what the process sent for the request is
	// written to the stream (before the answer, which the handler writes
	// once serve has returned), and nothing is written after.
	defer call.out.close()
	released := false
	release := func() {
		if !released {
			released = true
			p.release(pc, n, wt)
		}
	}
	defer release()
	fwd := &jsonrpc.Request{ID: jsonrpc.StringID(n), Method: req.Method, Params: params}
	ch, err := pc.c.call(ctx, fwd)
	if err != nil {
		return goneResponse(req.ID, err)
	}
	select {
	case resp := <-ch:
		release()
		if resp == nil {
			return goneResponse(req.ID, pc.c.errGone())
		}
		return p.answer(req, call, pc, resp)
	case <-call.ended:
		pc.c.forget(fwd.ID)
		if call.out.overrun() {
			p.cancel(pc, n, "the client does not read its stream")
			return &jsonrpc.Response{ID: req.ID, Error: jsonrpc.Errorf(jsonrpc.CodeOverloaded,
				"Server overloaded: the client does not read its stream: more than %d messages or %d bytes of this request waited for it, and the request was ended",
				p.b.opts.MaxBacklog, p.b.opts.MaxBacklogBytes)}
		}
		if wt.listen && ctx.Err() == nil {
			p.cancel(pc, n, "the bridge is shutting down")
		}
		return nil
	case <-ctx.Done():
		pc.c.forget(fwd.ID)
		p.cancel(pc, n, "the client closed the request's stream")
		return nil
	}
}

// answer turns the process's response into the client's.
func (p *pool) answer(req *jsonrpc.Request, call *pcall, pc *pooled, resp *jsonrpc.Response) *jsonrpc.Response {
	out := &jsonrpc.Response{ID: req.ID, Result: resp.Result, Error: resp.Error}
	if resp.Error != nil {
		return out
	}
	if call.listen {
		out.Result, _, _ = replaceMember(out.Result, req.ID.AppendJSON(nil), "_meta", mcp.MetaKeySubscriptionID)
	}
	var rs [2]span
	findMembers(resp.Result, 0, []string{"resultType", "requestState"}, rs[:])
	if jsonscan.StringEqual(rs[0].in(resp.Result), string(mcp.ResultTypeInputRequired)) {
		if state, ok := decodeString(rs[1].in(resp.Result)); ok {
			p.remember(state, pc)
		}
	}
	if req.Method == mcp.MethodListTools {
		p.tools.learn(resp.Result)
	}
	return out
}

// cancel tells the process that request n is cancelled.
func (p *pool) cancel(pc *pooled, n string, reason string) {
	note, err := jsonrpc.NewNotification(mcp.NotificationCancelled, map[string]any{"requestId": n, "reason": reason})
	if err == nil {
		err = pc.c.write(context.Background(), note)
	}
	if err != nil {
		p.b.log.Debug("bridge: cancellation not delivered", "error", err)
	}
}

// register records a request in flight on pc.
func (pc *pooled) register(n string, call *pcall, logging bool) {
	pc.mu.Lock()
	pc.reqs[n] = call
	if logging {
		pc.logging = call
	}
	pc.mu.Unlock()
}

// lookup returns the request in flight whose bridge id is the JSON value
// raw (a string, which the process may have written with escapes).
func (pc *pooled) lookup(raw []byte) *pcall {
	if len(raw) == 0 || raw[0] != '"' {
		return nil
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if end, escaped := jsonscan.SkipString(raw, 0); end == len(raw) && !escaped {
		return pc.reqs[string(raw[1:end-1])] // the usual form: no allocation
	}
	n, ok := jsonscan.Unquote(raw)
	if !ok {
		return nil
	}
	return pc.reqs[n]
}

// route sends a message of a pooled process to the request it belongs to
// (see pool).
func (p *pool) route(pc *pooled, c *child, m *jsonrpc.Request) {
	if m.IsCall() {
		c.write(context.Background(), &jsonrpc.Response{ID: m.ID, Error: jsonrpc.NewError(jsonrpc.CodeMethodNotFound,
			"Method not found: the bridge serves this process in the stateless era (2026-07-28), where a server sends no requests")})
		return
	}
	var (
		call *pcall
		out  = m
	)
	switch m.Method {
	case mcp.NotificationProgress:
		var tok []byte
		if tok = member(m.Params, mcp.MetaKeyProgressToken); tok == nil {
			break
		}
		if call = pc.lookup(tok); call != nil && call.token != nil {
			params, _, _ := replaceMember(m.Params, call.token, mcp.MetaKeyProgressToken)
			out = &jsonrpc.Request{Method: m.Method, Params: params}
		}
	case mcp.NotificationLoggingMessage:
		pc.mu.Lock()
		call = pc.logging
		pc.mu.Unlock()
	case mcp.NotificationCancelled:
		if call = pc.lookup(member(m.Params, "requestId")); call != nil && call.listen {
			call.end()
		}
		return
	default:
		if sid := member(m.Params, "_meta", mcp.MetaKeySubscriptionID); sid != nil {
			if call = pc.lookup(sid); call != nil && call.listen {
				params, _, _ := replaceMember(m.Params, call.orig.AppendJSON(nil), "_meta", mcp.MetaKeySubscriptionID)
				out = &jsonrpc.Request{Method: m.Method, Params: params}
			} else {
				call = nil
			}
		}
	}
	if call == nil {
		p.b.log.Debug("bridge: a notification of the server that belongs to no request dropped", "method", m.Method)
		return
	}
	if call.out.put(out, p.b.opts.MaxBacklog, p.b.opts.MaxBacklogBytes) {
		p.b.log.Warn("bridge: a client does not read its stream; its request is ended", "method", call.method,
			"max-backlog", p.b.opts.MaxBacklog, "max-backlog-bytes", p.b.opts.MaxBacklogBytes)
		call.end()
	}
}

// acquire returns a process with room for a request: the least busy that
// suits it, or a new one while the pool may grow; otherwise the request
// waits. It returns neither process nor error when ctx ends.
func (p *pool) acquire(ctx context.Context, wt want) (*pooled, *jsonrpc.Error) {
	var timeout <-chan time.Time
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, jsonrpc.NewError(jsonrpc.CodeConnectionClosed, "Connection closed: the bridge is shutting down")
		}
		if wt.listen && p.listens >= p.b.opts.MaxListens {
			p.mu.Unlock()
			return nil, jsonrpc.Errorf(jsonrpc.CodeOverloaded, "Server overloaded: %d subscriptions/listen streams are open, as many as the bridge allows; retry later", p.b.opts.MaxListens)
		}
		pc, grow := p.pickLocked(wt)
		if pc != nil {
			p.takeLocked(pc, wt)
			p.mu.Unlock()
			return pc, nil
		}
		if grow {
			p.starting++
			p.mu.Unlock()
			pc, err := p.spawn()
			p.mu.Lock()
			p.starting--
			if err == nil && !p.closed {
				p.children = append(p.children, pc)
				p.takeLocked(pc, wt)
			}
			p.broadcastLocked()
			closed := p.closed
			p.mu.Unlock()
			switch {
			case err != nil:
				return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: cannot start the server: %s", describeStart(err))
			case closed:
				pc.c.close()
				continue
			}
			return pc, nil
		}
		if p.waiting >= p.b.opts.MaxQueued {
			p.mu.Unlock()
			return nil, jsonrpc.Errorf(jsonrpc.CodeOverloaded, "Server overloaded: %d requests already wait for a server process; retry later", p.b.opts.MaxQueued)
		}
		p.waiting++
		changed := p.changed
		p.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(p.b.opts.QueueTimeout)
			defer t.Stop()
			timeout = t.C
		}
		var e *jsonrpc.Error
		gone := false
		select {
		case <-changed:
		case <-ctx.Done():
			gone = true
		case <-timeout:
			e = jsonrpc.Errorf(jsonrpc.CodeOverloaded, "Server overloaded: no server process had room for %s; retry later", p.b.opts.QueueTimeout)
		}
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
		if e != nil || gone {
			return nil, e
		}
	}
}

// pickLocked chooses the process for a request, or reports whether a new
// one may be started for it.
func (p *pool) pickLocked(wt want) (best *pooled, grow bool) {
	fits := func(pc *pooled) bool {
		if pc.gone {
			return false
		}
		if wt.listen {
			return true
		}
		return pc.inflight < p.b.opts.PoolConcurrency && !(wt.logging && pc.logBusy)
	}
	if s := wt.sticky; s != nil && !s.gone {
		if fits(s) {
			return s, false
		}
		return nil, false // it will have room
	}
	for _, pc := range p.children {
		if !fits(pc) {
			continue
		}
		if best == nil || pc.inflight+pc.listens < best.inflight+best.listens {
			best = pc
		}
	}
	return best, best == nil && len(p.children)+p.starting < p.b.opts.PoolSize
}

// takeLocked counts a request on pc.
func (p *pool) takeLocked(pc *pooled, wt want) {
	if wt.listen {
		pc.listens++
		p.listens++
	} else {
		pc.inflight++
	}
	if wt.logging {
		pc.logBusy = true
	}
	if pc.idle != nil {
		pc.idle.Stop()
		pc.idle = nil
	}
}

// release ends a request on pc.
func (p *pool) release(pc *pooled, n string, wt want) {
	pc.mu.Lock()
	call := pc.reqs[n]
	delete(pc.reqs, n)
	if pc.logging == call {
		pc.logging = nil
	}
	pc.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if wt.listen {
		pc.listens--
		p.listens--
	} else {
		pc.inflight--
	}
	if wt.logging {
		pc.logBusy = false
	}
	pc.lastUsed = time.Now()
	p.idleLocked(pc)
	p.broadcastLocked()
}

// idleLocked arms the idle timer of pc if it serves nothing.
func (p *pool) idleLocked(pc *pooled) {
	if pc.inflight > 0 || pc.listens > 0 || pc.gone || p.closed || pc.idle != nil {
		return
	}
	pc.idle = time.AfterFunc(p.b.opts.PoolIdleTimeout, func() { p.reap(pc) })
}

// reap stops pc if it is still idle.
func (p *pool) reap(pc *pooled) {
	p.mu.Lock()
	if pc.gone || pc.inflight > 0 || pc.listens > 0 || p.closed {
		p.mu.Unlock()
		return
	}
	p.removeLocked(pc)
	p.reaping.Add(1)
	p.mu.Unlock()
	defer p.reaping.Done()
	p.b.log.Debug("bridge: an idle server process stopped", "pid", pc.c.conn.Pid())
	pc.c.close()
}

// died forgets a process that ended.
func (p *pool) died(pc *pooled) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !pc.gone && !p.closed && pc.c != nil {
		p.b.log.Warn("bridge: a pooled server process ended", "why", pc.c.reason())
	}
	p.removeLocked(pc)
	p.broadcastLocked()
}

// removeLocked takes pc out of the pool.
func (p *pool) removeLocked(pc *pooled) {
	pc.gone = true
	if pc.idle != nil {
		pc.idle.Stop()
		pc.idle = nil
	}
	for i, x := range p.children {
		if x == pc {
			p.children = append(p.children[:i], p.children[i+1:]...)
			break
		}
	}
}

// broadcastLocked wakes the requests waiting for room.
func (p *pool) broadcastLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// remember records that pc issued state.
func (p *pool) remember(state string, pc *pooled) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sticky == nil {
		p.sticky = make(map[string]stickyEntry)
	}
	for len(p.order) > 0 && (len(p.order) >= maxSticky || now.After(p.sticky[p.order[0]].expires)) {
		delete(p.sticky, p.order[0])
		p.order = p.order[1:]
	}
	if _, ok := p.sticky[state]; !ok {
		p.order = append(p.order, state)
	}
	p.sticky[state] = stickyEntry{pc: pc, expires: now.Add(stickyTTL)}
}

// stickyFor returns the running process that issued state, or nil.
func (p *pool) stickyFor(state string) *pooled {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.sticky[state]
	if !ok || e.pc.gone || time.Now().After(e.expires) {
		return nil
	}
	return e.pc
}

// busy reports whether a request runs, and returns the channel closed
// when that may change.
func (p *pool) busy() (bool, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pc := range p.children {
		if pc.inflight > 0 || pc.listens > 0 {
			return true, p.changed
		}
	}
	return false, p.changed
}

// close stops taking requests and ends the listens.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	p.broadcastLocked()
	children := append([]*pooled(nil), p.children...)
	p.mu.Unlock()
	for _, pc := range children {
		pc.mu.Lock()
		for _, call := range pc.reqs {
			if call.listen {
				call.end()
			}
		}
		pc.mu.Unlock()
	}
}

// stop waits up to DrainTimeout for the requests in flight, then stops
// every process (which fails the requests still running).
func (p *pool) stop() {
	p.close()
	deadline := time.NewTimer(p.b.opts.DrainTimeout)
	defer deadline.Stop()
	for waiting := true; waiting; {
		p.mu.Lock()
		busy := false
		for _, pc := range p.children {
			busy = busy || pc.inflight > 0 || pc.listens > 0
		}
		changed := p.changed
		p.mu.Unlock()
		if !busy {
			break
		}
		select {
		case <-changed:
		case <-deadline.C:
			p.b.log.Info("bridge: modern requests still running at shutdown; stopping their processes")
			waiting = false
		}
	}
	p.mu.Lock()
	children := p.children
	p.children = nil
	for _, pc := range children {
		pc.gone = true
		if pc.idle != nil {
			pc.idle.Stop()
			pc.idle = nil
		}
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, pc := range children {
		wg.Go(pc.c.close)
	}
	wg.Wait()
	p.reaping.Wait()
}
