package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// handshake agrees on the protocol revision: the modern probe first
// (unless a legacy revision was asked for), then initialize.
//
// known is the revision the server spoke last time, if the client knows
// it: a legacy server is not probed again.
func (s *Session) handshake(ctx context.Context, known mcp.Version) error {
	want := s.client.opts.Version
	if want != "" && !mcp.IsSupported(want) {
		return fmt.Errorf("mcp client: unsupported protocol version %q", want)
	}
	if want == "" && known != "" && mcp.IsSupported(known) && !mcp.IsModern(known) {
		return s.initialize(ctx, mcp.LatestLegacy)
	}
	if want == "" || mcp.IsModern(want) {
		v := want
		if v == "" {
			v = mcp.Latest
		}
		// With a revision asked for there is nothing to fall back to, so
		// the probe has the whole of ctx, not ProbeTimeout: a server slow
		// to answer (a loaded machine) is not one that does not speak it.
		ok, failed, err := s.probe(ctx, v, true, want == "")
		if ok || err != nil {
			return err
		}
		if want != "" {
			return fmt.Errorf("mcp client: the server does not speak %s", want)
		}
		err = s.initialize(ctx, mcp.LatestLegacy)
		var fe *jsonrpc.FrameError
		var je *jsonrpc.Error
		if err != nil && !errors.As(err, &je) && !errors.As(err, &fe) && errors.As(failed, &fe) {
			// The server did not answer initialize (it went away, or
			// quiet) after answering the probe with a frame that was not
			// a valid message: that frame is the news.
			return fmt.Errorf("%w; before that, %w", err, fe)
		}
		return err
	}
	return s.initialize(ctx, want)
}

// probe asks server/discover in revision v. It reports whether the server
// speaks a modern revision (the session is then set up), and why not
// (failed: the probe's error, if it had one); err is set only when ctx
// ended. bounded limits the wait to ProbeTimeout, for a client that falls
// back to the legacy handshake.
func (s *Session) probe(ctx context.Context, v mcp.Version, retry, bounded bool) (ok bool, failed, err error) {
	if err := s.speakModern(v); err != nil {
		return false, nil, err
	}
	pctx, cancel := ctx, context.CancelFunc(func() {})
	if bounded {
		pctx, cancel = context.WithTimeout(ctx, s.client.opts.ProbeTimeout)
	}
	res, err := s.Discover(pctx)
	cancel()
	s.modern, s.version, s.env = false, "", nil
	if ctx.Err() != nil {
		if errors.Is(err, ctx.Err()) {
			return false, nil, err // as the call saw it: a *jsonrpc.FrameError names an invalid frame
		}
		return false, nil, ctx.Err()
	}
	if err != nil {
		var e *jsonrpc.Error
		if retry && errors.As(err, &e) && e.Code == mcp.CodeUnsupportedProtocolVersion {
			var data struct {
				Supported []mcp.Version `json:"supported"`
			}
			if json.Unmarshal(e.Data, &data) == nil {
				// Retry once, even with the same version: a server may
				// refuse a first request whatever it names.
				if alt := pickModern(data.Supported); alt != "" {
					return s.probe(ctx, alt, false, bounded)
				}
			}
		}
		s.client.log.Debug("mcp client: modern probe failed, using the legacy handshake", "error", err)
		return false, err, nil
	}
	if !slices.Contains(res.SupportedVersions, v) {
		alt := pickModern(res.SupportedVersions)
		if alt == "" {
			return false, nil, nil
		}
		v = alt
	}
	if err := s.speakModern(v); err != nil {
		return false, nil, err
	}
	s.serverCaps = res.Capabilities
	s.instructions = res.Instructions
	return true, nil, nil
}

// speakModern sets the session up for the modern revision v: every
// request carries the envelope, encoded here once.
func (s *Session) speakModern(v mcp.Version) error {
	if s.env == nil || s.env.Version() != v {
		caps := s.client.modernCaps()
		env, err := mcp.NewEnvelope(v, &caps, &s.client.info)
		if err != nil {
			return fmt.Errorf("mcp client: encoding the request envelope: %w", err)
		}
		s.env = env
	}
	s.modern, s.version = true, v
	return nil
}

// decodeModern decodes a modern result, whose envelope env holds, into
// v with the server's info taken out of its _meta: the session keeps it
// (ServerInfo), and updates it when a result describes the server
// differently.
func (s *Session) decodeModern(raw json.RawMessage, env *mcp.ResultEnvelope, v any) error {
	if err := env.Decode(raw, v); err != nil {
		return err
	}
	s.noteServerInfo(env.ServerInfo)
	return nil
}

// noteServerInfo records the server's info as a modern result gave it
// (raw JSON, nil when the result had none); the same bytes as last time
// cost a comparison.
func (s *Session) noteServerInfo(raw json.RawMessage) {
	if raw == nil {
		return
	}
	s.infoMu.RLock()
	same := bytes.Equal(raw, s.serverInfoRaw)
	s.infoMu.RUnlock()
	if same {
		return
	}
	var info mcp.Implementation
	if err := json.Unmarshal(raw, &info); err != nil {
		s.client.log.Debug("mcp client: invalid serverInfo in a result", "error", err)
		return
	}
	s.infoMu.Lock()
	s.serverInfo, s.serverInfoRaw = info, bytes.Clone(raw)
	s.infoMu.Unlock()
}

// pickModern returns the first modern revision of vs this package knows.
func pickModern(vs []mcp.Version) mcp.Version {
	for _, v := range vs {
		if mcp.IsModern(v) && mcp.IsSupported(v) {
			return v
		}
	}
	return ""
}

// initialize runs the legacy handshake, offering revision v.
func (s *Session) initialize(ctx context.Context, v mcp.Version) error {
	res, err := s.handshakeLegacy(ctx, v)
	if err != nil {
		return err
	}
	s.version = res.ProtocolVersion
	s.serverInfo = res.ServerInfo
	s.serverCaps = res.Capabilities
	s.instructions = res.Instructions
	return nil
}

// handshakeLegacy sends initialize and notifications/initialized.
func (s *Session) handshakeLegacy(ctx context.Context, v mcp.Version) (*mcp.InitializeResult, error) {
	p := &mcp.InitializeParams{ProtocolVersion: v, Capabilities: s.client.caps, ClientInfo: s.client.info}
	var res mcp.InitializeResult
	if err := s.conn.Call(ctx, mcp.MethodInitialize, p, &res); err != nil {
		return nil, fmt.Errorf("mcp client: initialize: %w", err)
	}
	if !mcp.IsSupported(res.ProtocolVersion) || mcp.IsModern(res.ProtocolVersion) {
		return nil, fmt.Errorf("mcp client: the server chose protocol version %q, which this client does not speak in a legacy session", res.ProtocolVersion)
	}
	if err := s.conn.Notify(ctx, mcp.NotificationInitialized, &mcp.NotificationParams{}); err != nil {
		return nil, fmt.Errorf("mcp client: notifications/initialized: %w", err)
	}
	return &res, nil
}

// rounds sends a request that may need input (modern era): while the
// server answers input_required, it fulfils the input requests with the
// client's handlers and retries with the answers and the request state,
// a new id each time.
//
// The params, whose _meta is meta, are encoded by encode (and again after
// retry changed them). A function rather than a value, so that params the
// caller copied to stamp them can stay on its stack when encode does not
// go through an interface (CallTool).
func rounds[R any](ctx context.Context, s *Session, method string, encode func() ([]byte, error), meta *mcp.RequestMeta, retry func(mcp.InputResponses, string)) (*R, error) {
	done := s.stamp(ctx, meta)
	defer done()
	for n := 0; ; n++ {
		params, err := encode()
		if err != nil {
			return nil, fmt.Errorf("mcp client: encoding the params of %s: %w", method, err)
		}
		raw, err := retryExpired(ctx, s, func() (json.RawMessage, error) { return s.conn.CallRaw(ctx, method, json.RawMessage(params)) })
		if err != nil {
			return nil, err
		}
		env, err := mcp.ReadResultEnvelope(raw)
		if err != nil {
			return nil, fmt.Errorf("mcp client: decoding the result of %s: %w", method, err)
		}
		if env.Type == mcp.ResultTypeTask { // tasks: follow the task to its end (tasks.go)
			return awaitTask[R](ctx, s, method, raw)
		}
		if env.Type != mcp.ResultTypeInputRequired {
			r := new(R)
			if err := s.decodeModern(raw, &env, r); err != nil {
				return nil, fmt.Errorf("mcp client: decoding the result of %s: %w", method, err)
			}
			return r, nil
		}
		if n+1 >= s.client.opts.MaxRounds {
			return nil, fmt.Errorf("mcp client: %s still needs input after %d rounds", method, n+1)
		}
		var ir mcp.InputRequiredResult
		if err := json.Unmarshal(raw, &ir); err != nil {
			return nil, fmt.Errorf("mcp client: decoding the input request of %s: %w", method, err)
		}
		answers := make(mcp.InputResponses, len(ir.InputRequests))
		for key, req := range ir.InputRequests {
			res, err := s.client.answer(ctx, req)
			if err != nil {
				return nil, err
			}
			if err := answers.Set(key, res); err != nil {
				return nil, err
			}
		}
		retry(answers, ir.RequestState)
	}
}
