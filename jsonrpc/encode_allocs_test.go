//go:build !race

package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEncodeAllocatesOnce (not under the race detector, which allocates
// more): encoding a request or a response into a nil
// buffer grew it append by append, three or four allocations for a
// tools/call of a few hundred bytes (484 bytes in all for 366 of frame);
// the encoders now size the buffer once.
func TestEncodeAllocatesOnce(t *testing.T) {
	params := json.RawMessage(`{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 300) + `"},"_meta":{"progressToken":7}}`)
	for name, m := range map[string]Message{
		"request":  &Request{ID: Int64ID(12), Method: "tools/call", Params: params},
		"response": &Response{ID: Int64ID(12), Result: params},
		"error":    &Response{ID: Int64ID(12), Error: &Error{Code: CodeInvalidParams, Message: strings.Repeat("m", 200), Data: params}},
	} {
		if n := testing.AllocsPerRun(100, func() {
			if _, err := Encode(m); err != nil {
				t.Fatal(err)
			}
		}); n != 1 {
			t.Errorf("%s: Encode made %.0f allocations, want 1", name, n)
		}
	}
}
