package mcp

import (
	"encoding/json"
	"fmt"
)

// Multi round-trip requests (MRTR) follow schema/2026-07-28 (SEP-2322). A
// modern server never sends requests: when tools/call, prompts/get or
// resources/read needs something from the client it returns an
// InputRequiredResult; the client fulfils the input requests and retries
// the original request, with a new JSON-RPC id, the same params plus
// InputResponses, and RequestState echoed byte for byte.

// InputRequest is a request the server needs the client to fulfil: a
// method (elicitation/create, sampling/createMessage or roots/list, see
// IsInputRequestMethod) and its params, without jsonrpc or id. Params are
// kept verbatim; decode them into ElicitParams, CreateMessageParams or
// nothing (roots/list).
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// NewInputRequest returns an input request for method with params
// marshaled (nil for none).
func NewInputRequest(method string, params any) (InputRequest, error) {
	r := InputRequest{Method: method}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return InputRequest{}, fmt.Errorf("mcp: input request %s: %w", method, err)
		}
		r.Params = b
	}
	return r, nil
}

// InputRequests maps server-chosen keys to input requests.
type InputRequests map[string]InputRequest

// InputResponses maps the keys of InputRequests to the client's answers:
// the bare result (ElicitResult, CreateMessageResult or ListRootsResult),
// verbatim.
type InputResponses map[string]json.RawMessage

// Set marshals result and stores it under key.
func (r InputResponses) Set(key string, result any) error {
	b, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("mcp: input response %q: %w", key, err)
	}
	r[key] = b
	return nil
}

// Decode decodes the response under key into v and reports whether there
// was one. A server that lacks a response it needs asks again with a new
// InputRequiredResult rather than failing.
func (r InputResponses) Decode(key string, v any) (bool, error) {
	b, ok := r[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("mcp: input response %q: %w", key, err)
	}
	return true, nil
}

// InputRequiredResult is the result of a modern tools/call, prompts/get or
// resources/read that needs input before it can complete. At least one of
// InputRequests and RequestState is set. It always marshals with
// "resultType":"input_required".
type InputRequiredResult struct {
	InputRequests InputRequests `json:"inputRequests,omitempty"`
	// RequestState is opaque to the client, which echoes it on the retry.
	// Servers treat it as attacker input: protect it (HMAC or AEAD) and
	// bind it to principal, request and expiry.
	RequestState string `json:"requestState,omitempty"`
	Meta         Meta   `json:"_meta,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (r InputRequiredResult) MarshalJSON() ([]byte, error) {
	type plain InputRequiredResult
	return json.Marshal(struct {
		ResultType ResultType `json:"resultType"`
		plain
	}{ResultTypeInputRequired, plain(r)})
}
