package mcp

// Subscriptions follow schema/2026-07-28 (SEP-2575). subscriptions/listen
// replaces the HTTP GET stream and resources/subscribe: the client names
// the notifications it wants, the server acknowledges the subset it will
// send, then delivers them, each tagged with
// _meta[MetaKeySubscriptionID] = the id of the listen request. The listen
// ends with an EmptyResult carrying the same _meta entry, or with
// notifications/cancelled.

// SubscriptionFilter selects notifications. It is opt-in: a server sends
// nothing that was not asked for.
type SubscriptionFilter struct {
	ToolsListChanged     bool `json:"toolsListChanged,omitempty"`
	PromptsListChanged   bool `json:"promptsListChanged,omitempty"`
	ResourcesListChanged bool `json:"resourcesListChanged,omitempty"`
	// ResourceSubscriptions lists resource URIs to watch for
	// notifications/resources/updated.
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs lists tasks to watch for notifications/tasks (tasks
	// extension).
	TaskIDs []string `json:"taskIds,omitempty"`
}

// SubscriptionsListenParams are the params of subscriptions/listen.
type SubscriptionsListenParams struct {
	Notifications SubscriptionFilter `json:"notifications"`
	Meta          RequestMeta        `json:"_meta,omitzero"`
}

// SubscriptionsAcknowledgedParams are the params of
// notifications/subscriptions/acknowledged, the first message of a listen:
// the part of the filter the server honours.
type SubscriptionsAcknowledgedParams struct {
	Notifications SubscriptionFilter `json:"notifications"`
	Meta          Meta               `json:"_meta,omitempty"`
}
