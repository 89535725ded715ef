package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A Request is what a tool, prompt or resource handler knows about the
// request it serves, and its way back to the client: progress, log
// messages, and questions to the user (Elicit), the model (Sample) or the
// client's roots (ListRoots).
//
// The same handler serves both protocol eras. In the legacy era a question
// is a request to the client that blocks until it answers. In the modern
// (stateless) era it ends the current round: the server answers
// input_required and the client retries with the answer, which runs the
// handler again from the start. See the package documentation on
// re-entrant handlers.
type Request struct {
	// Session is the legacy session the request belongs to; nil for a
	// modern (stateless) request, which must not depend on earlier ones.
	Session *Session
	// Method is the JSON-RPC method, ID the request's id.
	Method string
	ID     jsonrpc.ID
	// Version is the protocol revision the request is served in.
	Version mcp.Version
	// Meta is the request's _meta.
	Meta *mcp.RequestMeta

	server *Server
	out    outbound
	// mrtr is the state of a modern request that may ask for input
	// (mrtr.go): nil until startRound, then the params it was given, then
	// its *round once it has answers or asks.
	mrtr any
}

// outbound is where a request's notifications and questions go: the
// session's connection, or the response stream of a stateless request.
type outbound interface {
	Notify(ctx context.Context, method string, params any) error
	Call(ctx context.Context, method string, params, result any) error
}

type outboundKey struct{}

// withOutbound makes requests served under ctx send their notifications
// to out rather than to the connection.
func withOutbound(ctx context.Context, out outbound) context.Context {
	return context.WithValue(ctx, outboundKey{}, out)
}

// IsModern reports whether the request is served in the stateless era
// (2026-07-28 and later).
func (r *Request) IsModern() bool { return mcp.IsModern(r.Version) }

// ClientCapabilities returns the capabilities that apply to this request:
// the session's in the legacy era, the request's own in the modern era.
// They are shared with the session's other requests (in the legacy era
// also with the sessions whose clients declared the same, and in the
// modern era with other requests carrying the same envelope): read-only.
func (r *Request) ClientCapabilities() *mcp.ClientCapabilities {
	switch {
	case r.IsModern():
		return r.Meta.ClientCapabilities // begin checked it is there
	case r.Session != nil:
		if c := r.Session.client; c != nil { // written once, before begin saw the session initialized
			return &c.caps
		}
	}
	return &mcp.ClientCapabilities{}
}

// ClientInfo returns the client's implementation info, if it gave any
// (read-only, as ClientCapabilities).
func (r *Request) ClientInfo() *mcp.Implementation {
	switch {
	case r.IsModern():
		return r.Meta.ClientInfo
	case r.Session != nil:
		if c := r.Session.client; c != nil {
			return &c.info
		}
		return &mcp.Implementation{}
	}
	return nil
}

// leastSeverity returns the Severity of the least severe level the client
// wants messages about this request at, and whether it wants any: in the
// modern era the request's own level, none when it set no level; in the
// legacy era the session's, 0 (every level) before logging/setLevel.
func (r *Request) leastSeverity() (least int, wanted bool) {
	switch {
	case r.IsModern():
		return r.Meta.LogLevel.Severity(), r.Meta.LogLevel != ""
	case r.Session != nil:
		r.Session.mu.Lock()
		defer r.Session.mu.Unlock()
		return int(r.Session.logLevel), true
	}
	return 0, true
}

// begin classifies the request by era and checks its envelope, given the
// _meta of its params: a modern request carries the protocol version,
// capabilities and client info itself; a legacy one inherits them from
// its session.
func (r *Request) begin(meta *mcp.RequestMeta) error {
	r.Meta = meta
	s := r.server
	if meta.ProtocolVersion != "" && s.modern {
		v := meta.ProtocolVersion
		if !mcp.IsModern(v) || !s.supports(v) {
			return mcp.UnsupportedVersionError(string(v), s.modernVersions())
		}
		if meta.ClientCapabilities == nil {
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: _meta lacks "io.modelcontextprotocol/clientCapabilities"`)
		}
		// tasks: the extension's methods are gated per request (tasks_methods.go);
		// skills: by the server's skill sets (skills_methods.go)
		if !mcp.HasMethod(v, r.Method) && !mcp.IsTasksExtensionMethod(r.Method) && !mcp.IsSkillsExtensionMethod(r.Method) {
			return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s is not part of revision %s", r.Method, v)
		}
		if meta.LogLevel != "" && !meta.LogLevel.IsValid() {
			return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown log level %q", meta.LogLevel)
		}
		r.Session = nil
		r.Version = v
		return nil
	}
	sess := r.Session
	if sess == nil {
		return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, `Invalid Request: a request without "io.modelcontextprotocol/protocolVersion" in _meta needs a session: send initialize first`)
	}
	sess.mu.Lock()
	initialized, v := sess.initialized, sess.clientLocked().version
	sess.mu.Unlock()
	if !initialized {
		if r.Method == mcp.MethodInitialize || r.Method == mcp.MethodPing {
			return nil
		}
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: %s before initialize", r.Method)
	}
	r.Version = v
	if !mcp.HasMethod(v, r.Method) && !mcp.IsSkillsExtensionMethod(r.Method) {
		return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s is not part of revision %s", r.Method, v)
	}
	return nil
}

// modernVersions lists the modern revisions the server serves.
func (s *Server) modernVersions() []mcp.Version {
	var out []mcp.Version
	for _, v := range s.versions {
		if mcp.IsModern(v) {
			out = append(out, v)
		}
	}
	return out
}

// Progress reports progress to the client if it asked for it (the
// request's _meta has a progress token); otherwise it does nothing.
// Progress must increase from one call to the next. Total is the value at
// completion, 0 when unknown.
func (r *Request) Progress(ctx context.Context, progress, total float64, message string) error {
	if r.Meta == nil || !r.Meta.ProgressToken.IsValid() {
		return nil
	}
	p := &mcp.ProgressParams{ProgressToken: r.Meta.ProgressToken, Progress: progress, Message: message}
	if total > 0 {
		p.Total = &total
	}
	return r.out.Notify(ctx, mcp.NotificationProgress, p)
}

// Log sends a log message about this request to the client, if the
// client wants messages of that level: in the legacy era, at or above the
// session's level (all before logging/setLevel); in the modern era only
// when the request set a log level, at or above it. Data is any value
// that encodes to JSON.
func (r *Request) Log(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error {
	if !level.IsValid() {
		return fmt.Errorf("mcp server: invalid log level %q", level)
	}
	if least, wanted := r.leastSeverity(); !wanted || level.Severity() < least {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("mcp server: encoding log data: %w", err)
	}
	return r.out.Notify(ctx, mcp.NotificationLoggingMessage, &mcp.LoggingMessageParams{Level: level, Logger: logger, Data: raw})
}

// A Question is one thing a handler asks the client: to elicit
// information from the user (mcp.MethodElicit with *mcp.ElicitParams), to
// sample the model (mcp.MethodCreateMessage with *mcp.CreateMessageParams)
// or to list its roots (mcp.MethodListRoots, no params). The answer is
// decoded into Result: an *mcp.ElicitResult, *mcp.CreateMessageResult or
// *mcp.ListRootsResult.
type Question struct {
	// Key names the question in the modern era's inputRequests; it must
	// be unique within one request and the same every time the handler
	// runs.
	Key    string
	Method string
	Params any
	Result any
}

// Ask poses questions to the client and fills in their Results.
//
// In the legacy era the questions are sent as requests to the client, all
// at once, and Ask returns when every one is answered.
//
// In the modern era Ask returns at once when the client has already
// answered every question (in this round or an earlier one); otherwise it
// returns an error that ends the round: the server answers input_required
// with the unanswered questions, and when the client retries with the
// answers, the handler runs again from the start and Ask finds them. The
// handler must return that error as it is (errors.Is(err,
// ErrInputRequired) holds), and must do nothing before Ask that it cannot
// safely do again.
func (r *Request) Ask(ctx context.Context, questions ...*Question) error {
	caps := r.ClientCapabilities()
	for _, q := range questions {
		if err := checkQuestion(caps, q); err != nil {
			return r.capabilityError(err, requiredFor(q.Method))
		}
	}
	if r.IsModern() {
		if run := r.taskRun(); run != nil { // tasks: a task's questions wait for tasks/update (tasks_methods.go)
			return run.ask(ctx, r, questions)
		}
		return r.askModern(questions)
	}
	if len(questions) == 1 {
		q := questions[0]
		return r.out.Call(ctx, q.Method, q.Params, q.Result)
	}
	errs := make(chan error, len(questions))
	for _, q := range questions {
		go func() { errs <- r.out.Call(ctx, q.Method, q.Params, q.Result) }()
	}
	var first error
	for range questions {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// autoKey names the n-th question of a handler that did not name it (in
// a legacy request, or one that cannot ask, no key is used).
func (r *Request) autoKey(method string) string {
	rd := r.ensureRound()
	if rd == nil {
		return method
	}
	rd.asked++
	return method + "#" + strconv.Itoa(rd.asked)
}

// Elicit asks the user, through the client, for the information described
// by params: a form, or a URL to visit. See Ask for how the two eras
// differ; a handler that calls Elicit must return the error it gets as it
// is.
func (r *Request) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	var res mcp.ElicitResult
	if err := r.Ask(ctx, &Question{Key: r.autoKey(mcp.MethodElicit), Method: mcp.MethodElicit, Params: params, Result: &res}); err != nil {
		return nil, err
	}
	return &res, nil
}

// Sample asks the client's language model for a message; see Elicit.
func (r *Request) Sample(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := r.Ask(ctx, &Question{Key: r.autoKey(mcp.MethodCreateMessage), Method: mcp.MethodCreateMessage, Params: params, Result: &res}); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots asks the client for its roots; see Elicit.
func (r *Request) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	var res mcp.ListRootsResult
	if err := r.Ask(ctx, &Question{Key: r.autoKey(mcp.MethodListRoots), Method: mcp.MethodListRoots, Result: &res}); err != nil {
		return nil, err
	}
	return &res, nil
}

// checkQuestion checks that the client can answer q.
func checkQuestion(caps *mcp.ClientCapabilities, q *Question) error {
	switch q.Method {
	case mcp.MethodElicit:
		p, ok := q.Params.(*mcp.ElicitParams)
		if !ok {
			return fmt.Errorf("mcp server: an elicitation question needs *mcp.ElicitParams, not %T", q.Params)
		}
		return checkElicit(caps, p)
	case mcp.MethodCreateMessage:
		p, ok := q.Params.(*mcp.CreateMessageParams)
		if !ok {
			return fmt.Errorf("mcp server: a sampling question needs *mcp.CreateMessageParams, not %T", q.Params)
		}
		return checkSampling(caps, p)
	case mcp.MethodListRoots:
		if caps.Roots == nil {
			return fmt.Errorf("%w: roots", ErrNotSupported)
		}
		return nil
	}
	return fmt.Errorf("mcp server: cannot ask the client %q", q.Method)
}

// requiredFor is the capability a question's method needs.
func requiredFor(method string) mcp.ClientCapabilities {
	switch method {
	case mcp.MethodCreateMessage:
		return mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}
	case mcp.MethodListRoots:
		return mcp.ClientCapabilities{Roots: &mcp.RootsCapability{}}
	}
	return mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
}

// capabilityError reports a missing client capability: -32021 with the
// capability required in the modern era, err as it is in the legacy era.
func (r *Request) capabilityError(err error, required mcp.ClientCapabilities) error {
	if r.IsModern() && errors.Is(err, ErrNotSupported) {
		return mcp.MissingCapabilityError(required)
	}
	return err
}

func checkSampling(caps *mcp.ClientCapabilities, p *mcp.CreateMessageParams) error {
	switch {
	case caps.Sampling == nil:
		return fmt.Errorf("%w: sampling", ErrNotSupported)
	case (len(p.Tools) > 0 || p.ToolChoice != nil) && !caps.SamplingTools():
		return fmt.Errorf("%w: sampling with tools", ErrNotSupported)
	case p.IncludeContext != "" && p.IncludeContext != mcp.IncludeContextNone && caps.Sampling.Context == nil:
		return fmt.Errorf("%w: sampling with includeContext %q", ErrNotSupported, p.IncludeContext)
	}
	return nil
}

func checkElicit(caps *mcp.ClientCapabilities, p *mcp.ElicitParams) error {
	if p.Mode == mcp.ElicitModeURL {
		if !caps.ElicitURL() {
			return fmt.Errorf("%w: URL-mode elicitation", ErrNotSupported)
		}
		return nil
	}
	if !caps.ElicitForm() {
		return fmt.Errorf("%w: elicitation", ErrNotSupported)
	}
	return nil
}

// A session's connection is an outbound.
var _ outbound = (*jsonrpc.Conn)(nil)
