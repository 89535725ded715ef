package inspect

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
)

// The inspector opens its sessions itself: the first, a new one when the
// person reconnects (reconnect.go), and one to each server of the
// catalog the person chooses (catalog.go). Each session is watched by a
// goroutine of the inspector, which reports its end, unless a newer
// session has replaced it.

// A link is an open session and what opened it.
type link struct {
	target    *app.Target
	sess      *client.Session
	end       func() error // closes the session (app.OpenSessionWith's end)
	transport string       // of its first frame; in.mu guards it
}

// errOpening refuses a connection while another is being made (a
// second tab's Reconnect, a server of the catalog chosen meanwhile).
var errOpening = errors.New("a connection to the server is being made already: wait for it to end")

// open connects to the server t names (its frames, HTTP exchanges and
// stderr go into the journal); once the new session is made, it takes
// the place of the one open before, which is then closed. While it
// connects, the session open before goes on (the state says what is
// being connected to); if connecting fails, it stays. One connection is
// made at a time (errOpening). ctx bounds connecting and the first
// listing: not a page's request, which a reload ends (openContext).
func (in *Inspector) open(ctx context.Context, t *app.Target, log *slog.Logger) error {
	if in.app == nil {
		return errors.New("this inspector cannot open sessions")
	}
	in.mu.Lock()
	if in.opening {
		in.mu.Unlock()
		return errOpening
	}
	in.opening = true
	in.st.Connecting = describeTarget(t)
	in.mu.Unlock()
	in.publish()
	defer func() {
		in.mu.Lock()
		in.opening, in.st.Connecting = false, ""
		in.mu.Unlock()
		in.publish()
	}()
	lk := &link{target: t}
	tt := *t
	tt.Observer = teeObserver(t.Observer, in.observer(func(tr string) {
		in.mu.Lock()
		defer in.mu.Unlock()
		lk.transport = tr
		if in.cur == lk {
			in.st.Server.Transport = tr
		}
	}))
	tt.WrapHTTP = in.net.wrap(t)
	copts := in.ClientOptions()
	sess, end, err := in.app.OpenSessionWith(ctx, &tt, copts, in.StderrLogger(log))
	if err != nil {
		in.mu.Lock()
		first := in.cur == nil && in.st.Status == "connecting"
		in.mu.Unlock()
		if first {
			in.End(err) // mcpwire inspect -- CMD: there is nothing to go on with
		}
		return err
	}
	in.mu.Lock()
	old, oldListen := in.cur, in.listen
	in.gen++ // the end of the session open before is not news
	gen := in.gen
	lk.sess, lk.end = sess, end
	in.cur, in.listen, in.sess = lk, nil, nil
	in.st.Server = serverState{Target: describeTarget(t), Transport: lk.transport}
	in.st.Status, in.st.Ended, in.st.ListErrors, in.st.Listening = "connecting", "", nil, ""
	in.st.Tools, in.st.Resources, in.st.Templates, in.st.Prompts = []mcp.Tool{}, []mcp.Resource{}, []mcp.ResourceTemplate{}, []mcp.Prompt{}
	in.st.Subscriptions, in.st.LogLevel = []string{}, ""
	in.mu.Unlock()
	if oldListen != nil {
		oldListen.Close()
	}
	in.Attach(ctx, sess, clientCaps(copts))
	if old != nil {
		in.wg.Add(1)
		go func() { // a process may take a moment to exit: the page need not wait
			defer in.wg.Done()
			old.end()
		}()
	}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		<-sess.Done()
		why := end()
		in.mu.Lock()
		current := in.gen == gen
		in.mu.Unlock()
		if !current {
			return
		}
		if why == nil {
			why = errors.New("the server closed the connection")
		}
		in.End(why)
		if in.app != nil {
			in.app.Stderr.Write([]byte("mcpwire: " + why.Error() + "; the page stays until you interrupt mcpwire\n"))
		}
	}()
	return nil
}

// openContext returns the context of a connection the page asked for:
// bounded by --timeout (or the request timeout) and the inspector's
// life, not by the page's request, which a reload or a closed tab ends.
func (in *Inspector) openContext() (context.Context, context.CancelFunc) {
	d := in.opts.RequestTimeout
	if in.app != nil && in.app.Global.Timeout > 0 {
		d = in.app.Global.Timeout
	}
	return context.WithTimeout(in.base, d)
}

// current returns the target of the session open, or nil.
func (in *Inspector) current() *app.Target {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cur == nil {
		return nil
	}
	return in.cur.target
}

// snapshotLists returns copies of the lists of the state.
func (in *Inspector) snapshotLists() pageState {
	in.mu.Lock()
	defer in.mu.Unlock()
	st := in.st
	st.Tools, st.Resources, st.Templates, st.Prompts = slices.Clone(st.Tools), slices.Clone(st.Resources), slices.Clone(st.Templates), slices.Clone(st.Prompts)
	return st
}
