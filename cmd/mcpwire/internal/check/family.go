package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Family returns the verb of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupTesting, Title: "Testing servers:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newCheckCmd(a)} },
	}
}

// groupTesting is the help group of bench and check.
const groupTesting = "testing"

// Bounds of a check.
const (
	// DefaultResponseTimeout bounds the wait for each answer
	// (--response-timeout).
	DefaultResponseTimeout = 10 * time.Second
	// DefaultTimeout bounds the whole check when --timeout is not given:
	// the check starts the server several times.
	DefaultTimeout = 2 * time.Minute
)

// options are the flags of mcpwire check.
type options struct {
	calls        []toolCall
	callReadOnly bool
	junit        string
	timeout      time.Duration // the wait for each answer
	total        time.Duration // --timeout: the bound of the whole check
}

const checkLong = `mcpwire check checks that a server follows the Model Context Protocol,
without Node: it speaks to it as a client would, and as no good client
would, and prints pass, warn or fail for each check with the section of
the specification it comes from, and under a warning or a failure what
was seen and the last frames exchanged.

It checks the legacy revisions (initialize, 2025-11-25) and the stateless
one (2026-07-28), each on connections of its own (a server started for
each, after --), unless --protocol names one: the handshake and version
negotiation, ping, JSON-RPC strictness (a frame that is not JSON, JSON
that is not a request, "jsonrpc": "1.0", an unknown method, params of the
wrong type: the right error codes, and the connection still usable
afterwards), every tool's input and output schema (valid JSON Schema, of
type object), pagination (cursors followed to the end, loops, cursors
the server never gave), resources, templates (RFC 6570), prompts and
their arguments, list_changed notifications only when declared, and
subscriptions/listen. Over HTTP it checks the headers: MCP-Protocol-
Version, Mcp-Session-Id, Origin, and those of 2026-07-28 (Mcp-Method,
Mcp-Name, 404 for an unknown method). --url A --url B checks that two
instances of a stateless server answer alike, and page each other's
cursors.

A server that speaks only one era gets the other's checks skipped, not
failed. A warning is a SHOULD of the specification, or a rule that most
servers break without harm to clients (an unknown tool answered with
isError, -32603 for invalid params); a failure breaks a MUST.

check never calls a tool unless asked: --call TOOL=ARGS calls TOOL with
the JSON object ARGS (repeatable; ARGS may be @FILE), and --call-read-
only calls, with no arguments, every tool that declares readOnlyHint true
and openWorldHint false and requires no argument. Annotations are hints
the server gives about itself, which a client must not trust from a
server it does not know: check, which is what you point at such
servers, trusts them only when you say so. A called tool's result is
checked: content blocks, and structuredContent against the outputSchema.

--timeout bounds the whole check: 2 minutes by default, since a server
after -- is started several times. --response-timeout bounds each
answer.

Exit status 0 when no check fails, 1 when one does, 4 when the server
cannot be started or reached, or does not speak JSON-RPC (a program that
prints text: mcpwire says what it printed). --json prints the report as one JSON
object; --junit FILE writes it as JUnit XML as well.`

const checkExample = `  mcpwire check -- npx -y @modelcontextprotocol/server-everything
  mcpwire check --url http://localhost:3000/mcp --junit check.xml
  mcpwire check --url http://10.0.0.1/mcp --url http://10.0.0.2/mcp --protocol 2026-07-28
  mcpwire check --call 'get-sum={"a": 1, "b": 2}' --call-read-only @everything`

// newCheckCmd returns the command "mcpwire check".
func newCheckCmd(a *app.App) *cobra.Command {
	o := &options{}
	var calls []string
	cmd := &cobra.Command{
		Use:               "check [--call TOOL=ARGS]... [--call-read-only] [--junit FILE] (@NAME | --url URL [--url URL] | -- COMMAND [ARG...])",
		Short:             "Check that a server follows the protocol, in both eras",
		Long:              checkLong,
		Example:           checkExample,
		GroupID:           groupTesting,
		Annotations:       map[string]string{app.ManyURLs: "check"},
		Args:              app.ServerArgs(),
		ValidArgsFunction: a.CompleteArgs(0),
		RunE: a.RunE(func(cmd *cobra.Command, _ []string) error {
			if err := o.parseCalls(calls, a); err != nil {
				return err
			}
			switch {
			case len(a.Global.URLs) > 2:
				return app.UsageErrorf("give --url once, or twice to compare two instances")
			case o.timeout <= 0:
				return app.UsageErrorf("--response-timeout must be positive")
			case o.total < 0:
				return app.UsageErrorf("--timeout must not be negative, got %s", o.total)
			}
			a.Global.Timeout = o.total
			return runCheck(cmd.Context(), a, o)
		}),
	}
	fs := cmd.Flags()
	fs.Var(app.NamedStrings(&calls, "TOOL=ARGS"), "call", "call TOOL with the JSON object ARGS (or @FILE) and check its result (repeatable)")
	fs.BoolVar(&o.callReadOnly, "call-read-only", false, "call, without arguments, the tools annotated read-only and closed-world that need none")
	fs.Var(app.NamedString(&o.junit, "FILE"), "junit", "write the report as JUnit XML to FILE too")
	fs.DurationVar(&o.timeout, "response-timeout", DefaultResponseTimeout, "how long to wait for each answer")
	// check's own --timeout, in place of the global flag, whose default
	// (30s) the help would show.
	fs.DurationVar(&o.total, "timeout", DefaultTimeout, "bound the whole check, the servers' starts included (0 for no bound)")
	return cmd
}

// parseCalls parses the values of --call.
func (o *options) parseCalls(calls []string, a *app.App) error {
	for _, c := range calls {
		name, args, ok := strings.Cut(c, "=")
		if !ok {
			args = "{}"
		}
		if name = strings.TrimSpace(name); name == "" {
			return app.UsageErrorf("--call %q: want TOOL=ARGS, as in --call 'search={\"q\": \"mcp\"}'", c)
		}
		raw, err := app.ReadArgs(args, a.Stdin)
		var pe *app.PairsError
		switch {
		case errors.As(err, &pe):
			return app.UsageErrorf("--call %s: the arguments are a JSON object, not %s: --call %s", name, pe.Given, app.ShellQuote(name+"="+pe.Object))
		case err != nil:
			return app.UsageErrorf("--call %s: %s", name, strings.TrimPrefix(app.Message(err), "--args: "))
		}
		o.calls = append(o.calls, toolCall{name: name, args: json.RawMessage(raw)})
	}
	return nil
}

// runCheck checks the server of the global flags and reports.
func runCheck(ctx context.Context, a *app.App, o *options) error {
	if a.Global.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.Global.Timeout)
		defer cancel()
	}
	c := &checker{a: a, o: o, rec: &recorder{trace: a.Global.Target.Observer}}
	if a.Global.Verbose {
		c.logw = a.Stderr
	}
	defer func() {
		for _, release := range c.releases {
			release()
		}
	}()
	t := &a.Global.Target
	rep := &Report{Server: t.Name(), Transport: "stdio"}
	url := ""
	if len(a.Global.URLs) > 0 {
		url = a.Global.URLs[0]
	}
	if t.URL != "" {
		url = t.URL
		rep.Transport = "http"
		if len(a.Global.URLs) == 2 {
			rep.Server += " and " + a.Global.URLs[1]
		}
	}
	err := c.run(ctx, url)
	if err == nil && len(a.Global.URLs) == 2 {
		c.checkInstances(ctx, a.Global.URLs)
	}
	if ctx.Err() != nil {
		return app.Failure(fmt.Errorf("the check did not finish within %s (see --timeout)", a.Global.Timeout))
	}
	if err != nil {
		return err
	}
	rep.Results = c.results
	if o.junit != "" {
		f, err := os.Create(o.junit)
		if err != nil {
			return app.Failure(fmt.Errorf("--junit: %w", app.UnwrapPathError(err)))
		}
		werr := rep.writeJUnit(f)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return app.Failure(fmt.Errorf("--junit: %w", werr))
		}
	}
	if a.Global.JSON {
		if err := rep.writeJSON(a.Stdout); err != nil {
			return app.Failure(err)
		}
	} else {
		rep.writeText(a.Stdout, a.IsTerminal(a.Stdout) && a.Getenv("NO_COLOR") == "")
	}
	if rep.Failed() {
		var failed []string
		for _, r := range rep.Results {
			if r.Status == Fail && len(failed) < maxListed {
				failed = append(failed, r.Check.ID)
			}
		}
		return app.Failure(fmt.Errorf("%d check(s) failed: %s", rep.Summary()[Fail], strings.Join(failed, ", ")))
	}
	return nil
}
