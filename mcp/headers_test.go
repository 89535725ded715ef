package mcp

import "testing"

func TestHeaderValueEncoding(t *testing.T) {
	// The examples of the 2026-07-28 Streamable HTTP specification.
	tests := []struct{ value, header string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"file:///projects/myapp/config.json", "file:///projects/myapp/config.json"},
		{"a\tb", "=?base64?YQli?="},
		{"", ""},
	}
	for _, tt := range tests {
		if got := EncodeHeaderValue(tt.value); got != tt.header {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", tt.value, got, tt.header)
		}
		if got, err := DecodeHeaderValue(tt.header); err != nil || got != tt.value {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q", tt.header, got, err, tt.value)
		}
	}
	for _, bad := range []string{"=?base64?!!!?=", "=?base64?/w==?=", "caf\xc3\xa9", "a\nb"} {
		if _, err := DecodeHeaderValue(bad); err == nil {
			t.Errorf("DecodeHeaderValue(%q) accepted", bad)
		}
	}
	for method, want := range map[string]string{
		MethodCallTool: "name", MethodGetPrompt: "name", MethodReadResource: "uri",
		MethodGetTask: "taskId", MethodUpdateTask: "taskId", MethodCancelTask: "taskId",
		MethodListTools: "", MethodDiscover: "",
	} {
		if got := NameHeaderParam(method); got != want {
			t.Errorf("NameHeaderParam(%s) = %q, want %q", method, got, want)
		}
	}
}
