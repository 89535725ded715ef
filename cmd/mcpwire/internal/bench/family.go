package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Family returns the verb of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupTesting, Title: "Testing servers:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newBenchCmd(a)} },
	}
}

// groupTesting is the help group of bench and check.
const groupTesting = "testing"

// Bounds of the load.
const (
	// DefaultDuration is how long a run lasts without -d or -n.
	DefaultDuration = 10 * time.Second
	// DefaultMaxDuration bounds a run of -n calls without -d.
	DefaultMaxDuration = 10 * time.Minute
	// DefaultCallTimeout bounds each call (--call-timeout).
	DefaultCallTimeout = 30 * time.Second
	// DefaultRounds is how many stretches each server of --compare gets.
	DefaultRounds = 10
	// maxSessions and maxConcurrency bound --sessions and -c.
	maxSessions    = 256
	maxConcurrency = 1024
	maxRounds      = 1000
)

// options are the flags of mcpwire bench, checked.
type options struct {
	tool        string
	args        string // --args as given
	tmpl        *Template
	concurrency int
	sessions    int
	duration    time.Duration // 0 when -n alone... see plan
	count       int64
	rate        float64
	callTimeout time.Duration
	compare     string
	rounds      int
	seed        uint64
	seedGiven   bool
}

// describeLoad says what load the options put, for the report.
func (o *options) describeLoad() string {
	s := fmt.Sprintf("tools/call %s, %d session", o.tool, o.sessions)
	if o.sessions != 1 {
		s += "s"
	}
	s += fmt.Sprintf(" × %d concurrent call", o.concurrency)
	if o.concurrency != 1 {
		s += "s"
	}
	if o.rate > 0 {
		s += fmt.Sprintf(", %s calls/s scheduled", formatRate(o.rate))
	} else {
		s += ", closed loop"
	}
	var bounds []string
	if o.count > 0 {
		bounds = append(bounds, thousands(o.count)+" calls")
	}
	if o.duration > 0 && (o.count == 0 || o.duration != DefaultMaxDuration) {
		bounds = append(bounds, o.duration.String())
	}
	return s + ", " + strings.Join(bounds, " or ")
}

const benchLong = `mcpwire bench loads a server with calls to one tool, through mcpwire's own
client, and reports how fast it answered: the calls per second, the
latency (minimum, p50, p90, p99, maximum, mean) with a histogram, and the
errors by kind (a JSON-RPC error code, a result with isError, a timeout,
a lost connection). On a terminal a progress bar shows the run as it goes.

--sessions S opens S sessions (S server processes for a command, S
connections for --url), and -c N makes N calls at once on each. Without
--rate each of the S × N workers calls again as soon as its call returns
(a closed loop). With --rate R the calls are due on a fixed schedule of R
per second over all workers, and each latency is measured from the time
its call was due, not from when a free worker sent it, so that a server
that stalls is charged for every call that waited (no coordinated
omission); calls that came due but found every worker busy are reported
as missed.

The run lasts -d DURATION (default 10s) or -n COUNT calls, whichever
comes first when both are given (-n alone is bounded by 10 minutes).
--timeout bounds starting and connecting to the servers; --call-timeout
bounds each call.

The arguments of --args may change on every call: their strings may hold
placeholders.
  {{seq}}          the call's number over the run: 0, 1, 2, ...
  {{session}}      the number of the session making the call, from 0
  {{rand A B}}     a random integer from A to B, both included
  {{randstr N}}    N random letters and digits
  {{choice a|b|c}} one of the words, at random
  {{uuid}}         a random UUID (version 4)
A string that is only {{seq}}, {{session}} or {{rand A B}} becomes a JSON
number: {"n": "{{rand 1 6}}"} sends {"n": 4}. Elsewhere a placeholder is
replaced inside the string: {"q": "user-{{seq}}"}. Write {{{{ for a
literal {{. Random values come from --seed: the same seed, the same
arguments.

--compare SERVER loads a second server with the same calls, in turns with
the first (--rounds turns each, A B then B A, so that both see the same
machine), and prints both side by side with the ratio B/A. SERVER is a
URL, @NAME, or a command line in quotes.

mcpwire measures its own CPU time while it loads (its process only, not
the server's) and reports it per call: the generator's cost, to tell
whether the server or the generator was the limit.

With --json, print one JSON object: tool, server, protocol, transport,
sessions, concurrency, rate, requests, errors, errors_by_kind, missed,
duration_s, rps, latency_ms {min, mean, p50, p90, p99, p999, max},
histogram [{le_ms, count}], generator {cpu_s, cpu_us_per_call, cores,
calls_per_cpu_s}, and with --compare the second server's report as
"compare".

Exit status 0 when the run is done, 1 when no call succeeded or a session
was lost, 4 when a server could not be started or reached.`

const benchExample = `  mcpwire bench --tool echo --args '{"message": "hi"}' -c 8 -d 10s -- npx -y @modelcontextprotocol/server-everything
  mcpwire bench --tool forecast --args '{"city": "Paris {{rand 1 1000}}"}' --rate 500 --sessions 4 -d 5s --url http://localhost:3000/mcp
  mcpwire bench --tool echo --args '{"message": "{{seq}}"}' -n 10000 --compare 'node old-server.js' -- node new-server.js
  mcpwire bench --tool get_weather --args @args.json --json @weather | jq .latency_ms.p99`

// newBenchCmd returns the command "mcpwire bench".
func newBenchCmd(a *app.App) *cobra.Command {
	o := &options{args: "{}"}
	var seed int64
	cmd := &cobra.Command{
		Use:               "bench --tool NAME [--args JSON] [-c N] [-d DURATION | -n COUNT] [--rate R] [--sessions S] (@NAME | --url URL | -- COMMAND [ARG...])",
		Short:             "Load a server with tool calls and measure its latency and throughput",
		Long:              benchLong,
		Example:           benchExample,
		GroupID:           groupTesting,
		Args:              app.ServerArgs(),
		ValidArgsFunction: a.CompleteArgs(0),
		RunE: a.RunE(func(cmd *cobra.Command, _ []string) error {
			if err := o.check(cmd, a, seed); err != nil {
				return err
			}
			return runBench(cmd.Context(), a, o)
		}),
	}
	fs := cmd.Flags()
	fs.Var(app.NamedString(&o.tool, "NAME"), "tool", "the tool to call (required)")
	fs.Var(app.NamedString(&o.args, "JSON"), "args", "the arguments, a JSON object with placeholders (see above): inline, @FILE, or - for standard input")
	fs.IntVarP(&o.concurrency, "concurrency", "c", 1, "calls at once on each session")
	fs.IntVar(&o.sessions, "sessions", 1, "sessions to open: server processes, or HTTP connections")
	fs.DurationVarP(&o.duration, "duration", "d", 0, "how long to load (default 10s, unless -n)")
	fs.Int64VarP(&o.count, "requests", "n", 0, "how many calls to make")
	fs.Float64Var(&o.rate, "rate", 0, "calls per second over all sessions, on a fixed schedule (default: as fast as the server answers)")
	fs.DurationVar(&o.callTimeout, "call-timeout", DefaultCallTimeout, "bound each call (0 for no bound)")
	fs.Var(app.NamedString(&o.compare, "SERVER"), "compare", "load this second server too, in turns, and compare: a URL, @NAME, or a command line")
	fs.IntVar(&o.rounds, "rounds", DefaultRounds, "with --compare, the turns each server gets")
	fs.Int64Var(&seed, "seed", 0, "the seed of the random values of --args (default: a new one each run)")
	return cmd
}

// check checks the flags and compiles --args.
func (o *options) check(cmd *cobra.Command, a *app.App, seed int64) error {
	switch {
	case o.tool == "":
		return app.UsageErrorf("name the tool to call with --tool NAME")
	case o.concurrency < 1 || o.concurrency > maxConcurrency:
		return app.UsageErrorf("-c %d: want from 1 to %d calls at once per session", o.concurrency, maxConcurrency)
	case o.sessions < 1 || o.sessions > maxSessions:
		return app.UsageErrorf("--sessions %d: want from 1 to %d", o.sessions, maxSessions)
	case o.duration < 0:
		return app.UsageErrorf("-d %s: want a positive duration", o.duration)
	case o.count < 0:
		return app.UsageErrorf("-n %d: want a positive count", o.count)
	case o.rate < 0:
		return app.UsageErrorf("--rate %g: want a positive rate (calls per second)", o.rate)
	case o.callTimeout < 0:
		return app.UsageErrorf("--call-timeout must not be negative")
	case o.rounds < 1 || o.rounds > maxRounds:
		return app.UsageErrorf("--rounds %d: want from 1 to %d", o.rounds, maxRounds)
	case cmd.Flags().Changed("rounds") && o.compare == "":
		return app.UsageErrorf("--rounds is for --compare")
	case o.count > 0 && o.count < int64(o.rounds) && o.compare != "":
		return app.UsageErrorf("-n %d: with --compare, want at least one call per round (--rounds %d)", o.count, o.rounds)
	}
	switch {
	case o.duration == 0 && o.count == 0:
		o.duration = DefaultDuration
	case o.duration == 0:
		o.duration = DefaultMaxDuration
	}
	if cmd.Flags().Changed("seed") {
		o.seed, o.seedGiven = uint64(seed), true
	} else {
		o.seed = rand.Uint64()
	}
	raw, err := app.ReadArgs(o.args, a.Stdin)
	if err != nil {
		return err
	}
	if o.tmpl, err = CompileTemplate(raw); err != nil {
		return app.UsageErrorf("--args: %v", err)
	}
	return nil
}
