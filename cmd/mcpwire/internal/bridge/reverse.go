package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// runReverse offers the HTTP server of the global flags as a stdio server
// on mcpwire's own stdin and stdout, until stdin ends (the host stops
// the server; the calls sent are answered first, for drain at most) or
// ctx does.
func runReverse(ctx context.Context, a *app.App, drain time.Duration) error {
	t := &a.Global.Target
	link, err := a.Connect(ctx, t, a.Logger())
	if err != nil {
		return app.WithCode(err, app.ExitConnect)
	}
	defer link.Release()
	up, err := link.Transport.Connect(ctx)
	if err != nil {
		return app.ConnectErrorf("cannot connect to %s: %v", t.Name(), err)
	}
	down, err := stdio.New(&stdio.Options{Stdin: a.Stdin, Stdout: a.Stdout}).Connect(ctx)
	if err != nil {
		up.Close()
		return app.Failure(err)
	}
	r := &reverse{up: up, down: down, explain: link.Explain, log: logger(a), stderr: a.Stderr, drain: drain,
		lists: map[jsonrpc.ID]struct{}{}, calls: map[jsonrpc.ID]struct{}{}, answered: make(chan struct{})}
	if tc, ok := up.(transport.ToolSchemaConn); ok {
		tc.SetToolSchemas(&r.schemas)
	}
	return r.run(ctx)
}

// A reverse carries messages between a stdio client (down: mcpwire's
// own stdin and stdout) and an HTTP server (up: the client transport of
// package streamable, which follows the era of each message, keeps the
// legacy session, resumes streams and falls back to HTTP+SSE by itself).
// Messages pass as they are, and in the order the client wrote them: an
// initialize is answered, its session established, before what follows
// it is sent, as a stdio server would have read it first (the client
// may write its first lines without waiting). When the client's input
// ends, the calls it sent are answered before the bridge ends (for
// --drain-timeout at most). There are three exceptions: an error that the
// HTTP transport made (the server could not be reached, refused the
// request, wants a login) gets the words of mcpwire's other verbs; the
// tool schemas of tools/list results are kept, so that modern tool calls
// carry the Mcp-Param-* headers their schemas ask for; and a legacy
// session that the server forgot (it restarted, or expired the session:
// HTTP 404) is opened again (reinit.go), since a stdio client never
// initializes twice.
type reverse struct {
	up      transport.Conn
	down    transport.Conn
	explain func(error) error
	log     *slog.Logger
	stderr  io.Writer
	drain   time.Duration // how long the calls may take to be answered once the input has ended

	wmu      sync.Mutex // serializes writes to down
	upMu     sync.Mutex // serializes writes to up
	mu       sync.Mutex
	lists    map[jsonrpc.ID]struct{} // tools/list calls in flight
	calls    map[jsonrpc.ID]struct{} // the client's calls awaiting their answer
	answered chan struct{}           // closed, and replaced, when one of calls is answered
	told     bool                    // an explanation was written on stderr
	schemas  toolSchemas
	again    upSession // what it takes to open the session again
}

// maxLists bounds the tools/list calls watched at once.
const maxLists = 1024

// maxCalls bounds the calls of the client awaited at once (the HTTP
// transport refuses more than its MaxInFlight in any case).
const maxCalls = 4096

// run carries messages until either side ends.
func (r *reverse) run(ctx context.Context) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	upDone := make(chan error, 1)
	go func() {
		upDone <- r.fromServer(ctx)
		stop() // the server side ended: so does the client side
	}()
	err := r.fromClient(ctx)
	if err == nil && ctx.Err() == nil { // the input ended: its calls are answered first
		t := time.NewTimer(r.drain)
		if !r.await(ctx, t.C, func() bool { return len(r.calls) == 0 }) && ctx.Err() == nil {
			r.mu.Lock()
			n := len(r.calls)
			r.mu.Unlock()
			r.log.Warn("bridge: calls still unanswered when the input ended", "calls", n, "drain-timeout", r.drain)
		}
		t.Stop()
	}
	stop()       // what ends fromServer now is ours, no failure of the server
	r.up.Close() // ends the legacy session, and fromServer
	upErr := <-upDone
	r.down.Close()
	if err == nil && upErr != nil {
		err = upErr
	}
	if err != nil {
		return app.Failure(err)
	}
	return nil
}

// fromClient forwards the stdio client's messages until its input ends
// (nil), or ctx does.
func (r *reverse) fromClient(ctx context.Context) error {
	for {
		m, err := r.down.Read(ctx)
		if err != nil {
			var de *jsonrpc.DecodeError
			switch {
			case errors.As(err, &de):
				if de.ResponseID.IsValid() {
					r.log.Warn("bridge: the client wrote a response that is not valid JSON-RPC", "error", de.Err.Message)
					continue
				}
				r.toClient(&jsonrpc.Response{ID: de.ID, Error: de.Err})
				continue
			case err == io.EOF, ctx.Err() != nil:
				return nil
			}
			return err
		}
		if b, ok := m.(*jsonrpc.Batch); ok { // 2025-03-26: sent member by member
			for _, x := range b.Messages {
				r.forward(ctx, x)
			}
			for _, e := range b.Invalid {
				r.toClient(e)
			}
			continue
		}
		r.forward(ctx, m)
	}
}

// forward sends one message of the client to the server; a call that
// cannot be sent is answered at once. After an initialize it waits for
// the answer, which establishes the session the next messages belong to.
func (r *reverse) forward(ctx context.Context, m jsonrpc.Message) {
	req, isReq := m.(*jsonrpc.Request)
	switch {
	case isReq && req.IsCall():
		r.mu.Lock()
		if req.Method == mcp.MethodListTools && len(r.lists) < maxLists {
			r.lists[req.ID] = struct{}{}
		}
		if len(r.calls) < maxCalls {
			r.calls[req.ID] = struct{}{}
		}
		r.mu.Unlock()
	case isReq && req.Method == mcp.NotificationCancelled:
		if id, ok := memberID(req.Params, "requestId"); ok {
			r.answer(id) // no answer may come
		}
	}
	r.again.note(m)
	err := r.send(ctx, m)
	if err == nil {
		if req != nil && req.IsCall() && req.Method == mcp.MethodInitialize {
			r.await(ctx, nil, func() bool { _, waiting := r.calls[req.ID]; return !waiting })
		}
		return
	}
	if !isReq || !req.IsCall() {
		r.log.Warn("bridge: a message of the client could not be sent", "error", r.words(err))
		return
	}
	code := jsonrpc.CodeInternalError
	if ctx.Err() != nil {
		code = jsonrpc.CodeConnectionClosed
	}
	r.toClient(&jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(code, r.words(err))})
}

// fromServer forwards the server's messages until the connection ends.
func (r *reverse) fromServer(ctx context.Context) error {
	for {
		m, err := r.up.Read(ctx)
		if err != nil {
			var de *jsonrpc.DecodeError
			switch {
			case errors.As(err, &de):
				r.log.Warn("bridge: the server sent a message that is not valid JSON-RPC", "error", de.Err.Message)
				continue
			case ctx.Err() != nil:
				return nil
			case err == io.EOF:
				return errors.New("the server closed the connection")
			}
			return err
		}
		if resp, ok := m.(*jsonrpc.Response); ok {
			if r.reopen(ctx, resp) {
				continue // the bridge's own, or to be sent again in a new session
			}
			m = r.fromServerResponse(resp)
		}
		r.toClient(m)
	}
}

// fromServerResponse learns the tools of a tools/list result, and words
// the errors of the HTTP transport.
func (r *reverse) fromServerResponse(resp *jsonrpc.Response) *jsonrpc.Response {
	r.mu.Lock()
	_, list := r.lists[resp.ID]
	delete(r.lists, resp.ID)
	r.mu.Unlock()
	if list && resp.Error == nil {
		r.schemas.learn(resp.Result)
	}
	if resp.Error == nil || errors.Unwrap(resp.Error) == nil {
		return resp // the server's own answer
	}
	e := *resp.Error
	e.Message = r.words(resp.Error)
	return &jsonrpc.Response{ID: resp.ID, Error: &e}
}

// words says what went wrong with the server, as mcpwire's other verbs
// do; the first time it has something to explain, it says so on stderr
// too, which hosts keep in their logs.
func (r *reverse) words(err error) string {
	d := r.explain(err)
	if d == nil {
		return app.OneLine(err.Error())
	}
	msg := app.Message(d)
	r.mu.Lock()
	told := r.told
	r.told = true
	r.mu.Unlock()
	if !told {
		fmt.Fprintf(r.stderr, "mcpwire: %s\n", msg)
	}
	return msg
}

// send writes a message to the server.
func (r *reverse) send(ctx context.Context, m jsonrpc.Message) error {
	r.upMu.Lock()
	defer r.upMu.Unlock()
	return r.up.Write(ctx, m)
}

// toClient writes a message to the stdio client; a response answers
// its call.
func (r *reverse) toClient(m jsonrpc.Message) {
	r.wmu.Lock()
	if err := r.down.Write(context.Background(), m); err != nil {
		r.log.Debug("bridge: writing to the client failed", "error", err)
	}
	r.wmu.Unlock()
	if resp, ok := m.(*jsonrpc.Response); ok {
		r.answer(resp.ID)
	}
}

// answer notes that the client's call id has its answer (or will get
// none).
func (r *reverse) answer(id jsonrpc.ID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.calls[id]; ok {
		delete(r.calls, id)
		close(r.answered)
		r.answered = make(chan struct{})
	}
}

// await waits until done (called under r.mu) holds, reporting true, or
// ctx ends or timeout fires (nil: never), reporting false.
func (r *reverse) await(ctx context.Context, timeout <-chan time.Time, done func() bool) bool {
	for {
		r.mu.Lock()
		ok, answered := done(), r.answered
		r.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-answered:
		case <-ctx.Done():
			return false
		case <-timeout:
			return false
		}
	}
}

// toolSchemas are the input schemas of the tools the server listed; the
// HTTP transport asks them for the Mcp-Param-* headers of tool calls.
type toolSchemas struct {
	mu sync.Mutex
	m  map[string]json.RawMessage
}

// learn keeps the schemas of a tools/list result.
func (s *toolSchemas) learn(result json.RawMessage) {
	type tool struct {
		name   string
		schema json.RawMessage
	}
	var tools []tool
	list := member(result, "tools")
	jsonscan.EachElement(list, 0, func(elem []byte) bool {
		if name, ok := memberString(elem, "name"); ok {
			tools = append(tools, tool{name, bytes.Clone(member(elem, "inputSchema"))}) // not a hold on the whole result
		}
		return len(tools) <= maxTools
	})
	if len(tools) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m)+len(tools) > maxTools {
		s.m = make(map[string]json.RawMessage)
	}
	for _, t := range tools {
		if old, ok := s.m[t.name]; !ok || string(old) != string(t.schema) {
			s.m[t.name] = t.schema
		}
	}
}

// ToolInputSchema implements transport.ToolSchemaLister.
func (s *toolSchemas) ToolInputSchema(name string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[name]
	return v, ok
}
