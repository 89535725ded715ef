package doctor

import (
	"context"
	"net/http"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Family returns the verb of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupDoctor, Title: "Diagnosing a server:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newDoctorCmd(a)} },
	}
}

const groupDoctor = "doctor"

const doctorLong = `mcpwire doctor tries each step of connecting to a server on its own, and
prints a checklist of what it tried and what happened, and the one next
step to take.

For a command (after --, or @NAME of a host's configuration): whether the
process starts, then server/discover (protocol 2026-07-28) and initialize
(2025-11-25), each on a new process: the server's answer, or its exit
status and the last lines of its stderr, or the line it printed on
stdout that is not JSON-RPC.

For a URL (--url, or @NAME): the name (DNS), the TCP connection, TLS for
https, then the same two probes over Streamable HTTP with each HTTP
exchange (status, content type, headers: Authorization, cookies and
tokens masked), the legacy HTTP+SSE transport when both fail, and OAuth
discovery when the server answers 401 (its protected resource metadata,
its authorization server's metadata, and what is missing). The doctor
sends the --header headers, but never a stored token.

--probe-timeout bounds each probe; --timeout the whole. With --json the
report is one JSON object: {"server", "kind", "ok", "speaks", "steps":
[{"id", "title", "status" (ok, warn, fail, skip), "detail", "transport",
"protocol", "http", "stderr", "ms"}], "next"}.

The exit status is 0 when a connection could be made (warnings
included), 4 when none could.`

const doctorExample = `  mcpwire doctor -- npx -y @modelcontextprotocol/server-everything
  mcpwire doctor --url https://example.com/mcp --json
  mcpwire doctor @github`

// newDoctorCmd returns the command "mcpwire doctor".
func newDoctorCmd(a *app.App) *cobra.Command {
	var probe time.Duration
	cmd := &cobra.Command{
		Use:               "doctor (@NAME | --url URL | -- COMMAND [ARG...])",
		Short:             "Diagnose a server that cannot be reached or misbehaves: a checklist and the next step",
		Long:              doctorLong,
		Example:           doctorExample,
		GroupID:           groupDoctor,
		Args:              app.ServerArgs(),
		ValidArgsFunction: a.CompleteArgs(0),
		RunE: a.RunE(func(cmd *cobra.Command, _ []string) error {
			if probe < 0 || probe > time.Hour {
				return app.UsageErrorf("--probe-timeout %v: want a duration from 1ms to 1h", probe)
			}
			ctx := cmd.Context()
			if a.Global.Timeout > 0 {
				var cancel func()
				ctx, cancel = context.WithTimeout(ctx, a.Global.Timeout)
				defer cancel()
			}
			r := Run(ctx, TargetOf(&a.Global.Target), &Options{ProbeTimeout: probe})
			var err error
			if a.Global.JSON {
				err = app.WriteJSON(a.Stdout, r)
			} else {
				err = r.Write(a.Stdout)
			}
			if err != nil {
				return err
			}
			if !r.OK {
				return &app.ExitError{Code: app.ExitConnect} // the report says why
			}
			return nil
		}),
	}
	cmd.Flags().DurationVar(&probe, "probe-timeout", DefaultProbeTimeout, "bound each probe (an answer of the server, a network step)")
	return cmd
}

// TargetOf returns the doctor's target for the server t names.
func TargetOf(t *app.Target) *Target {
	d := &Target{Name: t.Name()}
	if t.URL == "" {
		d.NewCmd = func() *exec.Cmd { return t.Cmd() }
		return d
	}
	d.URL, d.Header, d.Login = t.URL, make(http.Header), "--url "+t.URL
	if t.Config != nil {
		d.Login, d.Secret = "@"+t.Config.Name, make(map[string]bool)
	}
	for _, h := range t.Headers {
		d.Header.Add(h.Key, h.Value)
		if d.Secret != nil {
			d.Secret[http.CanonicalHeaderKey(h.Key)] = true
		}
	}
	return d
}
