package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
)

// Bounds of what the exporter sends and reads.
const (
	// MaxRequest bounds the body of one request, before compression;
	// a bigger batch fails with an error.
	MaxRequest = 64 << 20
	// MaxResponse bounds the body of a response the exporter reads.
	MaxResponse = 1 << 20
	// maxQuoted bounds the part of an error response quoted in the error.
	maxQuoted = 200
	// maxAttempts bounds the attempts of one export, whatever the timeout.
	maxAttempts = 16
)

// The backoff between attempts: 1 s, then twice the last wait up to
// 30 s, each with ±50 % jitter; a Retry-After of the response replaces it.
const (
	initialBackoff = time.Second
	maxBackoff     = 30 * time.Second
)

// ErrShutdown is the error of an export after Shutdown.
var ErrShutdown = errors.New("otlphttp: the exporter is shut down")

// A StatusError is an HTTP status other than 2xx. Errors of exports
// that failed so keep it: errors.As reaches it.
type StatusError struct {
	URL        string // where the request went
	StatusCode int    // 503
	Status     string // "503 Service Unavailable"
	// Message is the message of the google.rpc.Status of the body, or
	// the start of the body as text.
	Message string
	// RetryAfter is the Retry-After of the response, 0 without one.
	RetryAfter time.Duration
}

// Error says which request failed, with what status and message.
func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "(empty)"
	}
	return fmt.Sprintf("POST %s: %s: %q", e.URL, e.Status, msg)
}

// Retryable reports whether the status is one the OTLP specification
// says to retry: 429, 502, 503, 504.
func (e *StatusError) Retryable() bool {
	switch e.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// client sends the requests of one exporter.
type client struct {
	url     string
	header  http.Header
	gzip    bool
	timeout time.Duration
	// timeoutErr is the cause of an export that ran out of timeout.
	timeoutErr error
	hc         *http.Client
	own        *http.Transport // the exporter's own transport, nil for cfg.httpClient
	wait       func(context.Context, time.Duration) error
	// kind is what a partial success counts ("spans").
	kind string
	// maxRequest is MaxRequest, but in tests.
	maxRequest int
	// lastSize is the size of the last request, for the next one's
	// buffer.
	lastSize atomic.Int64

	// stop is cancelled by shutdown, cancelling the exports in progress.
	stopCtx context.Context
	stop    context.CancelFunc

	mu       sync.Mutex
	closed   bool          // shutdown was called
	inflight int           // exports in progress
	idle     chan struct{} // closed when inflight drops to 0 after shutdown
}

// userAgent names the exporter (the OTLP specification asks exporters
// to).
const userAgent = "mcpwire-otlphttp"

func newClient(cfg *Config, kind string) (*client, error) {
	if cfg == nil || cfg.URL == "" {
		return nil, errors.New("otlphttp: no URL")
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout < 0 {
		return nil, fmt.Errorf("otlphttp: negative timeout %v", timeout)
	}
	c := &client{
		url:        cfg.URL,
		header:     http.Header{"User-Agent": {userAgent}},
		gzip:       cfg.Gzip,
		timeout:    timeout,
		timeoutErr: fmt.Errorf("the exporter's timeout of %v: %w", timeout, context.DeadlineExceeded),
		hc:         cfg.httpClient,
		wait:       cfg.wait,
		kind:       kind,
		maxRequest: MaxRequest,
	}
	for k, v := range cfg.Header {
		c.header[http.CanonicalHeaderKey(k)] = v
	}
	c.header.Set("Content-Type", "application/x-protobuf")
	c.header.Del("Content-Encoding")
	if c.gzip {
		c.header.Set("Content-Encoding", "gzip")
	}
	if c.hc == nil {
		c.own = newTransport(cfg.TLS)
		c.hc = &http.Client{Transport: c.own}
	}
	if c.wait == nil {
		c.wait = sleep
	}
	c.stopCtx, c.stop = context.WithCancel(context.Background())
	return c, nil
}

// newTransport returns a transport of the exporter's own, with the
// settings of http.DefaultTransport, so that shutdown can close its
// connections.
func newTransport(cfg *tls.Config) *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       cfg,
	}
}

// sizeHint is the capacity to encode the next request in: the size of
// the last one, but for an exceptional batch, which is not kept up for
// the next ones.
func (c *client) sizeHint() int {
	return int(min(c.lastSize.Load(), maxHint)) + 512
}

// maxHint bounds sizeHint.
const maxHint = 1 << 20

// send POSTs body, retrying what the specification says to retry, with
// backoff, within the timeout and ctx.
func (c *client) send(ctx context.Context, body []byte) error {
	if len(body) > c.maxRequest {
		return fmt.Errorf("the request is %d bytes, more than %d", len(body), c.maxRequest)
	}
	c.lastSize.Store(int64(len(body)))
	if !c.acquire() {
		return ErrShutdown
	}
	defer c.release()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(c.stopCtx, func() { cancel(ErrShutdown) })()
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, c.timeout, c.timeoutErr)
	defer cancelTimeout()

	if c.gzip {
		var err error
		if body, err = compress(body); err != nil {
			return err
		}
	}
	var err error
	for attempt := 0; ; attempt++ {
		err = c.attempt(ctx, body)
		var se *StatusError
		if err == nil || !errors.As(err, &se) || !se.Retryable() {
			return err
		}
		if attempt+1 == maxAttempts {
			return fmt.Errorf("%w (after %d attempts)", err, maxAttempts)
		}
		delay := se.RetryAfter
		if delay <= 0 {
			delay = backoff(attempt)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay {
			return fmt.Errorf("%w (retrying in %v would pass the deadline)", err, delay)
		}
		if werr := c.wait(ctx, delay); werr != nil {
			return fmt.Errorf("%w (waiting to retry: %w)", err, werr)
		}
	}
}

// backoff is the wait before attempt+2 when the response says nothing.
func backoff(attempt int) time.Duration {
	d := initialBackoff << min(attempt, 8)
	d = min(d, maxBackoff)
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// attempt POSTs body once.
func (c *client) attempt(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = c.header.Clone()
	resp, err := c.hc.Do(req)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			return fmt.Errorf("%w (%w)", err, cause)
		}
		return err
	}
	defer resp.Body.Close()
	data, readErr := readBounded(resp.Body, MaxResponse)
	mediaType, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	protobuf := strings.EqualFold(strings.TrimSpace(mediaType), "application/x-protobuf")
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		// The export succeeded; what the response says of it is
		// reported to the error handler.
		switch {
		case readErr != nil:
			otel.Handle(fmt.Errorf("otlphttp: POST %s: reading the response: %w", c.url, readErr))
		case protobuf && len(data) > 0:
			n, msg, err := partialSuccess(data)
			switch {
			case err != nil:
				otel.Handle(fmt.Errorf("otlphttp: POST %s: the response: %w", c.url, err))
			case n != 0 || msg != "":
				otel.Handle(&PartialSuccess{Rejected: n, Kind: c.kind, Message: msg})
			}
		}
		return nil
	}
	se := &StatusError{URL: c.url, StatusCode: resp.StatusCode, Status: resp.Status, RetryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	if protobuf {
		se.Message, _ = statusMessage(data)
	}
	if se.Message == "" {
		se.Message = string(bytes.TrimSpace(data))
	}
	if len(se.Message) > maxQuoted {
		se.Message = se.Message[:maxQuoted] + "..."
	}
	return se
}

// A PartialSuccess is what a server that accepted an export said it
// rejected of it; the exporter reports it to otel.Handle.
type PartialSuccess struct {
	Rejected int64  // how many were rejected
	Kind     string // of what: "spans", "metric data points"
	Message  string // why, as the server says
}

// Error says what was rejected and why.
func (p *PartialSuccess) Error() string {
	msg := p.Message
	if msg == "" {
		msg = "no message"
	}
	return fmt.Sprintf("otlphttp: OTLP partial success: %d %s rejected: %q", p.Rejected, p.Kind, msg)
}

// readBounded reads r to its end, up to max bytes: more is an error.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > max {
		return b[:max], fmt.Errorf("the body is larger than %d bytes", max)
	}
	return b, nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		switch {
		case s < 0:
			return 0 // not a delay: the backoff decides
		case s > int64(MaxTimeout/time.Second):
			return MaxTimeout // longer than any timeout: no retry
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}

func compress(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(b)/4 + 64)
	z := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(z)
	z.Reset(&buf)
	if _, err := z.Write(b); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	z.Reset(io.Discard)
	return buf.Bytes(), nil
}

func (c *client) acquire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.inflight++
	return true
}

func (c *client) release() {
	c.mu.Lock()
	c.inflight--
	last := c.closed && c.inflight == 0
	if last && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
	c.mu.Unlock()
	if last {
		c.closeIdle()
	}
}

// closeIdle closes the idle connections of the exporter's own transport,
// once no export is in progress after shutdown.
func (c *client) closeIdle() {
	if c.own != nil {
		c.own.CloseIdleConnections()
	}
}

func (c *client) isShutdown() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// shutdown cancels the exports in progress, waits within ctx for them to
// end, and closes the idle connections.
func (c *client) shutdown(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrShutdown
	}
	c.closed = true
	var idle chan struct{}
	if c.inflight > 0 {
		idle = make(chan struct{})
		c.idle = idle
	}
	c.mu.Unlock()
	c.stop()
	if idle == nil {
		c.closeIdle()
		return ctx.Err()
	}
	select {
	case <-idle: // the last export closed the connections
		return ctx.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}
