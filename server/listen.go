package server

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A listener is an open subscriptions/listen request (modern era): the
// notifications its filter selects go on its response stream, each tagged
// with its id.
type listener struct {
	id     jsonrpc.ID
	filter mcp.SubscriptionFilter
	out    outbound
	ctx    context.Context
	idJSON json.RawMessage // the id, encoded once for every notification
}

// maxListeners bounds the open listens of one server.
const maxListeners = 10000

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
	caps := s.Capabilities()
	want := p.Notifications
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
	l := &listener{id: r.ID, filter: got, out: r.out, ctx: ctx, idJSON: idJSON}
	meta := mcp.Meta{mcp.MetaKeySubscriptionID: json.RawMessage(idJSON)}
	s.mu.Lock()
	if len(s.listeners) >= maxListeners {
		s.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeOverloaded, "Too many open subscriptions (%d)", maxListeners)
	}
	if s.listeners == nil {
		s.listeners = make(map[*listener]struct{})
	}
	s.listeners[l] = struct{}{}
	done := s.done
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
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
	case <-done:
	case <-closing:
	}
	res := &mcp.EmptyResult{ResultType: mcp.ResultTypeComplete, Meta: maps.Clone(s.modernMeta)}
	res.Meta[mcp.MetaKeySubscriptionID] = json.RawMessage(idJSON)
	return res, nil
}
