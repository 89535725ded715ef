package redis_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestLegacyCallRoundTrips: a 2025-era call on a shared session costs
// three round trips to Redis: the session read (renewed at most every
// SessionIdleTimeout/8), the stream's priming event, and its answer with
// the stream's end. It cost four (the answer and the end apart), the
// session's renewal on every request making it six commands rather than
// two.
func TestLegacyCallRoundTrips(t *testing.T) {
	st := open(t, nil)
	var trips atomic.Int64
	st.CountRoundTrips(&trips)
	srv := server.New(mcp.Implementation{Name: "trips", Version: "1"}, &server.Options{Store: st})
	server.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *server.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	h := streamable.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	defer func() {
		srv.Close()
		h.Close()
		ts.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cl := client.New(mcp.Implementation{Name: "trips", Version: "1"}, &client.Options{Version: mcp.Version20251125})
	s, err := cl.Connect(ctx, streamable.NewTransport(ts.URL, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: tr}, DisableStandaloneStream: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"hi"}`)}
	if _, err := s.CallTool(ctx, params); err != nil { // the instance joins the store
		t.Fatal(err)
	}
	const calls = 20
	trips.Store(0)
	start := time.Now()
	for range calls {
		res, err := s.CallTool(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("the call failed: %+v", res)
		}
	}
	// The handler also beats once a second (HandlerOptions.InstanceTTL/5).
	beats := int64(time.Since(start)/(streamable.DefaultInstanceTTL/5)) + 1
	if n := trips.Load(); n > 3*calls+beats {
		t.Errorf("%d calls made %d round trips to Redis, want at most 3 a call (and %d beats)", calls, n, beats)
	}
}
