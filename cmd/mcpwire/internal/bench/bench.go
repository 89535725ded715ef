package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// maxToolPages bounds the pages of tools/list read to find the tool.
const maxToolPages = 100

// A loaded server is one server under load: its sessions and how to end them.
type loaded struct {
	target   *app.Target
	sessions []*client.Session
	ends     []func() error
	result   Result
}

// runBench runs mcpwire bench with the checked options o.
func runBench(ctx context.Context, a *app.App, o *options) error {
	targets := []*app.Target{&a.Global.Target}
	if o.compare != "" {
		t, err := a.ParseTarget("--compare", o.compare)
		if err != nil {
			return err
		}
		targets = append(targets, &t)
	}
	var servers []*loaded
	defer func() {
		for _, s := range servers {
			s.end()
		}
	}()
	for _, t := range targets {
		s, err := open(ctx, a, t, o)
		if s != nil {
			servers = append(servers, s)
		}
		if err != nil {
			return err
		}
	}

	prog := &Progress{}
	var bar *progressBar
	if a.IsTerminal(a.Stderr) {
		total := o.duration
		if o.count > 0 && o.duration == DefaultMaxDuration {
			total = 0
		}
		bar = startProgress(a.Stderr, prog, total*time.Duration(len(servers)), o.count*int64(len(servers)))
	}
	rounds := 1
	if len(servers) > 1 {
		rounds = o.rounds
	}
	var seq int64
	_, cpuKnown := processCPU()
	for round := range rounds {
		// A B, then B A: neither server always goes first.
		order := servers
		if round%2 == 1 {
			order = slices.Clone(servers)
			slices.Reverse(order)
		}
		for _, s := range order {
			p := o.plan(s, round, rounds, seq, prog)
			before, _ := processCPU()
			st := Run(ctx, p)
			after, _ := processCPU()
			s.result.Stats.Merge(st)
			s.result.GeneratorCPU += after - before
			seq += st.Calls
			if ctx.Err() != nil {
				break
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	bar.end()
	var endErrs []error
	for _, s := range servers {
		if !cpuKnown {
			s.result.GeneratorCPU = -1
		}
		if err := s.end(); err != nil {
			endErrs = append(endErrs, err)
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(a.Stderr, "mcpwire: interrupted; the report covers the calls made until then")
	}
	if err := report(a, o, servers); err != nil {
		return err
	}
	return verdict(servers, endErrs)
}

// open connects the sessions of the server t names, and checks that it
// has the tool. It returns the server, with the sessions it opened, even
// with an error, so that they are closed.
func open(ctx context.Context, a *app.App, t *app.Target, o *options) (*loaded, error) {
	cctx := ctx
	if a.Global.Timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, a.Global.Timeout)
		defer cancel()
	}
	s := &loaded{target: t, result: Result{Transport: describeTarget(t)}}
	for i := range o.sessions {
		sess, end, err := a.OpenSession(cctx, t)
		if err != nil {
			if i == 0 {
				return s, err
			}
			return s, app.WithCode(fmt.Errorf("session %d of %d: %w", i+1, o.sessions, err), app.ExitConnect)
		}
		s.sessions = append(s.sessions, sess)
		s.ends = append(s.ends, end)
		// Listing the tools teaches the session their output schemas,
		// which it checks results against.
		names, err := toolNames(cctx, sess)
		if err != nil {
			return s, app.Failure(fmt.Errorf("tools/list: %w", a.Describe(err)))
		}
		if i == 0 && !slices.Contains(names, o.tool) {
			return s, app.Failure(fmt.Errorf("the server %s has no tool %q; its tools: %s", t.Name(), o.tool, listNames(names)))
		}
	}
	first := s.sessions[0]
	info := first.ServerInfo()
	s.result.Server = strings.TrimSpace(info.Name + " " + info.Version)
	s.result.Protocol = string(first.ProtocolVersion())
	return s, nil
}

// end closes the server's sessions and returns how the server ended, if it
// ended badly; it is safe to call twice.
func (s *loaded) end() error {
	var errs []error
	for _, end := range s.ends {
		if err := end(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// toolNames returns the names of the server's tools.
func toolNames(ctx context.Context, sess *client.Session) ([]string, error) {
	var names []string
	var cursor mcp.Cursor
	for range maxToolPages {
		res, err := sess.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		var dropped client.DroppedTools
		if err != nil && !errors.As(err, &dropped) {
			return nil, err
		}
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	return names, nil
}

// listNames lists some names for a message.
func listNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) > 20 {
		return strings.Join(names[:20], ", ") + fmt.Sprintf(" and %d more", len(names)-20)
	}
	return strings.Join(names, ", ")
}

// describeTarget says how the server is reached, for the report.
func describeTarget(t *app.Target) string {
	switch {
	case t.Config != nil && t.URL != "":
		return "http: @" + t.Config.Name + " (" + t.URL + ")"
	case t.Config != nil:
		return "stdio: @" + t.Config.Name
	case t.URL != "":
		return "http: " + t.URL
	}
	return "stdio: " + strings.Join(t.Command, " ")
}

// plan returns the plan of one round on server s: a share of the calls or
// of the time.
func (o *options) plan(s *loaded, round, rounds int, seq int64, prog *Progress) *Plan {
	p := &Plan{
		Tool:        o.tool,
		Args:        o.tmpl,
		Concurrency: o.concurrency,
		Rate:        o.rate,
		CallTimeout: o.callTimeout,
		Seed:        o.seed ^ uint64(round)<<32,
		FirstSeq:    seq,
		Progress:    prog,
	}
	for _, sess := range s.sessions {
		p.Sessions = append(p.Sessions, sess)
	}
	if o.count > 0 {
		p.Count = o.count / int64(rounds)
		if int64(round) < o.count%int64(rounds) {
			p.Count++
		}
	}
	p.Duration = o.duration / time.Duration(rounds)
	return p
}

// report writes the report of the run.
func report(a *app.App, o *options, servers []*loaded) error {
	if a.Global.JSON {
		j := servers[0].result.toJSON(o)
		if len(servers) > 1 {
			j.Compare = servers[1].result.toJSON(o)
		}
		return app.WriteJSON(a.Stdout, j)
	}
	if len(servers) > 1 {
		writeCompare(a.Stdout, o, &servers[0].result, &servers[1].result)
		return nil
	}
	servers[0].result.writeText(a.Stdout, o)
	return nil
}

// verdict returns the exit status of a run: a failure when a server ended
// badly, lost a session, or answered no call.
func verdict(servers []*loaded, endErrs []error) error {
	if len(endErrs) > 0 {
		return app.Failure(errors.Join(endErrs...))
	}
	for _, s := range servers {
		st := &s.result.Stats
		switch {
		case st.LostSessions > 0:
			return app.Failure(fmt.Errorf("%s: %d session(s) ended during the run", s.target.Name(), st.LostSessions))
		case st.Calls > 0 && st.Errors == st.Calls:
			return app.Failure(fmt.Errorf("%s: every call failed", s.target.Name()))
		}
	}
	return nil
}
