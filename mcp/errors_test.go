package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

func TestErrorConstructors(t *testing.T) {
	tests := []struct {
		err  *jsonrpc.Error
		code jsonrpc.Code
		msg  string
		data string
	}{
		{ResourceNotFoundError("file:///nonexistent.txt"), -32002, "Resource not found", `{"uri":"file:///nonexistent.txt"}`},
		{UnsupportedVersionError("1900-01-01", []Version{Version20260728, Version20251125}), -32022,
			"Unsupported protocol version", `{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}`},
		{UnsupportedVersionError("v999.0.0", nil), -32022, "Unsupported protocol version",
			`{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"v999.0.0"}`},
		{MissingCapabilityError(ClientCapabilities{Elicitation: &ElicitationCapability{}}), -32021,
			"Missing required client capability", `{"requiredCapabilities":{"elicitation":{}}}`},
		{MissingCapabilityError(ClientCapabilities{Extensions: map[string]json.RawMessage{ExtensionTasks: json.RawMessage(`{}`)}}), -32021,
			"Missing required client capability", `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`},
		{HeaderMismatchError("Mcp-Name header value 'foo' does not match body value 'bar'"), -32020,
			"Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'", ``},
		{HeaderMismatchError(""), -32020, "Header mismatch", ``},
		{URLElicitationRequiredError(ElicitParams{Mode: ElicitModeURL, Message: "m", URL: "https://x", ElicitationID: "e1"}), -32042,
			"URL elicitation required", `{"elicitations":[{"mode":"url","message":"m","url":"https://x","elicitationId":"e1"}]}`},
		{URLElicitationRequiredError(), -32042, "URL elicitation required", `{"elicitations":[]}`},
		{UserRejectedError(""), -1, "User rejected sampling request", ``},
	}
	for _, tt := range tests {
		if tt.err.Code != tt.code || tt.err.Message != tt.msg || string(tt.err.Data) != tt.data {
			t.Errorf("got {%d %q %s}, want {%d %q %s}", tt.err.Code, tt.err.Message, tt.err.Data, tt.code, tt.msg, tt.data)
		}
	}
}

func TestAdaptError(t *testing.T) {
	nf := ResourceNotFoundError("file:///x")
	modern := AdaptError(Version20260728, nf)
	if modern.Code != jsonrpc.CodeInvalidParams || string(modern.Data) != `{"uri":"file:///x"}` {
		t.Errorf("modern = %+v", modern)
	}
	if nf.Code != CodeResourceNotFound {
		t.Error("AdaptError modified its argument")
	}
	if AdaptError(Version20251125, nf) != nf {
		t.Error("legacy error changed")
	}
	other := jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad")
	if AdaptError(Version20260728, other) != other || AdaptError(Version20260728, nil) != nil {
		t.Error("unrelated error changed")
	}
	for _, err := range []error{nf, modern, fmt.Errorf("read: %w", modern)} {
		if !IsResourceNotFound(err) {
			t.Errorf("IsResourceNotFound(%v) = false", err)
		}
	}
	for _, err := range []error{other, errors.New("x"), nil} {
		if IsResourceNotFound(err) {
			t.Errorf("IsResourceNotFound(%v) = true", err)
		}
	}
}

func TestDecodeErrorData(t *testing.T) {
	err := fmt.Errorf("call: %w", UnsupportedVersionError("v9", []Version{Version20260728}))
	var d UnsupportedVersionData
	if !DecodeErrorData(err, CodeUnsupportedProtocolVersion, &d) || d.Requested != "v9" || len(d.Supported) != 1 {
		t.Errorf("data = %+v", d)
	}
	if DecodeErrorData(err, CodeHeaderMismatch, &d) {
		t.Error("wrong code matched")
	}
	if DecodeErrorData(HeaderMismatchError("x"), CodeHeaderMismatch, &d) {
		t.Error("error without data decoded")
	}
	var m MissingCapabilityData
	if !DecodeErrorData(MissingCapabilityError(ClientCapabilities{Sampling: &SamplingCapability{Tools: &Supported{}}}), CodeMissingRequiredClientCapability, &m) ||
		!m.RequiredCapabilities.SamplingTools() {
		t.Errorf("missing capability data = %+v", m)
	}
}
