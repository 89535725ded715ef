package sse

// This file is the client side of the legacy HTTP+SSE transport of MCP
// (revision 2024-11-05), at the level of bytes: the GET stream, its
// endpoint event, the message events, and the POSTs to the endpoint. It
// knows nothing of JSON-RPC, so that both client packages built on it
// (transport/sse, and the fallback of transport/streamable) decode and
// bound the messages in their own terms.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/transport"
)

// LegacyOptions configure DialLegacy. Every field must be set except
// Header.
type LegacyOptions struct {
	// Client sends the GET and the POSTs. Its Timeout must be zero: the
	// GET stream lasts as long as the session.
	Client *http.Client
	// Header is added to every request (authorization, for instance).
	Header http.Header
	// MaxEventSize bounds one event of the stream, all its lines.
	MaxEventSize int
	// Timeout bounds the wait for the endpoint event, and each POST.
	Timeout time.Duration
	// Queue is the number of messages read ahead of Next; the stream is
	// not read further while they wait.
	Queue int
}

// A LegacyClient is one session of the legacy HTTP+SSE transport: a GET
// stream of server-sent events, whose first event, "endpoint", names the
// URL where the client POSTs its messages. Each "message" event carries
// one message of the server.
//
// A LegacyClient owns one goroutine, which reads the stream; Close ends
// it. Next, Post and Close may be called concurrently.
type LegacyClient struct {
	opts     LegacyOptions
	endpoint string
	ctx      context.Context // the life of the stream; cancelled by Close
	cancel   context.CancelFunc
	frames   chan []byte
	ended    chan struct{} // closed when the reader has stopped; err is set
	err      error
	once     sync.Once
	wg       sync.WaitGroup
}

// DialLegacy opens the event stream at rawURL and waits for its endpoint
// event, within ctx and opts.Timeout; ctx bounds only this setup, not the
// stream. The endpoint must be on the same origin (scheme, host and port)
// as rawURL, so that a server cannot send the client's messages
// elsewhere.
func DialLegacy(ctx context.Context, rawURL string, opts LegacyOptions) (*LegacyClient, error) {
	base, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("sse: invalid URL %q: %w", rawURL, err)
	}
	sctx, cancel := context.WithCancelCause(context.Background())
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, rawURL, nil)
	if err != nil {
		cancel(nil)
		return nil, fmt.Errorf("sse: %w", err)
	}
	copyLegacyHeader(req.Header, opts.Header)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")

	errTimeout := fmt.Errorf("sse: no endpoint event from %s within %v", rawURL, opts.Timeout)
	timer := time.AfterFunc(opts.Timeout, func() { cancel(errTimeout) })
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	fail := func(err error) (*LegacyClient, error) {
		timer.Stop()
		stop()
		cancel(nil)
		return nil, err
	}
	resp, err := opts.Client.Do(req)
	if err != nil {
		if c := context.Cause(sctx); c != nil {
			err = c
		}
		return fail(fmt.Errorf("sse: GET %s: %w", rawURL, err))
	}
	if resp.StatusCode != http.StatusOK || !IsEventStream(resp.Header.Get("Content-Type")) {
		se := NewStatusError(resp)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return fail(fmt.Errorf("sse: GET %s: the answer is %q, not an event stream", rawURL, resp.Header.Get("Content-Type")))
		}
		return fail(fmt.Errorf("sse: %w", se))
	}
	r := NewReader(resp.Body, opts.MaxEventSize)
	var endpoint string
	for endpoint == "" {
		ev, err := r.Next()
		if err != nil {
			resp.Body.Close()
			if c := context.Cause(sctx); c != nil {
				err = c
			} else if err == io.EOF {
				err = errors.New("the stream ended")
			}
			return fail(fmt.Errorf("sse: waiting for the endpoint event of %s: %w", rawURL, err))
		}
		if ev.Name != "endpoint" {
			continue // nothing may come before it; ignore what does
		}
		endpoint, err = resolveEndpoint(base, string(ev.Data))
		if err != nil {
			resp.Body.Close()
			return fail(err)
		}
	}
	timer.Stop()
	if !stop() || sctx.Err() != nil {
		resp.Body.Close()
		cancel(nil)
		return nil, fmt.Errorf("sse: connecting to %s: %w", rawURL, context.Cause(sctx))
	}
	c := &LegacyClient{
		opts:     opts,
		endpoint: endpoint,
		ctx:      sctx,
		cancel:   func() { cancel(nil) },
		frames:   make(chan []byte, max(opts.Queue-1, 0)),
		ended:    make(chan struct{}),
	}
	c.wg.Add(1)
	go c.read(r, resp.Body)
	return c, nil
}

// resolveEndpoint resolves the data of the endpoint event against the
// stream's URL and checks that it stays on the same origin.
func resolveEndpoint(base *url.URL, data string) (string, error) {
	data = strings.TrimSpace(data)
	ref, err := url.Parse(data)
	if err != nil || data == "" {
		return "", fmt.Errorf("sse: the endpoint event %q is not a URL", data)
	}
	u := base.ResolveReference(ref)
	if !strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host) {
		return "", fmt.Errorf("sse: the endpoint %q is not on the origin of %s", data, base.Redacted())
	}
	return u.String(), nil
}

// Endpoint returns the URL the client POSTs its messages to.
func (c *LegacyClient) Endpoint() string { return c.endpoint }

// read delivers the message events of the stream to Next.
func (c *LegacyClient) read(r *Reader, body io.ReadCloser) {
	defer c.wg.Done()
	defer close(c.ended)
	defer body.Close()
	for {
		ev, err := r.Next()
		if err != nil {
			if c.ctx.Err() != nil {
				err = io.EOF // closed by Close
			}
			c.err = err
			return
		}
		if len(ev.Data) == 0 || (ev.Name != "" && ev.Name != "message") {
			continue // priming and keepalive events, a repeated endpoint
		}
		select {
		case c.frames <- ev.Data:
		case <-c.ctx.Done():
			c.err = io.EOF
			return
		}
	}
}

// Next returns the data of the next message event. It returns io.EOF when
// the stream has ended (the server closed it, or Close was called), and
// another error when reading it failed; the messages read before are
// returned first.
func (c *LegacyClient) Next(ctx context.Context) ([]byte, error) {
	select {
	case f := <-c.frames:
		return f, nil
	default:
	}
	select {
	case f := <-c.frames:
		return f, nil
	case <-c.ended:
		select {
		case f := <-c.frames:
			return f, nil
		default:
		}
		if c.err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("sse: reading the event stream: %w", c.err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Post sends one message to the endpoint. A status other than 2xx is
// returned as a *StatusError; the body of a 2xx answer is ignored.
func (c *LegacyClient) Post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("sse: %w", err)
	}
	copyLegacyHeader(req.Header, c.opts.Header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.opts.Client.Do(req)
	if err != nil {
		if c.ctx.Err() != nil {
			return errors.New("sse: the connection is closed")
		}
		return fmt.Errorf("sse: POST %s: %w", c.endpoint, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("sse: %w", NewStatusError(resp))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, transport.MaxHTTPErrorBody))
	return nil
}

// Close ends the stream and waits for the reader. It is idempotent.
func (c *LegacyClient) Close() error {
	c.once.Do(c.cancel)
	c.wg.Wait()
	return nil
}

func copyLegacyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
}

// A StatusError is an HTTP answer with an unexpected status: the
// exported transport.HTTPStatusError, so that users can name it.
type StatusError = transport.HTTPStatusError

// NewStatusError reads the start of resp's body into a StatusError; the
// caller closes the body.
func NewStatusError(resp *http.Response) *StatusError { return transport.NewHTTPStatusError(resp) }

// ParseEndpoint parses the URL of an HTTP endpoint: http or https, with
// a host. Errors start with prefix ("sse", "streamable").
func ParseEndpoint(prefix, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid URL %q: %w", prefix, raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: invalid URL %q: want http:// or https:// and a host", prefix, raw)
	}
	return u, nil
}

// IsEventStream reports whether a Content-Type value is
// text/event-stream, with any parameters.
func IsEventStream(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/event-stream")
}
