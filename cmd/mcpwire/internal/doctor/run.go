package doctor

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/config"

	"github.com/mcpwire/mcpwire/mcp"
)

// DefaultProbeTimeout bounds each probe (one answer of the server, one
// network step).
const DefaultProbeTimeout = 10 * time.Second

// A Target is the server to examine: a command, or a URL.
type Target struct {
	// Name names the server as the command line did (@NAME, the URL, the
	// command line), for the report.
	Name string
	// NewCmd returns the command that starts the server, a new one per
	// probe; nil for a URL.
	NewCmd func() *exec.Cmd
	// URL is the server's endpoint, for a server over HTTP.
	URL string
	// Header is sent with every request of the MCP probes (--header, a
	// configuration file's headers).
	Header http.Header
	// Secret names the headers (canonical) whose values are masked in
	// the report, besides the usual credentials.
	Secret map[string]bool
	// Login is how mcpwire login names the server ("--url URL", "@NAME").
	Login string
}

// Options configure Run; nil and zero fields mean the defaults.
type Options struct {
	// ProbeTimeout bounds each probe. Default DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// LookupHost resolves a name. Default net.DefaultResolver.LookupHost.
	LookupHost func(ctx context.Context, host string) ([]string, error)
	// TLS is the configuration of the TLS probe and of the HTTP client
	// (its RootCAs); default the system's.
	TLS *tls.Config
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.ProbeTimeout <= 0 {
		r.ProbeTimeout = DefaultProbeTimeout
	}
	if r.LookupHost == nil {
		r.LookupHost = net.DefaultResolver.LookupHost
	}
	return r
}

// The probes of the eras.
var eras = []struct {
	id, title string
	version   mcp.Version
}{
	{"discover", "server/discover, protocol 2026-07-28", "2026-07-28"},
	{"initialize", "initialize, protocol 2025-11-25", mcp.LatestLegacy},
}

// Run examines the server t names and returns the checklist. ctx bounds
// it all; each probe is bounded by the probe timeout.
func Run(ctx context.Context, t *Target, o *Options) *Report {
	opts := o.withDefaults()
	r := &Report{Server: t.Name, Speaks: []string{}}
	if t.URL != "" {
		r.Kind = "http"
		runHTTP(ctx, r, t, &opts)
	} else {
		r.Kind = "stdio"
		runStdio(ctx, r, t, &opts)
	}
	r.finish()
	scrub(r, t)
	r.bound()
	return r
}

// scrub masks, in the report's words, the secrets of the target: the
// URL's password and query values, which the errors of the library
// quote, and the values of its headers.
func scrub(r *Report, t *Target) {
	var pairs []string
	if t.URL != "" {
		if m := config.MaskURL(t.URL); m != t.URL {
			pairs = append(pairs, t.URL, m)
		}
	}
	for _, vals := range t.Header {
		for _, v := range vals {
			if len(v) >= 4 {
				pairs = append(pairs, v, config.Mask)
			}
		}
	}
	if len(pairs) == 0 {
		return
	}
	rep := strings.NewReplacer(pairs...)
	r.Next = rep.Replace(r.Next)
	for _, s := range r.Steps {
		s.Detail, s.Title = rep.Replace(s.Detail), rep.Replace(s.Title)
	}
}
