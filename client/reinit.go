package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A legacy session over Streamable HTTP can end on the server's side (it
// expired, or the server restarted): the server then answers 404, and the
// client must initialize again (2025-11-25, "Session Management"). The
// session does that by itself: the request that met the 404 runs the
// handshake again on the same connection, restores the log level and the
// resource subscriptions it had, and is sent once more. A request the
// server answered 404 was never processed, so sending it again is safe.

// codeSessionNotFound is the code HTTP transports give a request refused
// because its session is gone (as the TypeScript SDK does).
const codeSessionNotFound jsonrpc.Code = -32001

// sessionExpired reports whether err says that the server no longer knows
// the session (HTTP 404).
func sessionExpired(err error) bool {
	if err == nil {
		return false // before errors.As, whose target would escape for every call
	}
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != codeSessionNotFound {
		return false
	}
	var d struct {
		HTTPStatus int `json:"httpStatus"`
	}
	return json.Unmarshal(e.Data, &d) == nil && d.HTTPStatus == 404
}

// legacyState is what a legacy session re-establishes after the server
// lost it.
type legacyState struct {
	mu       sync.Mutex
	gen      int                 // handshakes done; a re-handshake bumps it
	logLevel mcp.LoggingLevel    // set by SetLogLevel
	subs     map[string]struct{} // resource subscriptions
}

// retryExpired runs do; if the legacy session expired meanwhile, it
// initializes again (once for all the requests that met the expiry) and
// runs do once more.
func retryExpired[T any](ctx context.Context, s *Session, do func() (T, error)) (T, error) {
	s.legacy.mu.Lock()
	gen := s.legacy.gen
	s.legacy.mu.Unlock()
	v, err := do()
	if s.modern || !sessionExpired(err) {
		return v, err
	}
	if rerr := s.reinitialize(ctx, gen); rerr != nil {
		return v, fmt.Errorf("%w (initializing again failed: %w)", err, rerr)
	}
	return do()
}

// reinitialize runs the legacy handshake again, unless another request
// already did since generation gen, and restores the session's state.
func (s *Session) reinitialize(ctx context.Context, gen int) error {
	st := &s.legacy
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.gen != gen {
		return nil
	}
	s.client.log.Info("mcp client: the server lost the session; initializing again")
	res, err := s.handshakeLegacy(ctx, s.version)
	if err != nil {
		return err
	}
	if res.ProtocolVersion != s.version {
		return fmt.Errorf("mcp client: the server now speaks %s, not %s", res.ProtocolVersion, s.version)
	}
	s.infoMu.Lock()
	s.serverInfo, s.serverCaps, s.instructions = res.ServerInfo, res.Capabilities, res.Instructions
	s.infoMu.Unlock()
	st.gen++
	if st.logLevel != "" {
		if err := s.conn.Call(ctx, mcp.MethodSetLevel, &mcp.SetLevelParams{Level: st.logLevel}, nil); err != nil {
			return fmt.Errorf("mcp client: restoring the log level: %w", err)
		}
	}
	for uri := range st.subs {
		if err := s.conn.Call(ctx, mcp.MethodSubscribe, &mcp.SubscribeParams{URI: uri}, nil); err != nil {
			return fmt.Errorf("mcp client: restoring the subscription to %s: %w", uri, err)
		}
	}
	return nil
}

// remember records state to restore after a re-handshake.
func (st *legacyState) remember(f func(st *legacyState)) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f(st)
}
