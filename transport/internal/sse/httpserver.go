package sse

// This file holds the HTTP checks that the two server transports built on
// SSE (Streamable HTTP and the legacy HTTP+SSE transport) share: the
// defence against DNS rebinding (Host and Origin), media-type matching for
// Accept and Content-Type, and bounded reading of request bodies.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A Guard checks the Host and Origin of requests, the defence against DNS
// rebinding that the MCP transports require (a web page served from an
// attacker's name that resolves to 127.0.0.1 must not reach a local
// server).
//
// The rules, for a request that arrived on a loopback address (or a Unix
// socket), the case of a local server:
//   - Host must be localhost, 127.0.0.1 or [::1] (any port), or allowed;
//   - Origin, when present, must name one of those hosts (any scheme and
//     port), or be allowed.
//
// For a request that arrived on another address (a public server, whose
// names the handler cannot know):
//   - Host is checked only if allowed hosts are configured;
//   - Origin, when present, must be the request's own host (same origin)
//     or allowed.
//
// A request without Origin (every non-browser client) passes the Origin
// check.
type Guard struct {
	hosts    map[string]bool // lower-case "host" (any port) or "host:port"
	origins  map[string]bool // lower-case "scheme://host[:port]"
	disabled bool
}

// NewGuard returns a guard that also allows the given hosts ("example.com"
// for any port, "example.com:8443" for one) and origins
// ("https://app.example.com"); disabled turns every check off.
func NewGuard(allowedHosts, allowedOrigins []string, disabled bool) *Guard {
	g := &Guard{disabled: disabled}
	if len(allowedHosts) > 0 {
		g.hosts = make(map[string]bool, len(allowedHosts))
		for _, h := range allowedHosts {
			g.hosts[strings.ToLower(strings.TrimSpace(h))] = true
		}
	}
	if len(allowedOrigins) > 0 {
		g.origins = make(map[string]bool, len(allowedOrigins))
		for _, o := range allowedOrigins {
			g.origins[strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/"))] = true
		}
	}
	return g
}

// Check returns nil when r may proceed, or an error saying why it is
// forbidden (the transports answer 403).
func (g *Guard) Check(r *http.Request) error {
	if g == nil || g.disabled {
		return nil
	}
	local := arrivedOnLoopback(r)
	if local || g.hosts != nil {
		if !(local && IsLocalhost(r.Host)) && !g.hostAllowed(r.Host) {
			return fmt.Errorf("host %q is not allowed", r.Host)
		}
	}
	vs := r.Header["Origin"]
	if len(vs) == 0 {
		return nil
	}
	origin := vs[0]
	if len(vs) > 1 {
		return errors.New("more than one Origin header")
	}
	if g.origins[strings.ToLower(origin)] {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("origin %q is not allowed", origin)
	}
	if local && IsLocalhost(u.Host) || strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	return fmt.Errorf("origin %q is not allowed", origin)
}

func (g *Guard) hostAllowed(hostport string) bool {
	if g.hosts == nil {
		return false
	}
	hp := strings.ToLower(hostport)
	if g.hosts[hp] {
		return true
	}
	host, _, err := net.SplitHostPort(hp)
	if err != nil {
		host = hp
	}
	return g.hosts[host] || g.hosts[strings.Trim(host, "[]")]
}

// arrivedOnLoopback reports whether r came in on a loopback address or a
// Unix socket, that is, whether the server is reachable locally only
// through this listener.
func arrivedOnLoopback(r *http.Request) bool {
	switch a := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// IsLocalhost reports whether hostport (a Host header or the host of an
// origin, with or without a port) names the local machine: localhost,
// 127.0.0.1 or [::1].
func IsLocalhost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]") {
		host = hostport[1 : len(hostport)-1]
	}
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// Accepts reports whether an Accept header (all its values) admits the
// media type mediaType ("type/subtype"): listed as such, as "type/*" or
// as "*/*", without q=0. A request without Accept admits everything.
func Accepts(accept []string, mediaType string) bool {
	if len(accept) == 0 {
		return true
	}
	typ, _, _ := strings.Cut(mediaType, "/")
	for _, v := range accept {
		for len(v) > 0 {
			var item string
			item, v, _ = strings.Cut(v, ",")
			rng, params, _ := strings.Cut(item, ";")
			rng = strings.TrimSpace(rng)
			if !(strings.EqualFold(rng, mediaType) || rng == "*/*" ||
				len(rng) == len(typ)+2 && strings.HasSuffix(rng, "/*") && strings.EqualFold(rng[:len(typ)], typ)) {
				continue
			}
			if !qZero(params) {
				return true
			}
		}
	}
	return false
}

// qZero reports whether media-range parameters set q to zero.
func qZero(params string) bool {
	for len(params) > 0 {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			v = strings.TrimSpace(v)
			return strings.Trim(v, "0.") == "" && v != ""
		}
	}
	return false
}

// IsJSON reports whether a Content-Type value is application/json, with
// any parameters (charset=utf-8).
func IsJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// ErrBodyTooLarge is returned by ReadBody for a body over the limit.
var ErrBodyTooLarge = errors.New("request body too large")

// ReadBody reads r's body, at most limit bytes. A body over the limit
// yields ErrBodyTooLarge without reading it all when the request declares
// its length.
func ReadBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, ErrBodyTooLarge
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength >= 0 {
		b := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, ErrBodyTooLarge
	}
	return b, nil
}

// ReadMessage reads the JSON-RPC message of a POST: its body, at most
// limit bytes, decoded strictly by dec. On failure it returns the HTTP
// status and the error response to answer with: 413 for a body over the
// limit, 400 for one that cannot be read or is not a valid message. The
// body is returned too, as far as it was read (nil when over the limit).
func ReadMessage(r *http.Request, limit int64, dec *jsonrpc.Decoder) ([]byte, jsonrpc.Message, int, *jsonrpc.Response) {
	body, err := ReadBody(r, limit)
	if errors.Is(err, ErrBodyTooLarge) {
		return nil, nil, http.StatusRequestEntityTooLarge, &jsonrpc.Response{Error: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
			"Invalid Request: the body exceeds the limit of %d bytes", limit)}
	}
	if err != nil {
		return body, nil, http.StatusBadRequest, &jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeParseError, "Parse error: reading the body: "+err.Error())}
	}
	msg, err := dec.Decode(body)
	if err != nil {
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) {
			return body, nil, http.StatusBadRequest, de.Response()
		}
		return body, nil, http.StatusBadRequest, &jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeParseError, "Parse error: "+err.Error())}
	}
	return body, msg, 0, nil
}
