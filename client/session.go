package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/mcpwire/mcpwire/internal/peer"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// A Session is a connection to one server, in the protocol revision agreed
// when connecting. Its methods are safe for concurrent use.
type Session struct {
	client        *Client
	conn          *jsonrpc.Conn
	peer          peer.Peer
	stopKeepAlive context.CancelFunc
	tconn         transport.Conn // the transport's connection, for ID (context.go)
	addr          string         // what the transport named its peer, for Address
	ended         chan struct{}  // closed once the session has ended and OnSessionClosed returned

	acks   acks         // acknowledgements of subscriptions/listen
	tools  toolCache    // what tools/list taught (toolcache.go)
	legacy legacyState  // what a re-handshake restores
	infoMu sync.RWMutex // guards serverInfo, serverCaps and instructions after Connect

	modern        bool
	version       mcp.Version
	env           *mcp.Envelope // the modern envelope of version, encoded once
	serverInfo    mcp.Implementation
	serverInfoRaw []byte // serverInfo as the latest modern result encoded it
	serverCaps    mcp.ServerCapabilities
	instructions  string
}

// ProtocolVersion returns the revision the session speaks.
func (s *Session) ProtocolVersion() mcp.Version { return s.version }

// IsModern reports whether the session speaks the stateless era
// (2026-07-28 and later).
func (s *Session) IsModern() bool { return s.modern }

// ServerInfo returns what the server said of itself: in its initialize
// result in a legacy session; in the stateless era, in the _meta of its
// latest result (which the typed methods take out of the results they
// return).
func (s *Session) ServerInfo() mcp.Implementation {
	s.infoMu.RLock()
	defer s.infoMu.RUnlock()
	return s.serverInfo
}

// ServerCapabilities returns the capabilities the server declared.
func (s *Session) ServerCapabilities() mcp.ServerCapabilities {
	s.infoMu.RLock()
	defer s.infoMu.RUnlock()
	return s.serverCaps
}

// Instructions returns the server's instructions for the model, if any.
func (s *Session) Instructions() string {
	s.infoMu.RLock()
	defer s.infoMu.RUnlock()
	return s.instructions
}

// Close ends the session and closes its connection (for a subprocess, the
// process is stopped).
func (s *Session) Close() error {
	if s.stopKeepAlive != nil {
		s.stopKeepAlive()
	}
	err := s.conn.Close()
	<-s.ended
	return err
}

// Wait blocks until the session has ended.
func (s *Session) Wait() error {
	err := s.conn.Wait()
	<-s.ended
	return err
}

// Done returns a channel closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.conn.Done() }

type progressKey struct{}

type logLevelKey struct{}

// WithLogLevel returns a context under which modern requests ask the
// server for log messages at level and above (the per-request
// "io.modelcontextprotocol/logLevel"); without it a modern server sends
// none. Legacy sessions use SetLogLevel instead.
func WithLogLevel(ctx context.Context, level mcp.LoggingLevel) context.Context {
	return context.WithValue(ctx, logLevelKey{}, level)
}

// WithProgress returns a context under which requests ask the server for
// progress notifications and deliver them to f. f runs on the session's
// read path: it must return quickly.
func WithProgress(ctx context.Context, f func(mcp.ProgressParams)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// stamp completes a request's _meta: the modern envelope, and a progress
// token when ctx asks for progress. It returns the function that ends the
// progress watch.
func (s *Session) stamp(ctx context.Context, meta *mcp.RequestMeta) func() {
	if s.modern {
		s.env.Stamp(meta)
	}
	if lvl, ok := ctx.Value(logLevelKey{}).(mcp.LoggingLevel); ok && s.modern && meta.LogLevel == "" {
		meta.LogLevel = lvl
	}
	if f, ok := ctx.Value(progressKey{}).(func(mcp.ProgressParams)); ok && f != nil && !meta.ProgressToken.IsValid() {
		tok, done := s.peer.WatchProgress(f)
		meta.ProgressToken = tok
		return done
	}
	return func() {}
}

// modernCaps are the capabilities as the modern era writes them: roots
// without listChanged.
func (c *Client) modernCaps() mcp.ClientCapabilities {
	caps := c.caps
	if caps.Roots != nil {
		caps.Roots = &mcp.RootsCapability{}
	}
	c.declareTasks(&caps) // tasks: the extension, when Options.Tasks (tasks.go)
	return caps
}

// call sends a request whose params carry meta, and decodes its result
// (in the modern era, without the server's info in _meta: see
// decodeModern).
func call[R any](ctx context.Context, s *Session, method string, params any, meta *mcp.RequestMeta) (*R, error) {
	done := s.stamp(ctx, meta)
	defer done()
	if !s.modern {
		return retryExpired(ctx, s, func() (*R, error) { return peer.Call[R](ctx, s.conn, method, params) })
	}
	raw, err := s.conn.CallRaw(ctx, method, params)
	if err != nil {
		return nil, err
	}
	r := new(R)
	env, err := mcp.ReadResultEnvelope(raw)
	if err == nil {
		err = s.decodeModern(raw, &env, r)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: decoding the result of %s: %w", method, err)
	}
	return r, nil
}

// Call sends any request and decodes its result into result (nil to
// discard it). In the modern era the params, which must encode to a JSON
// object (or be nil), get the request envelope in _meta; the result is
// decoded as it came, the server's info included. Prefer the typed
// methods; Call is for methods this package does not know.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	obj := map[string]json.RawMessage{}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("mcp client: encoding params: %w", err)
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fmt.Errorf("mcp client: params must encode to a JSON object: %w", err)
		}
	}
	var meta mcp.RequestMeta
	if m, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return fmt.Errorf("mcp client: params _meta: %w", err)
		}
	}
	done := s.stamp(ctx, &meta)
	defer done()
	if !meta.IsZero() {
		raw, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		obj["_meta"] = raw
	}
	var p any
	if len(obj) > 0 || params != nil {
		p = obj
	}
	_, err := retryExpired(ctx, s, func() (struct{}, error) { return struct{}{}, s.conn.Call(ctx, method, p, result) })
	return err
}

// Notify sends a notification; in the modern era clients send only
// notifications/cancelled.
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	return s.conn.Notify(ctx, method, params)
}

// Ping checks that the server answers (legacy era; the modern era has no
// ping, so there it asks for server/discover instead).
func (s *Session) Ping(ctx context.Context) error {
	if s.modern {
		_, err := s.Discover(ctx)
		return err
	}
	_, err := retryExpired(ctx, s, func() (struct{}, error) { return struct{}{}, s.conn.Call(ctx, mcp.MethodPing, nil, nil) })
	return err
}

// Discover asks a modern server what it supports.
func (s *Session) Discover(ctx context.Context) (*mcp.DiscoverResult, error) {
	p := &mcp.RequestParams{}
	return call[mcp.DiscoverResult](ctx, s, mcp.MethodDiscover, p, &p.Meta)
}

// ListResources returns one page of the server's resources.
func (s *Session) ListResources(ctx context.Context, params *mcp.ListResourcesParams) (*mcp.ListResourcesResult, error) {
	p := derefOr(params)
	return call[mcp.ListResourcesResult](ctx, s, mcp.MethodListResources, &p, &p.Meta)
}

// Resources iterates over every resource of the server.
func (s *Session) Resources(ctx context.Context) iter.Seq2[*mcp.Resource, error] {
	return pages(func(c mcp.Cursor) ([]mcp.Resource, mcp.Cursor, error) {
		r, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: c})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates returns one page of the server's resource
// templates.
func (s *Session) ListResourceTemplates(ctx context.Context, params *mcp.ListResourceTemplatesParams) (*mcp.ListResourceTemplatesResult, error) {
	p := derefOr(params)
	return call[mcp.ListResourceTemplatesResult](ctx, s, mcp.MethodListResourceTemplates, &p, &p.Meta)
}

// ResourceTemplates iterates over every resource template of the server.
func (s *Session) ResourceTemplates(ctx context.Context) iter.Seq2[*mcp.ResourceTemplate, error] {
	return pages(func(c mcp.Cursor) ([]mcp.ResourceTemplate, mcp.Cursor, error) {
		r, err := s.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: c})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

// ReadResource reads a resource. Whatever the era, an unknown resource is
// an error for which mcp.IsResourceNotFound holds.
func (s *Session) ReadResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	p := *params
	return rounds[mcp.ReadResourceResult](ctx, s, mcp.MethodReadResource, func() ([]byte, error) { return json.Marshal(&p) }, &p.Meta, func(r mcp.InputResponses, st string) {
		p.InputResponses, p.RequestState = r, st
	})
}

// Subscribe asks to be told when a resource changes (legacy era; in the
// modern era use Listen).
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	if s.modern {
		return errors.New("mcp client: resources/subscribe is not part of the modern era; use Listen")
	}
	p := &mcp.SubscribeParams{URI: uri}
	if _, err := call[mcp.EmptyResult](ctx, s, mcp.MethodSubscribe, p, &p.Meta); err != nil {
		return err
	}
	s.legacy.remember(func(st *legacyState) {
		if st.subs == nil {
			st.subs = make(map[string]struct{})
		}
		st.subs[uri] = struct{}{}
	})
	return nil
}

// Unsubscribe cancels a subscription (legacy era).
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	if s.modern {
		return errors.New("mcp client: resources/unsubscribe is not part of the modern era; use Listen")
	}
	p := &mcp.UnsubscribeParams{URI: uri}
	if _, err := call[mcp.EmptyResult](ctx, s, mcp.MethodUnsubscribe, p, &p.Meta); err != nil {
		return err
	}
	s.legacy.remember(func(st *legacyState) { delete(st.subs, uri) })
	return nil
}

// ListPrompts returns one page of the server's prompts.
func (s *Session) ListPrompts(ctx context.Context, params *mcp.ListPromptsParams) (*mcp.ListPromptsResult, error) {
	p := derefOr(params)
	return call[mcp.ListPromptsResult](ctx, s, mcp.MethodListPrompts, &p, &p.Meta)
}

// Prompts iterates over every prompt of the server.
func (s *Session) Prompts(ctx context.Context) iter.Seq2[*mcp.Prompt, error] {
	return pages(func(c mcp.Cursor) ([]mcp.Prompt, mcp.Cursor, error) {
		r, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: c})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// GetPrompt renders a prompt.
func (s *Session) GetPrompt(ctx context.Context, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	p := *params
	return rounds[mcp.GetPromptResult](ctx, s, mcp.MethodGetPrompt, func() ([]byte, error) { return json.Marshal(&p) }, &p.Meta, func(r mcp.InputResponses, st string) {
		p.InputResponses, p.RequestState = r, st
	})
}

// Complete asks for completions of a prompt argument or template variable.
func (s *Session) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	p := *params
	return call[mcp.CompleteResult](ctx, s, mcp.MethodComplete, &p, &p.Meta)
}

// SetLogLevel asks the server for log messages at level and above
// (legacy era; in the modern era the level is set per request: see
// WithLogLevel).
func (s *Session) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	if s.modern {
		return errors.New("mcp client: logging/setLevel is not part of the modern era")
	}
	p := &mcp.SetLevelParams{Level: level}
	if _, err := call[mcp.EmptyResult](ctx, s, mcp.MethodSetLevel, p, &p.Meta); err != nil {
		return err
	}
	s.legacy.remember(func(st *legacyState) { st.logLevel = level })
	return nil
}

// NotifyRootsChanged tells the server that the client's roots changed
// (legacy era).
func (s *Session) NotifyRootsChanged(ctx context.Context) error {
	if s.modern {
		return nil
	}
	return s.conn.Notify(ctx, mcp.NotificationRootsListChanged, &mcp.NotificationParams{})
}

// derefOr returns *p, or the zero value when p is nil.
func derefOr[P any](p *P) P {
	if p == nil {
		var zero P
		return zero
	}
	return *p
}

// maxPages bounds the pages an iterator fetches, against servers whose
// cursors never end.
const maxPages = 10000

// pages iterates over paginated items. An error of fetch ends the
// iteration, except DroppedTools (a page of tools from which some were
// dropped): the page's items come, then one *DroppedToolError for each
// dropped tool, and the iteration goes on if the loop does.
func pages[T any](fetch func(mcp.Cursor) ([]T, mcp.Cursor, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		var cursor mcp.Cursor
		seen := map[mcp.Cursor]bool{}
		for range maxPages {
			items, next, err := fetch(cursor)
			var dropped DroppedTools
			if err != nil && !errors.As(err, &dropped) {
				yield(nil, err)
				return
			}
			for i := range items {
				if !yield(&items[i], nil) {
					return
				}
			}
			for _, d := range dropped {
				if !yield(nil, d) {
					return
				}
			}
			if next == "" {
				return
			}
			if seen[next] {
				yield(nil, fmt.Errorf("mcp client: the server returned the cursor %q twice", next))
				return
			}
			seen[next] = true
			cursor = next
		}
		yield(nil, fmt.Errorf("mcp client: more than %d pages", maxPages))
	}
}
