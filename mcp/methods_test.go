package mcp

import (
	"strings"
	"testing"
)

func TestKnownMethods(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range KnownMethods() {
		if seen[m] {
			t.Errorf("%s listed twice", m)
		}
		seen[m] = true
		if _, ok := methodVersions[m]; !ok {
			t.Errorf("%s has no entry in the version table", m)
		}
	}
	for m := range methodVersions {
		if !seen[m] {
			t.Errorf("%s is in the version table but not in KnownMethods", m)
		}
	}
	// The 2025-11-25 schema has 20 requests and 11 notifications.
	var reqs, notes int
	for m := range seen {
		if HasMethod(Version20251125, m) {
			if strings.HasPrefix(m, "notifications/") {
				notes++
			} else {
				reqs++
			}
		}
	}
	if reqs != 20 || notes != 11 {
		t.Errorf("2025-11-25 has %d requests and %d notifications, want 20 and 11", reqs, notes)
	}
	KnownMethods()[0] = "mutated"
	if KnownMethods()[0] == "mutated" {
		t.Error("KnownMethods returns shared storage")
	}
}

func TestHasMethod(t *testing.T) {
	tests := []struct {
		method string
		v      Version
		want   bool
	}{
		{MethodInitialize, Version20241105, true},
		{MethodInitialize, Version20260728, false},
		{MethodPing, Version20251125, true},
		{MethodPing, Version20260728, false},
		{MethodSetLevel, Version20260728, false},
		{MethodSubscribe, Version20250618, true},
		{MethodSubscribe, Version20260728, false},
		{MethodDiscover, Version20260728, true},
		{MethodDiscover, Version20251125, false},
		{MethodSubscriptionsListen, Version20260728, true},
		{MethodCallTool, Version20241105, true},
		{MethodCallTool, Version20260728, true},
		{MethodComplete, Version20241105, true},
		{MethodElicit, Version20250326, false},
		{MethodElicit, Version20250618, true},
		{MethodElicit, Version20260728, false}, // input request only
		{MethodCreateMessage, Version20260728, false},
		{MethodGetTask, Version20251125, true},
		{MethodGetTask, Version20250618, false},
		{MethodGetTask, Version20260728, false}, // extension only
		{MethodUpdateTask, Version20260728, false},
		{NotificationElicitationComplete, Version20251125, true},
		{NotificationElicitationComplete, Version20260728, false},
		{NotificationRootsListChanged, Version20260728, false},
		{NotificationSubscriptionsAcknowledged, Version20260728, true},
		{NotificationProgress, Version20260728, true},
		{"tools/unknown", Version20251125, false},
		{MethodCallTool, "2025-12-01", false},
	}
	for _, tt := range tests {
		if got := HasMethod(tt.v, tt.method); got != tt.want {
			t.Errorf("HasMethod(%s, %s) = %v, want %v", tt.v, tt.method, got, tt.want)
		}
	}
	for _, m := range []string{MethodElicit, MethodCreateMessage, MethodListRoots} {
		if !IsInputRequestMethod(m) {
			t.Errorf("IsInputRequestMethod(%s) = false", m)
		}
	}
	if IsInputRequestMethod(MethodCallTool) {
		t.Error("tools/call is not an input request")
	}
	for _, m := range []string{MethodGetTask, MethodUpdateTask, MethodCancelTask, NotificationTasks} {
		if !IsTasksExtensionMethod(m) {
			t.Errorf("IsTasksExtensionMethod(%s) = false", m)
		}
	}
	if IsTasksExtensionMethod(MethodListTasks) || IsTasksExtensionMethod(MethodGetTaskPayload) {
		t.Error("tasks/list and tasks/result are not in the extension")
	}
}
