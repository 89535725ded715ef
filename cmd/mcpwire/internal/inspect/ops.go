package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// The operations the pages ask for: each is one request to the server
// (or a change of what the client tells it), bounded by the request
// timeout, cancellable by the page, and answered with the result as the
// server sent it, or an error in the words of the other verbs.

// An outcome is what an operation returns to the page: the result, or
// the error, or both (a tool result that does not match the tool's
// output schema).
type outcome struct {
	Result any      `json:"result,omitempty"`
	Error  *opError `json:"error,omitempty"`
	MS     float64  `json:"ms"` // how long it took
}

// An opError is an error as the page shows it.
type opError struct {
	Message string          `json:"message"`
	Code    int64           `json:"code,omitempty"` // the JSON-RPC error code, if the server sent one
	Data    json.RawMessage `json:"data,omitempty"`
}

// Errors of the inspector itself, which the HTTP layer answers with a
// status of their own.
var (
	errBusy      = errors.New("too many requests are running; wait for one to end, or cancel it")
	errDuplicate = errors.New("a request with this id is running already")
	errNoSession = errors.New("the session with the server has ended")
)

// describe turns the error of an operation into the page's words.
func describe(err error) *opError {
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		return &opError{Message: je.Message, Code: int64(je.Code), Data: je.Data}
	case errors.Is(err, context.DeadlineExceeded):
		return &opError{Message: "timed out (the request timeout of mcpwire inspect)"}
	case errors.Is(err, context.Canceled):
		return &opError{Message: "cancelled"}
	}
	return &opError{Message: app.TrimPrefixes(err.Error())}
}

// strictJSON decodes data into v: unknown members and trailing data are
// errors.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() {
		return errors.New("invalid JSON: data after the value")
	}
	return nil
}

// begin starts an operation of the page with the id id ("" for one that
// cannot be cancelled): its context is bounded by parent (the page's
// request), the request timeout and the inspector's life; it asks for
// progress (reported under id) and, in the modern era, for log messages
// at the level the person chose. end must be called when it is over.
func (in *Inspector) begin(parent context.Context, id string) (ctx context.Context, sess *client.Session, end func(), err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.sess == nil || in.st.Status != "connected":
		return nil, nil, nil, errNoSession
	case len(in.running) >= in.opts.MaxRunning:
		return nil, nil, nil, errBusy
	case id != "" && in.running[id] != nil:
		return nil, nil, nil, errDuplicate
	}
	ctx, cancel := context.WithTimeout(parent, in.opts.RequestTimeout)
	stop := context.AfterFunc(in.base, cancel)
	key := id
	if key == "" {
		in.anon++
		key = fmt.Sprintf("\x00%d", in.anon) // not cancellable, but counted
	}
	in.running[key] = cancel
	if in.st.LogLevel != "" && in.sess.IsModern() {
		ctx = client.WithLogLevel(ctx, in.st.LogLevel)
	}
	if id != "" {
		ctx = client.WithProgress(ctx, func(p mcp.ProgressParams) {
			in.hub.add(kindProgress, progressEntry{Call: id, Progress: p.Progress, Total: p.Total, Message: p.Message})
		})
	}
	return ctx, in.sess, func() {
		stop()
		cancel()
		in.mu.Lock()
		delete(in.running, key)
		in.mu.Unlock()
	}, nil
}

// progressEntry is a progress notification for a call of the page, in
// the journal.
type progressEntry struct {
	Call     string   `json:"call"`
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// run runs one operation f of the page and returns its outcome.
func (in *Inspector) run(parent context.Context, id string, f func(ctx context.Context, s *client.Session) (any, error)) (*outcome, error) {
	ctx, sess, end, err := in.begin(parent, id)
	if err != nil {
		return nil, err
	}
	defer end()
	start := time.Now()
	res, err := f(ctx, sess)
	o := &outcome{Result: res, MS: float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		o.Error = describe(err)
	}
	in.publish() // a modern result may have updated the server's info
	return o, nil
}

// callArgs are the page's tools/call.
type callArgs struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// callTool calls a tool. A result that does not match the tool's output
// schema is returned with the error that says why.
func (in *Inspector) callTool(ctx context.Context, a *callArgs) (*outcome, error) {
	return in.run(ctx, a.ID, func(ctx context.Context, s *client.Session) (any, error) {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: a.Name, Arguments: a.Arguments})
		var oe *client.OutputSchemaError
		if errors.As(err, &oe) {
			return oe.Result, err
		}
		if err != nil {
			return nil, err
		}
		return res, nil
	})
}

// readArgs are the page's resources/read.
type readArgs struct {
	ID  string `json:"id"`
	URI string `json:"uri"`
}

// readResource reads a resource.
func (in *Inspector) readResource(ctx context.Context, a *readArgs) (*outcome, error) {
	return in.run(ctx, a.ID, func(ctx context.Context, s *client.Session) (any, error) {
		res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: a.URI})
		if err != nil {
			return nil, err
		}
		return res, nil
	})
}

// promptArgs are the page's prompts/get.
type promptArgs struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// getPrompt renders a prompt.
func (in *Inspector) getPrompt(ctx context.Context, a *promptArgs) (*outcome, error) {
	return in.run(ctx, a.ID, func(ctx context.Context, s *client.Session) (any, error) {
		res, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: a.Name, Arguments: a.Arguments})
		if err != nil {
			return nil, err
		}
		return res, nil
	})
}

// completeArgs are the page's completion/complete.
type completeArgs struct {
	Ref      mcp.CompleteReference `json:"ref"`
	Argument mcp.CompleteArgument  `json:"argument"`
	Context  map[string]string     `json:"context,omitempty"`
}

// complete asks for the completions of a prompt argument or a template
// variable.
func (in *Inspector) complete(ctx context.Context, a *completeArgs) (*outcome, error) {
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		p := &mcp.CompleteParams{Ref: a.Ref, Argument: a.Argument}
		if len(a.Context) > 0 {
			p.Context = &mcp.CompleteContext{Arguments: a.Context}
		}
		res, err := s.Complete(ctx, p)
		if err != nil {
			return nil, err
		}
		return res, nil
	})
}

// subscribeArgs are the page's subscription to a resource, or its end.
type subscribeArgs struct {
	URI       string `json:"uri"`
	Subscribe bool   `json:"subscribe"`
}

// subscribe subscribes to a resource's updates, or ends the
// subscription: resources/subscribe in the legacy era, a new
// subscriptions/listen in the modern era.
func (in *Inspector) subscribe(ctx context.Context, a *subscribeArgs) (*outcome, error) {
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		if !s.IsModern() {
			var err error
			if a.Subscribe {
				err = s.Subscribe(ctx, a.URI)
			} else {
				err = s.Unsubscribe(ctx, a.URI)
			}
			if err != nil {
				return nil, err
			}
		}
		in.mu.Lock()
		subs := slices.DeleteFunc(in.st.Subscriptions, func(u string) bool { return u == a.URI })
		if a.Subscribe {
			subs = append(subs, a.URI)
		}
		in.st.Subscriptions = subs
		in.mu.Unlock()
		if s.IsModern() {
			in.relisten(ctx)
		}
		in.publish()
		return struct{}{}, nil
	})
}

// levelArgs are the page's choice of log level ("" for the server's
// default, in the modern era).
type levelArgs struct {
	Level mcp.LoggingLevel `json:"level"`
}

// setLogLevel chooses the level of the server's log messages: with
// logging/setLevel in the legacy era; in the modern era, the level goes
// with every request from then on.
func (in *Inspector) setLogLevel(ctx context.Context, a *levelArgs) (*outcome, error) {
	if a.Level != "" && !a.Level.IsValid() {
		return nil, fmt.Errorf("unknown log level %q", a.Level)
	}
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		if !s.IsModern() {
			if a.Level == "" {
				return nil, errors.New("a legacy session cannot go back to the server's default level")
			}
			if err := s.SetLogLevel(ctx, a.Level); err != nil {
				return nil, err
			}
		}
		in.mu.Lock()
		in.st.LogLevel = a.Level
		in.mu.Unlock()
		in.publish()
		return struct{}{}, nil
	})
}

// rootsArgs are the roots the person sets.
type rootsArgs struct {
	Roots []mcp.Root `json:"roots"`
}

// maxRoots bounds the roots the person sets.
const maxRoots = 256

// setRoots sets the roots the client gives the server, and tells a
// legacy server they changed (a modern server asks for them when it needs
// them).
func (in *Inspector) setRoots(ctx context.Context, a *rootsArgs) (*outcome, error) {
	if len(a.Roots) > maxRoots {
		return nil, fmt.Errorf("at most %d roots", maxRoots)
	}
	for _, r := range a.Roots {
		if !strings.HasPrefix(r.URI, "file://") {
			return nil, fmt.Errorf("root %q: a root is a file:// URI", r.URI)
		}
	}
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		in.mu.Lock()
		in.st.Roots = append([]mcp.Root{}, a.Roots...)
		in.mu.Unlock()
		in.publish()
		if err := s.NotifyRootsChanged(ctx); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	})
}

// refreshAll reads every list of the server again.
func (in *Inspector) refreshAll(ctx context.Context) (*outcome, error) {
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		for _, kind := range []string{listTools, listResources, listTemplates, listPrompts} {
			in.readList(ctx, kind)
		}
		in.publish()
		return struct{}{}, ctx.Err()
	})
}

// ping pings the server.
func (in *Inspector) ping(ctx context.Context) (*outcome, error) {
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		return struct{}{}, s.Ping(ctx)
	})
}

// cancelRequest cancels the page's request id, and reports whether it was
// running.
func (in *Inspector) cancelRequest(id string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	cancel := in.running[id]
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}
