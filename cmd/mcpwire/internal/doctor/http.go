package doctor

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/config"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/netlog"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// maxExchanges bounds the HTTP exchanges kept of one step.
const maxExchanges = 8

// runHTTP examines a URL: the name, the connection, TLS, then the MCP
// probes, the legacy transport and OAuth discovery.
func runHTTP(ctx context.Context, r *Report, t *Target, o *Options) {
	masked := config.MaskURL(t.URL)
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		s := r.add(&Step{ID: "url", Title: "the URL " + masked, Status: Fail, Detail: "not an http or https URL"})
		s.next = "give the server's endpoint as an http:// or https:// URL, such as http://127.0.0.1:3000/mcp"
		return
	}
	if !network(ctx, r, u, o) {
		return
	}
	base := &http.Transport{TLSClientConfig: o.TLS, Proxy: http.ProxyFromEnvironment}
	defer base.CloseIdleConnections()
	var oks [2]bool
	var statuses []int
	for i, era := range eras {
		s := r.add(&Step{ID: era.id, Title: era.title + " over Streamable HTTP", Transport: "streamable", Protocol: string(era.version)})
		timed(s, func() {
			ok, name, v, err := probeHTTP(ctx, s, t, base, o, era.version, false)
			statuses = append(statuses, exchangeStatuses(s)...)
			if ok {
				oks[i] = true
				s.Status, s.Detail = OK, fmt.Sprintf("%s answers, protocol %s", name, v)
				r.OK = true
				r.Speaks = append(r.Speaks, fmt.Sprintf("%s over Streamable HTTP (%s)", v, name))
				return
			}
			judgeHTTP(s, t, err)
		})
	}
	eraAdvice(r, oks[0], oks[1])
	needsAuth := false
	for _, st := range statuses {
		needsAuth = needsAuth || st == http.StatusUnauthorized
	}
	switch {
	case r.OK:
		r.skip("http+sse", "the legacy HTTP+SSE transport", "not needed: the server speaks Streamable HTTP")
	case needsAuth:
		r.skip("http+sse", "the legacy HTTP+SSE transport", "the server wants authorization first")
	default:
		s := r.add(&Step{ID: "http+sse", Title: "the legacy HTTP+SSE transport (2024-11-05): GET the event stream", Transport: "sse"})
		timed(s, func() {
			ok, name, v, err := probeHTTP(ctx, s, t, base, o, mcp.LatestLegacy, true)
			if !ok {
				s.Status, s.Detail = Fail, "not offered either: "+app.TrimPrefixes(err.Error())
				return
			}
			s.Status, s.Detail = Warn, fmt.Sprintf("%s answers over HTTP+SSE, protocol %s", name, v)
			s.next = "the server speaks only the legacy HTTP+SSE transport (deprecated since 2025-03-26): mcpwire falls back to it by itself, but hosts that speak only Streamable HTTP cannot use it"
			r.OK = true
			r.Speaks = append(r.Speaks, fmt.Sprintf("%s over HTTP+SSE (%s)", v, name))
		})
	}
	if needsAuth {
		oauth(ctx, r, t, base, o)
	} else {
		r.skip("oauth", "OAuth discovery", "the server did not ask for authorization (no HTTP 401)")
	}
}

// network checks the name, the TCP connection and TLS; it reports
// whether they worked.
func network(ctx context.Context, r *Report, u *url.URL, o *Options) bool {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr := net.JoinHostPort(host, port)
	fail := func() bool {
		r.skip("mcp", "the MCP probes", "the server cannot be reached")
		return false
	}
	if net.ParseIP(host) == nil {
		s := r.add(&Step{ID: "dns", Title: "look up " + host})
		var addrs []string
		var err error
		timed(s, func() {
			dctx, cancel := context.WithTimeout(ctx, o.ProbeTimeout)
			defer cancel()
			addrs, err = o.LookupHost(dctx, host)
		})
		if err != nil {
			s.Status = Fail
			var de *net.DNSError
			if errors.As(err, &de) && de.IsNotFound {
				s.Detail = fmt.Sprintf("no such host %q", host)
				s.next = fmt.Sprintf("check the host name in the URL: %q does not exist", host)
			} else {
				s.Detail = err.Error()
				s.next = fmt.Sprintf("the name %q could not be looked up: check the network and the DNS", host)
			}
			return fail()
		}
		s.Status, s.Detail = OK, strings.Join(addrs, ", ")
	}
	s := r.add(&Step{ID: "tcp", Title: "connect to " + addr})
	var conn net.Conn
	var err error
	timed(s, func() {
		d := net.Dialer{Timeout: o.ProbeTimeout}
		conn, err = d.DialContext(ctx, "tcp", addr)
	})
	if err != nil {
		s.Status, s.Detail = Fail, err.Error()
		if d := app.DescribeNetError(err, u.String()); d != nil {
			s.Detail = d.Error()
		}
		s.next = fmt.Sprintf("nothing accepts connections at %s: is the server running, and on this port?", addr)
		return fail()
	}
	s.Status, s.Detail = OK, "connected from "+conn.LocalAddr().String()
	if u.Scheme != "https" {
		conn.Close()
		return true
	}
	s = r.add(&Step{ID: "tls", Title: "TLS handshake with " + host})
	timed(s, func() {
		cfg := &tls.Config{ServerName: host}
		if o.TLS != nil {
			cfg = o.TLS.Clone()
			cfg.ServerName = host
		}
		tc := tls.Client(conn, cfg)
		hctx, cancel := context.WithTimeout(ctx, o.ProbeTimeout)
		defer cancel()
		err = tc.HandshakeContext(hctx)
		if err == nil {
			st := tc.ConnectionState()
			s.Detail = fmt.Sprintf("%s, certificate for %s", tls.VersionName(st.Version), strings.Join(st.PeerCertificates[0].DNSNames, ", "))
		}
	})
	conn.Close()
	if err != nil {
		s.Status, s.Detail = Fail, err.Error()
		if d := app.DescribeNetError(err, u.String()); d != nil {
			s.Detail = d.Error()
		}
		s.next = "fix the server's certificate (or, for a server without TLS, use http://)"
		return fail()
	}
	s.Status = OK
	return true
}

// probeHTTP connects in revision v, over Streamable HTTP or (legacy) the
// HTTP+SSE transport, noting the step's exchanges.
func probeHTTP(ctx context.Context, s *Step, t *Target, base http.RoundTripper, o *Options, v mcp.Version, legacy bool) (ok bool, name string, version mcp.Version, err error) {
	log := &exchangeLog{step: s}
	hc := &http.Client{Transport: &netlog.Transport{Next: base, Sink: log.add, Secret: t.Secret}}
	var invalid string
	var mu sync.Mutex
	obs := transport.ObserverFunc(func(f *transport.Frame) {
		mu.Lock()
		defer mu.Unlock()
		if f.Direction == transport.Received && f.Err != nil && invalid == "" {
			invalid = clip(string(f.Raw), 200)
		}
	})
	var tr transport.Transport
	if legacy {
		tr = sse.NewTransport(t.URL, &sse.ClientOptions{HTTPClient: hc, Header: t.Header, ConnectTimeout: o.ProbeTimeout, Observer: obs})
	} else {
		tr = streamable.NewTransport(t.URL, &streamable.ClientOptions{HTTPClient: hc, Header: t.Header, ConnectTimeout: o.ProbeTimeout,
			DisableSSEFallback: true, DisableStandaloneStream: true, MaxReconnects: -1, Observer: obs})
	}
	pctx, cancel := context.WithTimeout(ctx, o.ProbeTimeout)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "mcpwire-doctor", Version: mcpwire.Version()}, &client.Options{Version: v, ProbeTimeout: o.ProbeTimeout})
	sess, err := c.Connect(pctx, tr)
	log.close()
	if err != nil {
		mu.Lock()
		if invalid != "" {
			err = fmt.Errorf("%w; it sent something that is not JSON-RPC: %q", err, invalid)
		}
		mu.Unlock()
		return false, "", "", err
	}
	info := sess.ServerInfo()
	v = sess.ProtocolVersion()
	sess.Close()
	return true, strings.TrimSpace(info.Name + " " + info.Version), v, nil
}

// exchangeLog gathers the exchanges of a step from netlog's events.
type exchangeLog struct {
	mu     sync.Mutex
	step   *Step
	byID   map[int64]int
	closed bool
}

// add takes one event of netlog.
func (l *exchangeLog) add(e *netlog.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.byID == nil {
		l.byID = make(map[int64]int)
	}
	s := l.step
	i, ok := l.byID[e.Exchange]
	if e.Kind == "request" {
		if len(s.HTTP) >= maxExchanges {
			return
		}
		l.byID[e.Exchange] = len(s.HTTP)
		s.HTTP = append(s.HTTP, Exchange{Method: e.Method, URL: e.URL})
		return
	}
	if !ok {
		return
	}
	x := &s.HTTP[i]
	switch e.Kind {
	case "response":
		x.Status, x.ContentType, x.MS = e.Status, e.ContentType, e.MS
		x.Headers = nil
		for _, h := range e.Headers {
			x.Headers = append(x.Headers, h.Name+": "+h.Value)
		}
	case "end":
		if e.Error != "" && x.Status == 0 {
			x.Error, x.MS = e.Error, e.MS
		}
	}
}

// close stops the log: the connection's late exchanges (its closing
// DELETE) do not belong to the step.
func (l *exchangeLog) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// exchangeStatuses returns the statuses of a step's exchanges.
func exchangeStatuses(s *Step) []int {
	var out []int
	for _, x := range s.HTTP {
		out = append(out, x.Status)
	}
	return out
}

// judgeHTTP sets a failed MCP probe's step from its exchanges and error:
// the first answer that is not an MCP answer says most.
func judgeHTTP(s *Step, t *Target, err error) {
	s.Status = Fail
	detail := app.TrimPrefixes(err.Error())
	if d := app.DescribeNetError(err, config.MaskURL(t.URL)); d != nil {
		detail = d.Error()
	}
	for _, x := range s.HTTP {
		ct, _, _ := strings.Cut(strings.ToLower(x.ContentType), ";")
		ct = strings.TrimSpace(ct)
		switch {
		case x.Status == http.StatusUnauthorized:
			s.Detail = "the server wants authorization (HTTP 401): see the OAuth steps below"
			return
		case x.Status == http.StatusNotFound:
			s.Detail = fmt.Sprintf("nothing at this URL (HTTP 404 to %s)", x.Method)
			s.next = "check the URL's path: MCP endpoints are often /mcp (and /sse for the legacy transport)"
			return
		case x.Status >= 500:
			s.Detail = fmt.Sprintf("the server failed (HTTP %d to %s): %s", x.Status, x.Method, detail)
			s.next = fmt.Sprintf("the server failed with HTTP %d: read its log for why", x.Status)
			return
		case x.Status/100 == 2 && ct == "text/html":
			s.Detail = fmt.Sprintf("the URL answers with a web page (HTTP %d, text/html), not MCP", x.Status)
			s.next = "this URL serves a web page: give the server's MCP endpoint (often /mcp)"
			return
		case x.Status/100 == 2 && x.Method == http.MethodPost && x.Status != http.StatusAccepted && ct != "application/json" && ct != "text/event-stream":
			s.Detail = fmt.Sprintf("the server answers a POST with Content-Type %q (HTTP %d); MCP answers application/json or text/event-stream", x.ContentType, x.Status)
			s.next = "the server's answers have the wrong Content-Type: it must answer POSTs with application/json or text/event-stream"
			return
		}
	}
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		s.Detail = "the server refused it: " + detail
		s.next = "the server refuses both revisions mcpwire speaks: check its version, or the protocol revisions it supports"
	case errors.Is(err, context.DeadlineExceeded):
		s.Detail = "no answer within the probe timeout"
		s.next = "the server does not answer: is it overloaded, or is this the right URL?"
	default:
		s.Detail = detail
		s.next = "the connection failed: " + detail
	}
}
