package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/diff"
	"github.com/mcpwire/mcpwire/mcp"
)

// Reconnect: the person asks for a new session to the same server (a
// stdio server is started again), and the page shows what changed
// between the two: capabilities, instructions, tools, resources,
// templates and prompts (package diff).

// The bounds of what the state keeps of a reconnection's changes: the
// server's lists make the list as long as they like, and the state goes
// to the pages with every change.
const (
	maxChanges     = 500  // changes kept; the others are counted (More)
	maxChangeValue = 2048 // bytes of a value quoted (Before, After)
)

// reconnectDiff is what changed at the last reconnection.
type reconnectDiff struct {
	Time    time.Time     `json:"time"`
	Changes []diff.Change `json:"changes"`
	More    int           `json:"more,omitempty"` // changes beyond maxChanges, not kept
}

// newReconnectDiff keeps changes within the bounds.
func newReconnectDiff(changes []diff.Change) *reconnectDiff {
	d := &reconnectDiff{Time: time.Now().UTC(), Changes: []diff.Change{}}
	if len(changes) > maxChanges {
		d.More = len(changes) - maxChanges
		changes = changes[:maxChanges]
	}
	for _, c := range changes {
		c.Before, c.After = clipValue(c.Before), clipValue(c.After)
		d.Changes = append(d.Changes, c)
	}
	return d
}

// clipValue shortens s to maxChangeValue bytes, on a character's
// boundary, marking the cut.
func clipValue(s string) string {
	n := maxChangeValue
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// snapshot returns what the state shows of the server, for package diff.
func snapshot(st *pageState) *diff.Snapshot {
	caps, _ := json.Marshal(st.Server.Capabilities)
	return &diff.Snapshot{
		Server:       st.Server.Info.Name + " " + st.Server.Info.Version,
		Protocol:     string(st.Server.Protocol),
		Capabilities: caps,
		Instructions: st.Server.Instructions,
		Tools:        diff.Items(st.Tools, func(t *mcp.Tool) string { return t.Name }),
		Resources:    diff.Items(st.Resources, func(r *mcp.Resource) string { return r.URI }),
		Templates:    diff.Items(st.Templates, func(t *mcp.ResourceTemplate) string { return t.URITemplate }),
		Prompts:      diff.Items(st.Prompts, func(p *mcp.Prompt) string { return p.Name }),
	}
}

// reconnect opens a new session to the server of the current one, and
// records what changed. The page's request does not bound it.
func (in *Inspector) reconnect(_ context.Context, _ *noArgs) (*outcome, error) {
	t := in.current()
	if t == nil {
		return nil, errors.New("no server to reconnect to")
	}
	before := in.snapshotLists()
	start := time.Now()
	octx, cancel := in.openContext()
	defer cancel()
	if err := in.open(octx, t, in.logger()); errors.Is(err, errOpening) {
		return nil, err
	} else if err != nil {
		in.note("reconnecting to " + describeTarget(t) + " failed (the session open before goes on): " + describe(err).Message)
		return &outcome{Error: describe(err), MS: msSince(start)}, nil
	}
	after := in.snapshotLists()
	d := newReconnectDiff(diff.Compare(snapshot(&before), snapshot(&after)))
	in.mu.Lock()
	in.st.Changes = d
	in.mu.Unlock()
	in.publish()
	in.note("reconnected to " + describeTarget(t))
	return &outcome{Result: d, MS: msSince(start)}, nil
}

// msSince returns the milliseconds since start.
func msSince(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }

// logger returns the logger of the app's --verbose, or nil.
func (in *Inspector) logger() *slog.Logger {
	if in.app == nil {
		return nil
	}
	return in.app.Logger()
}
