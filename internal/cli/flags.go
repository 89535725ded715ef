package cli

import (
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
	fs.Var(&namedString{&f.url, "URL"}, "url", "talk to the Streamable HTTP server at this URL (not supported yet)")
	fs.Var(&namedStrings{&f.headers, "K=V"}, "header", "send this HTTP header with --url (repeatable; not supported yet)")
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
	g.Target.URL = f.url
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usageErrorf("--header %q: want K=V", h)
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
		return usageErrorf("no server given: name its command after --, as in: mcpwire tools -- go run ./examples/hello")
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
