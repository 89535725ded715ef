package cli

import (
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/mcp"
)

// globalFlags holds the raw values of the global flags until they are
// checked.
type globalFlags struct {
	json     bool
	timeout  time.Duration
	protocol string
	verbose  bool
	url      string
	headers  []string
}

// addTo declares the global flags on the root command.
func (f *globalFlags) addTo(cmd *cobra.Command) {
	fs := cmd.PersistentFlags()
	fs.BoolVar(&f.json, "json", false, "print the raw JSON result (pretty, stable) instead of text")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "bound the whole operation, server start included (0 for no bound)")
	fs.Var(&namedString{&f.protocol, "VERSION"}, "protocol", "speak this protocol revision (default: try "+string(mcp.Latest)+", then the legacy handshake)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "show the server's stderr and the negotiated protocol revision on stderr")
	fs.Var(&namedString{&f.url, "URL"}, "url", "talk to the MCP server at this HTTP endpoint instead of starting one after --")
	fs.Var(&namedStrings{&f.headers, "K=V"}, "header", "send this HTTP header with every request to --url (repeatable)")
}

// parse checks the global flags and the server command, and stores them
// in a.global.
func (f *globalFlags) parse(a *app, server []string) error {
	g := globalOptions{JSON: f.json, Timeout: f.timeout, Verbose: f.verbose}
	if f.timeout < 0 {
		return usageErrorf("--timeout must not be negative, got %s", f.timeout)
	}
	if f.protocol != "" {
		v := mcp.Version(f.protocol)
		if !mcp.IsSupported(v) {
			return usageErrorf("--protocol: unknown revision %q; known: %s", f.protocol, joinVersions(mcp.SupportedVersions()))
		}
		g.Protocol = v
	}
	if f.url != "" {
		if err := checkServerURL(f.url); err != nil {
			return err
		}
		g.Target.URL = f.url
		// Without a token store no stored token is sent; login reports
		// why it cannot keep one.
		g.Target.TokenStore, _ = tokenStorePath(a.getenv)
	}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usageErrorf("--header %q: want K=V", h)
		}
		if !validHeaderName(strings.TrimSpace(k)) || strings.ContainsAny(v, "\r\n\x00") {
			return usageErrorf("--header %q: not a valid HTTP header", h)
		}
		g.Target.Headers = append(g.Target.Headers, header{Key: strings.TrimSpace(k), Value: v})
	}
	g.Target.Command = server
	switch {
	case f.url != "" && len(server) > 0:
		return usageErrorf("name the server either with --url or after --, not both")
	case len(g.Target.Headers) > 0 && f.url == "":
		return usageErrorf("--header needs --url")
	case f.url == "" && len(server) == 0:
		return usageErrorf("no server given: name its command after -- (as in: mcpwire tools -- go run ./examples/hello) or its URL with --url")
	}
	a.global = g
	return nil
}

// joinVersions lists versions, comma-separated.
func joinVersions(vs []mcp.Version) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// namedString is a string flag whose value the help names by its Type,
// as in "--protocol VERSION".
type namedString struct {
	p    *string
	name string
}

// String returns the value.
func (s *namedString) String() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// Set sets the value.
func (s *namedString) Set(v string) error {
	*s.p = v
	return nil
}

// Type returns the name of the value in the help.
func (s *namedString) Type() string { return s.name }

// namedStrings is a repeatable string flag whose value the help names by
// its Type, as in "--header K=V"; each use adds one value.
type namedStrings struct {
	p    *[]string
	name string
}

// String returns the values, comma-separated.
func (s *namedStrings) String() string {
	if s.p == nil {
		return ""
	}
	return strings.Join(*s.p, ",")
}

// Set adds a value.
func (s *namedStrings) Set(v string) error {
	*s.p = append(*s.p, v)
	return nil
}

// Type returns the name of the value in the help.
func (s *namedStrings) Type() string { return s.name }

// checkServerURL checks the value of --url: an absolute http or https
// URL, without user information (credentials go in --header).
func checkServerURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return usageErrorf("--url %q: %v", raw, errors.Unwrap(err))
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return usageErrorf("--url %q: want an http or https URL, such as http://localhost:3000/mcp", raw)
	case u.User != nil:
		return usageErrorf("--url: put credentials in a header, as in --header 'Authorization=Bearer TOKEN', not in the URL")
	case u.Fragment != "":
		return usageErrorf("--url %q: a URL with a fragment (#) names no server", raw)
	}
	return nil
}

// parseServerless checks the global flags of a command that talks to no
// MCP server but is about one (login, logout): --url, required when
// needURL, and --json, --timeout and --verbose; --header, --protocol and
// a server command make no sense there. It stores them in a.global.
func (a *app) parseServerless(cmd *cobra.Command, needURL bool) error {
	f := &a.flags
	g := globalOptions{JSON: f.json, Timeout: f.timeout, Verbose: f.verbose}
	switch {
	case f.timeout < 0:
		return usageErrorf("--timeout must not be negative, got %s", f.timeout)
	case len(f.headers) > 0:
		return usageErrorf("%s takes no --header", cmd.CommandPath())
	case f.protocol != "":
		return usageErrorf("%s takes no --protocol", cmd.CommandPath())
	case needURL && f.url == "":
		return usageErrorf("name the server with --url, as in: %s --url https://mcp.example.com/mcp", cmd.CommandPath())
	}
	if f.url != "" {
		if err := checkServerURL(f.url); err != nil {
			return err
		}
		g.Target.URL = f.url
	}
	path, err := tokenStorePath(a.getenv)
	if err != nil {
		return failure(err)
	}
	g.Target.TokenStore = path
	a.global = g
	return nil
}

// validHeaderName reports whether name is an HTTP field name: a token
// (RFC 9110 §5.1).
func validHeaderName(name string) bool {
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return name != ""
}
