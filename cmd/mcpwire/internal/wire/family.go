package wire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
)

// Family returns the verbs of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups: []cobra.Group{{ID: groupWire, Title: "Seeing the wire:"}},
		Commands: func(a *app.App) []*cobra.Command {
			return []*cobra.Command{newTapCmd(a), newReplayCmd(a), newVerifyCmd(a)}
		},
	}
}

const groupWire = "wire"

const tapLong = `mcpwire tap sits between an MCP client and a server, passes every frame
unchanged, shows each one on stderr as it goes, and records them.

Over stdio, tap starts the server command given after -- and speaks stdio
itself, so it can replace the server's command in any host's
configuration: every line the client writes reaches the server unchanged,
and every line the server writes reaches the client unchanged, including
lines that are not JSON-RPC. The server's stderr passes to tap's. tap ends
when the server does, with the server's exit status.

Over HTTP, tap --listen ADDR --upstream URL serves the upstream's endpoint
at the same path on its own address, and every other path too (OAuth
metadata, the legacy transport's message endpoint): requests go on with
their headers unchanged (Authorization included), answers come back
unchanged, SSE streams event by event as they arrive. Both protocol eras,
and the legacy HTTP+SSE transport. A request's body is read whole before
it goes on, 16 MiB at most, within 30 seconds: a larger one gets 413, a
slower one 408, and its connection is closed. A connection waits 2 minutes
at most for its next request.

--record FILE writes the frames as JSON Lines, one object per frame:
"time", "from" ("client" or "server"), "message" (the frame exactly as on
the wire; "raw", a string, for a frame that is not JSON), and "transport",
"session", "status" (HTTP), "method" (for a response, its request's),
"latency_ms" (responses) and "error" (why a frame is not valid JSON-RPC)
when they apply. jq reads it; mcpwire replay plays it back.`

const tapExample = `  mcpwire tap --record session.jsonl -- npx -y @modelcontextprotocol/server-everything
  mcpwire tap --record session.jsonl --listen 127.0.0.1:4000 --upstream http://127.0.0.1:3000/mcp
  jq -c 'select(.from=="server" and .method=="tools/call") | .message.result' session.jsonl`

// newTapCmd returns the command "mcpwire tap".
func newTapCmd(a *app.App) *cobra.Command {
	var o struct {
		record, listen, upstream string
		quiet                    bool
	}
	cmd := &cobra.Command{
		Use:     "tap [--record FILE] [--quiet] (-- COMMAND [ARG...] | --listen ADDR --upstream URL)",
		Short:   "Record every frame between a client and a server, passing them unchanged",
		Long:    tapLong,
		Example: tapExample,
		GroupID: groupWire,
		RunE: func(cmd *cobra.Command, args []string) error {
			server := args
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash > 0 {
					return app.UsageErrorf("unexpected argument %q (usage: %s)", args[0], cmd.UseLine())
				}
				server = args[dash:]
			} else if len(args) > 0 {
				return app.UsageErrorf("unexpected argument %q: name the server after --, as in: mcpwire tap -- %s", args[0], strings.Join(args, " "))
			}
			for _, f := range []string{"url", "header", "protocol", "json", "server", "config"} {
				if cmd.Flags().Changed(f) {
					return app.UsageErrorf("tap takes no --%s: name the server after --, or with --upstream", f)
				}
			}
			switch {
			case len(server) > 0 && (o.listen != "" || o.upstream != ""):
				return app.UsageErrorf("name the server either after -- (stdio) or with --listen and --upstream (HTTP), not both")
			case len(server) == 0 && (o.listen == "") != (o.upstream == ""):
				return app.UsageErrorf("an HTTP tap needs both --listen ADDR and --upstream URL")
			case len(server) == 0 && o.listen == "":
				return app.UsageErrorf("no server given: name its command after -- (stdio), or --listen ADDR --upstream URL (HTTP)")
			}
			rec, closeRec, err := recorder(a, o.record, o.quiet)
			if err != nil {
				return err
			}
			defer closeRec()
			if len(server) > 0 {
				return tapStdio(cmd.Context(), a, server, rec)
			}
			return tapHTTP(cmd.Context(), a, o.listen, o.upstream, rec)
		},
	}
	fs := cmd.Flags()
	fs.Var(app.NamedString(&o.record, "FILE"), "record", "write every frame to FILE as JSON Lines (created, or truncated)")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "do not show the frames on stderr")
	fs.Var(app.NamedString(&o.listen, "ADDR"), "listen", "HTTP: serve on this address, such as 127.0.0.1:4000")
	fs.Var(app.NamedString(&o.upstream, "URL"), "upstream", "HTTP: the server's endpoint, such as http://127.0.0.1:3000/mcp")
	return cmd
}

// recorder returns where a tap's records go: the file of --record and the
// live view on stderr (unless quiet), and what closes the file.
func recorder(a *app.App, file string, quiet bool) (func(*frames.Record), func() error, error) {
	var sinks []func(*frames.Record)
	closeFile := func() error { return nil }
	if file != "" {
		f, err := os.Create(file)
		if err != nil {
			return nil, nil, app.Failure(fmt.Errorf("--record: %w", app.UnwrapPathError(err)))
		}
		w := frames.NewWriter(f)
		sinks = append(sinks, func(r *frames.Record) {
			if err := w.Write(r); err != nil {
				fmt.Fprintf(a.Stderr, "mcpwire: writing %s: %v\n", file, err)
			}
		})
		closeFile = f.Close
	}
	if !quiet {
		p := &frames.Printer{W: a.Stderr}
		if a.IsTerminal(a.Stderr) {
			p.Clip, p.Color = 400, a.Getenv("NO_COLOR") == ""
		}
		sinks = append(sinks, p.Print)
	}
	return func(r *frames.Record) {
		for _, s := range sinks {
			s(r)
		}
	}, closeFile, nil
}

// tapStdio runs the stdio tap; its exit status is the server's.
func tapStdio(ctx context.Context, a *app.App, server []string, rec func(*frames.Record)) error {
	t := &StdioTap{
		Cmd:    exec.Command(server[0], server[1:]...),
		Stdin:  a.Stdin,
		Stdout: a.Stdout,
		Stderr: a.Stderr,
		Record: rec,
	}
	err := t.Run(ctx)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		if code := ee.ExitCode(); code > 0 {
			return &app.ExitError{Code: code} // the server's own status; it said why
		}
		return app.Failure(fmt.Errorf("the server %s", ee.ProcessState))
	case ctx.Err() != nil:
		return nil // interrupted: the server was stopped
	}
	var pe *os.PathError
	var xe *exec.Error
	if errors.As(err, &xe) || errors.As(err, &pe) {
		return app.ConnectErrorf("cannot start the server %q: %v", server[0], app.UnwrapPathError(err))
	}
	return app.Failure(err)
}

// tapHTTP serves the HTTP tap until ctx ends.
func tapHTTP(ctx context.Context, a *app.App, listen, upstream string, rec func(*frames.Record)) error {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return app.UsageErrorf("--upstream %q: want an http or https URL", upstream)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return app.Failure(fmt.Errorf("--listen: %w", err))
	}
	endpoint := (&url.URL{Scheme: "http", Host: ln.Addr().String(), Path: u.Path, RawQuery: u.RawQuery}).String()
	fmt.Fprintf(a.Stdout, "%s\n", endpoint)
	if f, ok := a.Stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	log := a.Logger() // --verbose: every error
	if log == nil {
		log = slog.New(slog.NewTextHandler(a.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: dropTime}))
	}
	srv := newTapServer(&HTTPTap{Upstream: u, Record: rec, Logger: log})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return app.Failure(err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		srv.Close()
		<-done
		return nil
	}
}

// dropTime leaves the time out of the tap's warnings, which stderr shows
// among the frames (each with its time).
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

const replayLong = `mcpwire replay plays the client's side of a recording (made by mcpwire tap,
--trace=jsonl, or mcpwire inspect) to a server and compares its answers
with the recorded ones: a regression test made from a real session.

The client's frames are sent in the recorded order, each request waiting
for its response; requests the server makes meanwhile (sampling,
elicitation, roots) are answered with the client's recorded answers to
the same method, in order. A response is compared with the recorded one
ignoring the JSON-RPC id, every "_meta" member, strings that are RFC 3339
timestamps, the values of "requestState" and "taskId" (new on every run:
the live ones are used in the requests that follow) and the order of
object members. Everything else must be equal.

Exit status 0 when every response is the same, 1 when one differs (the
differences are printed, path by path).`

const replayExample = `  mcpwire replay session.jsonl -- npx -y @modelcontextprotocol/server-everything
  mcpwire replay session.jsonl --url http://127.0.0.1:3000/mcp --trace`

// newReplayCmd returns the command "mcpwire replay".
func newReplayCmd(a *app.App) *cobra.Command {
	var perResponse time.Duration
	cmd := &cobra.Command{
		Use:               "replay FILE (@NAME | --url URL | -- COMMAND [ARG...])",
		Short:             "Play a recording to a server and show what it answers differently",
		Long:              replayLong,
		Example:           replayExample,
		GroupID:           groupWire,
		Args:              app.ServerArgs("FILE"),
		ValidArgsFunction: a.CompleteArgs(1),
		RunE: a.RunE(func(cmd *cobra.Command, pos []string) error {
			f, err := os.Open(pos[0])
			if err != nil {
				return app.Failure(app.UnwrapPathError(err))
			}
			recs, err := frames.Read(f)
			f.Close()
			if err != nil {
				return app.Failure(fmt.Errorf("%s: %w", pos[0], err))
			}
			return replayTo(cmd.Context(), a, recs, perResponse)
		}),
	}
	cmd.Flags().DurationVar(&perResponse, "response-timeout", 30*time.Second, "how long to wait for each response")
	return cmd
}

// replayTo replays recs to the server of the global flags.
func replayTo(ctx context.Context, a *app.App, recs []frames.Record, perResponse time.Duration) error {
	if a.Global.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.Global.Timeout)
		defer cancel()
	}
	link, err := a.Connect(ctx, &a.Global.Target, a.Logger())
	if err != nil {
		return app.WithCode(err, app.ExitConnect)
	}
	conn, err := link.Transport.Connect(ctx)
	if err != nil {
		return app.ConnectErrorf("cannot connect to the server: %v", err)
	}
	rp := &Replay{Records: recs, Conn: conn, Timeout: perResponse}
	diffs, err := rp.Run(ctx)
	if err != nil {
		return app.Failure(err)
	}
	if Report(a.Stdout, recs, diffs) {
		return &app.ExitError{Code: app.ExitFailure}
	}
	n := 0
	for i := range recs {
		if recs[i].From == frames.FromClient {
			n++
		}
	}
	fmt.Fprintf(a.Stdout, "the server answered as recorded (%d client frames replayed)\n", n)
	return nil
}
