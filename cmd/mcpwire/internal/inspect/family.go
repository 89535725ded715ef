package inspect

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Family returns the verb of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupInspect, Title: "Inspecting a server:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newInspectCmd(a)} },
	}
}

const groupInspect = "inspect"

const inspectLong = `mcpwire inspect connects to an MCP server, as the other commands do, and
serves a web page on 127.0.0.1 to look at it and try it: its name, version,
protocol revision and capabilities; its tools (a form from each input
schema, or raw JSON), resources, templates and prompts; every frame on the
wire both ways, live, with the request each response answers and its
latency; the server's log messages and stderr. Questions the server asks
(elicitation, sampling) are answered in the page; the roots it gets are
the ones you set there. The frames export as a recording (the format of
mcpwire tap --record, which mcpwire replay plays), and a recording loads
into the page to look at it.

The first line of standard output is the page's URL, with its access
token: every request to the page must carry it. The page answers only to
127.0.0.1 and localhost, and to itself (other sites' pages are refused).
mcpwire opens it in your browser (MCPWIRE_BROWSER names a program to open
it with) unless --no-browser, and serves until interrupted, also after
the server has ended, to look at what happened.

--timeout bounds starting and connecting to the server; each request the
page makes is bounded by --request-timeout, and each of the server's
questions waits at most --answer-timeout for your answer (and no longer
once no page is open).

Without a server, mcpwire inspect lists the servers of the hosts'
configuration files (what mcpwire servers shows, --config FILE for one
file) and connects to the one you choose in the page, and to another when
you switch. The page names a server, never a command: only the servers of
those files are started, and none of a file that another user owns or
may write. A project's file (.mcp.json, .vscode/mcp.json, .cursor/mcp.json,
which a repository you cloned may bring) may name any command: its servers
start only once you trust the entry as the page shows it.

Besides the lists and the frames, the page shows the session's tasks, the
HTTP exchanges of a server over HTTP (Network: headers with Authorization,
cookies and tokens masked, each SSE event, each resumption), a connection
doctor (the checklist of mcpwire doctor), and Reconnect: a new session to
the same server, and what changed between the two. A call and its result
are saved as a check (exact, with paths to ignore, or a JSON Schema the
result must meet) into the file of --checks, which mcpwire verify runs in
CI; GET /checks downloads them. The URL's #fragment names what the page
shows (a tool, a frame, a task), and a reload keeps it.`

const inspectExample = `  mcpwire inspect
  mcpwire inspect -- npx -y @modelcontextprotocol/server-everything
  mcpwire inspect --url http://localhost:3000/mcp
  mcpwire inspect @github --no-browser --listen 127.0.0.1:6274`

// newInspectCmd returns the command "mcpwire inspect".
func newInspectCmd(a *app.App) *cobra.Command {
	var o struct {
		listen    string
		noBrowser bool
		opts      Options
	}
	cmd := &cobra.Command{
		Use:               "inspect [--listen ADDR] [--no-browser] [@NAME | --url URL | -- COMMAND [ARG...]]",
		Short:             "Inspect a server in a web page: its tools, resources, prompts and every frame",
		Long:              inspectLong,
		Example:           inspectExample,
		GroupID:           groupInspect,
		Args:              app.ServerArgs(),
		ValidArgsFunction: a.CompleteArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			catalog := len(args) == 0 && cmd.ArgsLenAtDash() < 0 && !cmd.Flags().Changed("url") && !cmd.Flags().Changed("server")
			body := func(cmd *cobra.Command, _ []string) error {
				if cmd.Flags().Changed("json") {
					return app.UsageErrorf("inspect takes no --json: its output is the page")
				}
				ln, err := listen(o.listen)
				if err != nil {
					return err
				}
				defer ln.Close()
				return run(cmd.Context(), a, ln, !o.noBrowser, &o.opts, catalog)
			}
			if !catalog {
				return a.RunE(body)(cmd, args)
			}
			if err := a.ParseLocal(cmd); err != nil {
				return err
			}
			return app.Failure(body(cmd, args))
		},
	}
	fs := cmd.Flags()
	fs.Var(app.NamedString(&o.listen, "ADDR"), "listen", "serve the page on this loopback address, such as 127.0.0.1:6274 (default: a free port of 127.0.0.1)")
	fs.BoolVar(&o.noBrowser, "no-browser", false, "only print the page's URL; do not open a browser")
	fs.DurationVar(&o.opts.RequestTimeout, "request-timeout", DefaultRequestTimeout, "bound each request the page makes (a tool call...), your answers included")
	fs.StringVar(&o.opts.ChecksFile, "checks", "", "read the saved checks from this `FILE`, and write those the page saves to it (mcpwire verify runs them)")
	fs.DurationVar(&o.opts.AnswerTimeout, "answer-timeout", DefaultAnswerTimeout, "how long a question of the server (elicitation, sampling) waits for your answer")
	return cmd
}

// listen opens the listener of --listen: a loopback address only
// (localhost means 127.0.0.1).
func listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, app.UsageErrorf("--listen %q: want a loopback address and port, such as 127.0.0.1:6274", addr)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, app.UsageErrorf("--listen %q: the inspector serves on a loopback address only (127.0.0.1, ::1), never on the network", addr)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, app.Failure(fmt.Errorf("--listen: %w", err))
	}
	return ln, nil
}

// run connects to the server (or, with catalog, reads the hosts'
// configuration files), serves the page on ln until ctx ends, and closes
// everything.
func run(ctx context.Context, a *app.App, ln net.Listener, browse bool, o *Options, catalog bool) error {
	in := New(describeTarget(&a.Global.Target), o)
	in.app = a
	defer in.Close()
	if err := in.loadChecks(); err != nil {
		return app.Failure(err)
	}
	if catalog {
		if err := in.loadCatalog(); err != nil {
			return app.Failure(err)
		}
		in.mu.Lock()
		in.st.Status, in.st.Server.Target = "catalog", ""
		in.mu.Unlock()
		in.publish()
	} else {
		dctx := ctx
		if a.Global.Timeout > 0 {
			var cancel context.CancelFunc
			dctx, cancel = context.WithTimeout(ctx, a.Global.Timeout)
			defer cancel()
		}
		if err := in.open(dctx, &a.Global.Target, a.Logger()); err != nil {
			return err
		}
	}

	token := newToken()
	h, err := newHandler(in, ln.Addr().String(), token)
	if err != nil {
		return app.Failure(err)
	}
	apps, err := startApps(h, ln.Addr()) // the Apps host's sandbox (apps.go)
	if err != nil {
		return app.Failure(err)
	}
	defer apps.stop()
	page := (&url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/", RawQuery: tokenParam + "=" + token}).String()
	fmt.Fprintln(a.Stdout, page)
	if f, ok := a.Stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	in.mu.Lock()
	sess, cat := in.sess, in.st.Catalog
	in.mu.Unlock()
	if sess != nil {
		info := sess.ServerInfo()
		fmt.Fprintf(a.Stderr, "mcpwire: inspecting %s %s (protocol %s); interrupt (Ctrl-C) to stop\n", info.Name, info.Version, sess.ProtocolVersion())
	} else {
		fmt.Fprintf(a.Stderr, "mcpwire: %d servers in the hosts' configuration files: choose one in the page; interrupt (Ctrl-C) to stop\n", len(cat.Servers))
	}

	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10, IdleTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if browse {
		if err := a.Browser()(ctx, page); err != nil {
			fmt.Fprintf(a.Stderr, "mcpwire: cannot open a browser (%v); open the URL above\n", err)
		}
	}
	select {
	case err := <-served:
		return app.Failure(err)
	case <-ctx.Done():
	}
	in.Close() // ends the event streams, so that Shutdown finds the connections idle
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	srv.Close()
	<-served
	return nil
}

// teeObserver returns an observer that hands each frame to a, if not
// nil, then to b.
func teeObserver(a, b transport.Observer) transport.Observer {
	if a == nil {
		return b
	}
	return transport.ObserverFunc(func(f *transport.Frame) {
		a.ObserveFrame(f)
		b.ObserveFrame(f)
	})
}

// describeTarget says which server t names, for the page: @NAME for a
// configured server (whose command may hold secrets), the URL, or the
// command.
func describeTarget(t *app.Target) string {
	switch {
	case t.Config != nil:
		return "@" + t.Config.Name
	case t.URL != "":
		return t.URL
	}
	return strings.Join(t.Command, " ")
}

// clientCaps returns the capabilities a client of the options o
// declares.
func clientCaps(o *client.Options) mcp.ClientCapabilities {
	return client.New(mcp.Implementation{}, o).Capabilities()
}
