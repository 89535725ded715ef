package app

import (
	"errors"
	"net/url"
	"slices"
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
	urls     []string // every --url, in order
	headers  []string
	trace    string
	config   string // --config FILE
	server   string // --server NAME
}

// addTo declares the global flags on the root command, with their
// defaults: a new root starts from no flags given.
func (f *globalFlags) addTo(cmd *cobra.Command) {
	*f = globalFlags{}
	fs := cmd.PersistentFlags()
	fs.BoolVar(&f.json, "json", false, "print the raw JSON result (pretty, stable) instead of text")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "bound the whole operation, server start included (0 for no bound)")
	fs.Var(NamedString(&f.protocol, "VERSION"), "protocol", "speak this protocol revision (default: try "+string(mcp.Latest)+", then the legacy handshake)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "show the server's stderr and the negotiated protocol revision on stderr")
	fs.Var(NamedStrings(&f.urls, "URL"), "url", "talk to the MCP server at this HTTP endpoint instead of starting one after --")
	fs.Var(NamedStrings(&f.headers, "K=V"), "header", "send this HTTP header with every request to --url, or to the HTTP server of @NAME (repeatable)")
	fs.Var(NamedString(&f.trace, "FORMAT"), "trace", "show every frame on stderr as it goes: one line each (colored on a terminal), or --trace=jsonl for the recording format of mcpwire tap")
	fs.Lookup("trace").NoOptDefVal = TracePretty
	fs.Var(NamedString(&f.server, "NAME"), "server", "talk to the server of this name in the hosts' configuration files (or give @NAME; see mcpwire servers)")
	fs.Var(NamedString(&f.config, "FILE"), "config", "read the servers of --server or @NAME from this host configuration file only")
}

// ManyURLs is the annotation (cobra.Command.Annotations) of a command
// that takes --url more than once, such as mcpwire check: Options.URLs
// holds them all. Other commands refuse a second --url.
const ManyURLs = "mcpwire/many-urls"

// url returns the first --url, or "".
func (f *globalFlags) url() string {
	if len(f.urls) == 0 {
		return ""
	}
	return f.urls[0]
}

// parse checks the global flags and the server of cmd: the command after
// "--" (server), or the configured server @NAME (alias) or --server
// names. It stores them in a.Global.
func (f *globalFlags) parse(a *App, cmd *cobra.Command, alias string, server []string) error {
	g := Options{JSON: f.json, Timeout: f.timeout, Verbose: f.verbose}
	if f.timeout < 0 {
		return UsageErrorf("--timeout must not be negative, got %s", f.timeout)
	}
	if len(f.urls) > 1 && cmd.Annotations[ManyURLs] == "" {
		return UsageErrorf("give --url once (%s talks to one server)", cmd.CommandPath())
	}
	for _, u := range f.urls {
		if err := checkServerURL(u); err != nil {
			return err
		}
	}
	if len(f.urls) > 0 {
		g.URLs = slices.Clone(f.urls)
	}
	if f.protocol != "" {
		v := mcp.Version(f.protocol)
		if !mcp.IsSupported(v) {
			return UsageErrorf("--protocol: unknown revision %q; known: %s", f.protocol, joinVersions(mcp.SupportedVersions()))
		}
		g.Protocol = v
	}
	name, err := f.serverName(alias)
	if err != nil {
		return err
	}
	if name != "" && (f.url() != "" || len(server) > 0) {
		return UsageErrorf("name the server one way: %s, --url, or its command after --", aliasWord(alias, name))
	}
	if f.url() != "" {
		g.Target.URL = f.url()
		// Without a token store no stored token is sent; login reports
		// why it cannot keep one.
		g.Target.TokenStore, _ = TokenStorePath(a.Getenv)
	}
	var headers []Header
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return UsageErrorf("--header %q: want K=V", h)
		}
		if !validHeaderName(strings.TrimSpace(k)) || strings.ContainsAny(v, "\r\n\x00") {
			return UsageErrorf("--header %q: not a valid HTTP header", h)
		}
		headers = append(headers, Header{Key: strings.TrimSpace(k), Value: v})
	}
	if name != "" {
		if err := a.configTarget(&g.Target, name); err != nil {
			return err
		}
		if len(headers) > 0 && g.Target.URL == "" {
			return UsageErrorf("--header needs a server over HTTP; %q is a command", name)
		}
	} else {
		if f.config != "" {
			return UsageErrorf("--config names a file of servers: name one with --server NAME or @NAME (mcpwire servers --config %s lists them)", f.config)
		}
		g.Target.Command = server
	}
	g.Target.Headers = append(g.Target.Headers, headers...)
	if f.trace != "" {
		obs, err := a.TraceObserver(f.trace, a.Stderr)
		if err != nil {
			return err
		}
		g.Target.Observer = obs
	}
	switch {
	case f.url() != "" && len(server) > 0:
		return UsageErrorf("name the server either with --url or after --, not both")
	case len(headers) > 0 && g.Target.URL == "":
		return UsageErrorf("--header needs --url")
	case g.Target.URL == "" && len(g.Target.Command) == 0:
		return UsageErrorf("no server given: name its command after -- (as in: mcpwire tools -- go run ./examples/hello), its URL with --url, or a server of your hosts' configuration with @NAME (see mcpwire servers)")
	}
	a.Global = g
	return nil
}

// serverName returns the configured server that --server or @NAME
// (alias) names, or "".
func (f *globalFlags) serverName(alias string) (string, error) {
	switch {
	case f.server != "" && alias != "" && f.server != alias:
		return "", UsageErrorf("name one server: --server %s or @%s", f.server, alias)
	case alias != "":
		return alias, nil
	}
	return f.server, nil
}

// aliasWord returns how the command line named the configured server.
func aliasWord(alias, name string) string {
	if alias != "" {
		return "@" + alias
	}
	return "--server " + name
}

// joinVersions lists versions, comma-separated.
func joinVersions(vs []mcp.Version) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// A StringValue is a string flag whose value the help names, as in
// "--protocol VERSION" (pflag would say "string"). It implements
// pflag.Value.
type StringValue struct {
	p    *string
	name string
}

// NamedString returns the flag value that stores in *p, named name in
// the help: cmd.Flags().Var(app.NamedString(&o.Output, "FILE"), ...).
func NamedString(p *string, name string) *StringValue { return &StringValue{p, name} }

// String returns the value.
func (s *StringValue) String() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// Set sets the value.
func (s *StringValue) Set(v string) error {
	*s.p = v
	return nil
}

// Type returns the name of the value in the help.
func (s *StringValue) Type() string { return s.name }

// A StringsValue is a repeatable string flag whose value the help names,
// as in "--header K=V"; each use adds one value. It implements
// pflag.Value.
type StringsValue struct {
	p    *[]string
	name string
}

// NamedStrings returns the repeatable flag value that appends to *p,
// named name in the help.
func NamedStrings(p *[]string, name string) *StringsValue { return &StringsValue{p, name} }

// String returns the values, comma-separated.
func (s *StringsValue) String() string {
	if s.p == nil {
		return ""
	}
	return strings.Join(*s.p, ",")
}

// Set adds a value.
func (s *StringsValue) Set(v string) error {
	*s.p = append(*s.p, v)
	return nil
}

// Type returns the name of the value in the help.
func (s *StringsValue) Type() string { return s.name }

// checkServerURL checks the value of --url: an absolute http or https
// URL, without user information (credentials go in --header).
func checkServerURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return UsageErrorf("--url %q: %v", raw, errors.Unwrap(err))
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return UsageErrorf("--url %q: want an http or https URL, such as http://localhost:3000/mcp", raw)
	case u.User != nil:
		return UsageErrorf("--url: put credentials in a header, as in --header 'Authorization=Bearer TOKEN', not in the URL")
	case u.Fragment != "":
		return UsageErrorf("--url %q: a URL with a fragment (#) names no server", raw)
	}
	return nil
}

// ParseServerless checks the global flags of a command that talks to no
// MCP server but is about one (login, logout): the server over HTTP of
// --url or of a configured server (--server NAME, or @NAME among args),
// required when needURL, and --json, --timeout and --verbose; --header,
// --protocol and a server command make no sense there. It stores them in
// a.Global, with the token store's location.
func (a *App) ParseServerless(cmd *cobra.Command, args []string, needURL bool) error {
	f := &a.flags
	g := Options{JSON: f.json, Timeout: f.timeout, Verbose: f.verbose}
	alias, _, err := ServerAlias(args)
	if err != nil {
		return err
	}
	name, err := f.serverName(alias)
	if err != nil {
		return err
	}
	switch {
	case f.timeout < 0:
		return UsageErrorf("--timeout must not be negative, got %s", f.timeout)
	case len(f.headers) > 0:
		return UsageErrorf("%s takes no --header", cmd.CommandPath())
	case len(f.urls) > 1:
		return UsageErrorf("give --url once (%s is about one server)", cmd.CommandPath())
	case f.protocol != "":
		return UsageErrorf("%s takes no --protocol", cmd.CommandPath())
	case name != "" && f.url() != "":
		return UsageErrorf("name the server one way: %s or --url", aliasWord(alias, name))
	case name == "" && f.config != "":
		return UsageErrorf("--config names a file of servers: name one with --server NAME or @NAME (mcpwire servers --config %s lists them)", f.config)
	case needURL && f.url() == "" && name == "":
		return UsageErrorf("name the server with --url, as in: %s --url https://mcp.example.com/mcp", cmd.CommandPath())
	}
	if f.url() != "" {
		if err := checkServerURL(f.url()); err != nil {
			return err
		}
		g.Target.URL = f.url()
	}
	if name != "" {
		if err := a.configTarget(&g.Target, name); err != nil {
			return err
		}
		if g.Target.URL == "" {
			return UsageErrorf("%s is for servers over HTTP; %q is a command", cmd.CommandPath(), name)
		}
	}
	path, err := TokenStorePath(a.Getenv)
	if err != nil {
		return Failure(err)
	}
	g.Target.TokenStore = path
	a.Global = g
	return nil
}

// ParseLocal checks the global flags of a command that reads only local
// files (mcpwire servers): --json, --verbose and --config; the flags
// that name a server are refused. It stores them in a.Global.
func (a *App) ParseLocal(cmd *cobra.Command) error {
	f := &a.flags
	for _, name := range []string{"url", "header", "protocol", "server"} {
		if cmd.Flags().Changed(name) {
			return UsageErrorf("%s takes no --%s", cmd.CommandPath(), name)
		}
	}
	a.Global = Options{JSON: f.json, Timeout: f.timeout, Verbose: f.verbose}
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
