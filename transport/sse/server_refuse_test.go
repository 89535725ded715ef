package sse_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// A server that is shut down ends the open streams (their sessions end),
// and the handler refuses new ones with 503 and a JSON-RPC error whose
// code is not 0.
func TestHandlerRefusesForAClosedServer(t *testing.T) {
	e := svStart(t, nil, nil)
	resp, r, _ := e.open()
	defer resp.Body.Close()
	if err := e.srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if ev, err := r.Next(); err == nil {
		t.Errorf("the stream goes on after Shutdown: %+v", ev)
	}
	resp = e.do("GET", e.ts.URL+"/sse", http.Header{"Accept": {"text/event-stream"}}, "")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var body struct {
		Error struct{ Code int } `json:"error"`
	}
	json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusServiceUnavailable || body.Error.Code != -32000 {
		t.Errorf("GET on a closed server: %d %s, want 503 and code -32000", resp.StatusCode, b)
	}
}
