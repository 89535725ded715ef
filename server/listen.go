package server

import (
	"context"
	"encoding/json"
	"maps"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A listener is an open subscriptions/listen request (modern era): the
// notifications its filter selects go on its response stream, each tagged
// with its id, through its outbox (notify.go).
type listener struct {
	id     jsonrpc.ID
	filter mcp.SubscriptionFilter
	out    outbound
	ctx    context.Context
	idJSON json.RawMessage // the id, encoded once for every notification
	failed chan struct{}   // closed when its deliveries keep failing

	mu    sync.Mutex
	notes outbox
}

// A listener is a target of notifications.

func (l *listener) outbox() (*sync.Mutex, *outbox) { return &l.mu, &l.notes }

func (l *listener) base() context.Context { return l.ctx }

func (l *listener) deliver(ctx context.Context, n note) error {
	switch {
	case n.params != nil:
		sn := n.params.(*splitNote)
		return l.send(ctx, n.method, sn.obj, sn.meta)
	case n.uri != "":
		uri, err := json.Marshal(n.uri)
		if err != nil {
			return err
		}
		return l.send(ctx, n.method, map[string]json.RawMessage{"uri": uri}, nil)
	}
	return l.send(ctx, n.method, nil, nil)
}

func (l *listener) abandon() { close(l.failed) }

// splitNote is a notification's params encoded once for every listener
// (splitParams).
type splitNote struct {
	obj, meta map[string]json.RawMessage
}

// send delivers one notification to the listener: params split by
// splitParams, plus the subscription id in its _meta.
func (l *listener) send(ctx context.Context, method string, params, meta map[string]json.RawMessage) error {
	m := make(map[string]json.RawMessage, len(meta)+1)
	maps.Copy(m, meta)
	m[mcp.MetaKeySubscriptionID] = l.idJSON
	obj := make(map[string]json.RawMessage, len(params)+1)
	maps.Copy(obj, params)
	var err error
	if obj["_meta"], err = json.Marshal(m); err != nil {
		return err
	}
	return l.out.Notify(ctx, method, obj)
}

// splitParams encodes a notification's params once for every listener:
// their members, and the members of their _meta.
func splitParams(params any) (obj, meta map[string]json.RawMessage, err error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, nil, err
	}
	if m, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, nil, err
		}
	}
	return obj, meta, nil
}

// listen serves subscriptions/listen: it acknowledges the part of the
// filter the server honours, then delivers notifications until the client
// goes away or the server closes, which ends the listen with a result.
func (s *Server) listen(ctx context.Context, r *Request, p *mcp.SubscriptionsListenParams) (any, error) {
	want := p.Notifications
	if len(want.ResourceSubscriptions) > s.opts.MaxSubscriptions {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
			"Invalid params: a listen may name at most %d resources, not %d", s.opts.MaxSubscriptions, len(want.ResourceSubscriptions))
	}
	caps := s.Capabilities()
	var got mcp.SubscriptionFilter
	got.ToolsListChanged = want.ToolsListChanged && caps.Tools != nil
	got.PromptsListChanged = want.PromptsListChanged && caps.Prompts != nil
	got.ResourcesListChanged = want.ResourcesListChanged && caps.Resources != nil
	if caps.Resources != nil {
		got.ResourceSubscriptions = want.ResourceSubscriptions
	}
	taskIDs, err := s.listenTaskIDs(ctx, r, want.TaskIDs) // tasks: (tasks_methods.go)
	if err != nil {
		return nil, err
	}
	got.TaskIDs = taskIDs
	idJSON, _ := json.Marshal(r.ID)
	l := &listener{id: r.ID, filter: got, out: r.out, ctx: ctx, idJSON: idJSON, failed: make(chan struct{})}
	meta := mcp.Meta{mcp.MetaKeySubscriptionID: json.RawMessage(idJSON)}
	s.mu.Lock()
	if len(s.listeners) >= s.opts.MaxListeners {
		s.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeOverloaded, "Too many open subscriptions: the server allows %d at once", s.opts.MaxListeners)
	}
	if s.listeners == nil {
		s.listeners = make(map[*listener]struct{})
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	if so, ok := r.out.(*statelessOut); ok && !so.listening {
		// An open listen no longer counts as a stateless request in
		// progress: MaxListeners bounds it. Shutdown still waits for it.
		so.listening = true
		s.listening.Add()
		s.stateless.Done()
	}
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		l.mu.Lock()
		l.notes.close()
		l.mu.Unlock()
	}()
	ack := &mcp.SubscriptionsAcknowledgedParams{Notifications: got, Meta: meta}
	if err := r.out.Notify(ctx, mcp.NotificationSubscriptionsAcknowledged, ack); err != nil {
		return nil, err
	}
	var closing <-chan struct{} // the connection ends: end the listen gracefully
	if c := jsonrpc.ConnFromContext(ctx); c != nil {
		closing = c.Closing()
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.failed:
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the notifications of this subscription could not be delivered")
	case <-s.closing:
	case <-closing:
	}
	res := &mcp.EmptyResult{ResultType: mcp.ResultTypeComplete, Meta: maps.Clone(s.modernMeta)}
	res.Meta[mcp.MetaKeySubscriptionID] = json.RawMessage(idJSON)
	return res, nil
}
