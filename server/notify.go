package server

import (
	"context"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// listChanged announces that a list changed: to every initialized legacy
// session, and to the modern listeners that asked for it.
func (s *Server) listChanged(method string) {
	s.notifyAll(method, &mcp.NotificationParams{}, nil)
	s.notifyListeners(method, &mcp.NotificationParams{}, func(f *mcp.SubscriptionFilter) bool {
		switch method {
		case mcp.NotificationToolListChanged:
			return f.ToolsListChanged
		case mcp.NotificationPromptListChanged:
			return f.PromptsListChanged
		case mcp.NotificationResourceListChanged:
			return f.ResourcesListChanged
		}
		return false
	})
}

// notifyListeners sends a notification to every open subscriptions/listen
// stream whose filter wants it, tagged with the listen's id.
func (s *Server) notifyListeners(method string, params any, want func(*mcp.SubscriptionFilter) bool) {
	s.mu.RLock()
	var targets []*listener
	for l := range s.listeners {
		if want(&l.filter) {
			targets = append(targets, l)
		}
	}
	s.mu.RUnlock()
	if len(targets) == 0 {
		return
	}
	obj, meta, err := splitParams(params)
	if err != nil {
		s.log.Error("mcp server: notification params cannot be encoded", "method", method, "error", err)
		return
	}
	for _, l := range targets {
		ctx, cancel := context.WithTimeout(l.ctx, 5*time.Second)
		if err := l.send(ctx, method, obj, meta); err != nil {
			s.log.Debug("mcp server: notification not delivered to a listener", "method", method, "error", err)
		}
		cancel()
	}
}
