package sse_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// TestClientRefusalKeepsHTTPCause: a POST refused with a JSON-RPC error
// body fails with that error, unchanged, whose cause is the HTTP status
// error; a network failure keeps its *url.Error.
func TestClientRefusalKeepsHTTPCause(t *testing.T) {
	s := clNewOld(t, nil)
	c := clConnect(t, s.ts.URL+"/sse", nil)
	err := clWrite(t, c, `{"jsonrpc":"2.0","id":1,"method":"refuse"}`)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || e.Message != "Invalid params: refused" {
		t.Fatalf("refused: %v", err)
	}
	cause := errors.Unwrap(err)
	if cause == nil || !strings.Contains(cause.Error(), "HTTP 400 Bad Request") {
		t.Errorf("cause %v, want the HTTP 400", cause)
	}
	var se *transport.HTTPStatusError
	if !errors.As(err, &se) || se.StatusCode != 400 || se.Method != "POST" || len(se.Body) == 0 {
		t.Errorf("errors.As(*transport.HTTPStatusError) = %+v for %v", se, err)
	}
	b, _ := jsonrpc.Encode(&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Error: e})
	if strings.Contains(string(b), "HTTP 400") {
		t.Errorf("the cause went on the wire: %s", b)
	}

	s.ts.CloseClientConnections()
	s.ts.Close()
	err = clWrite(t, c, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("errors.As(*url.Error) failed for %v", err)
	}
}
