package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// The limits of an inspection, each the default of a field of Options.
const (
	// DefaultRequestTimeout bounds each request the page makes (a tool
	// call, a read...), the person's answers to the server's questions
	// included.
	DefaultRequestTimeout = 10 * time.Minute
	// DefaultAnswerTimeout bounds the wait for the person's answer to
	// one question of the server.
	DefaultAnswerTimeout = 5 * time.Minute
	// DefaultPageGrace is how long the questions wait when no page is
	// open (a reload, a closed tab) before they are abandoned.
	DefaultPageGrace = 15 * time.Second
	// DefaultMaxQuestions bounds the server's questions waiting at once.
	DefaultMaxQuestions = 16
	// DefaultMaxRunning bounds the page's requests running at once.
	DefaultMaxRunning = 32
	// DefaultMaxStreams bounds the event streams (open pages) served at
	// once.
	DefaultMaxStreams = 8
	// DefaultMaxJournal and DefaultMaxJournalBytes bound the journal
	// (frames, log messages, stderr, progress) that pages read and
	// Export writes: beyond, the oldest entries are dropped.
	DefaultMaxJournal      = 20000
	DefaultMaxJournalBytes = 64 << 20
	// DefaultMaxBody bounds the body of a request of the page (tool
	// arguments, an answer).
	DefaultMaxBody = 16 << 20
	// DefaultMaxRecording bounds a recording loaded into the page.
	DefaultMaxRecording = 64 << 20
	// DefaultMaxListItems bounds each list read from the server (tools,
	// resources, templates, prompts), every page included.
	DefaultMaxListItems = 10000
)

// Options configure an Inspector. Every zero field means its default.
type Options struct {
	RequestTimeout  time.Duration
	AnswerTimeout   time.Duration
	PageGrace       time.Duration
	MaxQuestions    int
	MaxRunning      int
	MaxStreams      int
	MaxJournal      int
	MaxJournalBytes int
	MaxBody         int64
	MaxRecording    int64
	MaxListItems    int
	// ChecksFile, if not "", is the file the page's saved checks are
	// read from and written to (--checks).
	ChecksFile string
}

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	defDur := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	defDur(&o.RequestTimeout, DefaultRequestTimeout)
	defDur(&o.AnswerTimeout, DefaultAnswerTimeout)
	defDur(&o.PageGrace, DefaultPageGrace)
	def(&o.MaxQuestions, DefaultMaxQuestions)
	def(&o.MaxRunning, DefaultMaxRunning)
	def(&o.MaxStreams, DefaultMaxStreams)
	def(&o.MaxJournal, DefaultMaxJournal)
	def(&o.MaxJournalBytes, DefaultMaxJournalBytes)
	def(&o.MaxListItems, DefaultMaxListItems)
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxRecording <= 0 {
		o.MaxRecording = DefaultMaxRecording
	}
	return o
}

// An Inspector holds one session with a server on behalf of the pages:
// what the server is and offers (the state), the journal of frames and
// notifications, the questions the server asks the person, and the
// operations the pages ask for (ops.go). Make one with New, give its
// ClientOptions and Observer to the client and transport of the session,
// then Attach the session.
type Inspector struct {
	opts   Options
	hub    *hub
	target string // how the command line named the server

	sess *client.Session // set by Attach
	cur  *link           // the session's target and end, when the inspector opened it (session.go)
	gen  int             // counts the sessions opened
	app  *app.App        // what opens sessions and reads the catalog; nil in tests that Attach their own
	net  *netLog         // the HTTP exchanges (network.go)
	// base is the context of the inspector's own work (reading lists
	// again); Close cancels it.
	base context.Context
	stop context.CancelFunc

	mu         sync.Mutex
	st         pageState
	published  []byte                        // the state's JSON as the hub has it
	running    map[string]context.CancelFunc // the page's requests, by the page's id
	anon       int                           // the requests without an id, counted
	listen     *client.Subscription          // modern era: the notifications' subscription
	opening    bool                          // a session is being opened (session.go)
	trusted    map[string]bool               // the project entries the person trusted, by digest (catalog.go)
	refresh    map[string]bool               // lists to read again (list_changed)
	refreshing bool                          // a goroutine reads them
	wg         sync.WaitGroup                // the goroutines of the inspector
}

// pageState is what the page shows of the server, as its JSON says it.
type pageState struct {
	Server serverState `json:"server"`
	Status string      `json:"status"` // "connecting", "connected", "ended", "catalog"
	// Connecting names the server a new session is being opened to (a
	// Reconnect, a server of the catalog), while the session open
	// before goes on.
	Connecting    string                 `json:"connecting,omitempty"`
	Ended         string                 `json:"ended,omitempty"`
	Tools         []mcp.Tool             `json:"tools"`
	Resources     []mcp.Resource         `json:"resources"`
	Templates     []mcp.ResourceTemplate `json:"templates"`
	Prompts       []mcp.Prompt           `json:"prompts"`
	ListErrors    map[string]string      `json:"listErrors,omitempty"`
	Roots         []mcp.Root             `json:"roots"`
	LogLevel      mcp.LoggingLevel       `json:"logLevel,omitempty"`
	Subscriptions []string               `json:"subscriptions"`
	// Listening says, in the modern era, which notifications the server
	// sends (the subscriptions/listen it acknowledged), or why none.
	Listening string `json:"listening,omitempty"`
	// Changes are what changed at the last Reconnect (reconnect.go).
	Changes *reconnectDiff `json:"changes,omitempty"`
	// Catalog lists the servers of the hosts' configuration files, when
	// mcpwire inspect was started without one (catalog.go).
	Catalog *catalogState `json:"catalog,omitempty"`
	// Checks are the saved checks (checks.go), and the last run's
	// results.
	Checks []checkState `json:"checks"`
}

// serverState is the server of the session.
type serverState struct {
	Info         mcp.Implementation     `json:"info"`
	Protocol     mcp.Version            `json:"protocol"`
	Era          string                 `json:"era"` // "stateless" (2026-07-28 on) or "stateful"
	Transport    string                 `json:"transport"`
	Target       string                 `json:"target"`
	Capabilities mcp.ServerCapabilities `json:"capabilities"`
	Instructions string                 `json:"instructions,omitempty"`
	Client       mcp.ClientCapabilities `json:"clientCapabilities"`
}

// New returns an inspector of the server that target names (as the page
// shows it), with the options o (nil for the defaults).
func New(target string, o *Options) *Inspector {
	var opts Options
	if o != nil {
		opts = *o
	}
	in := &Inspector{opts: opts.withDefaults(), target: target, running: make(map[string]context.CancelFunc)}
	in.base, in.stop = context.WithCancel(context.Background())
	in.hub = newHub(in.opts.MaxJournal, in.opts.MaxJournalBytes, in.opts.PageGrace, func() { in.hub.abandon(errPageAway) })
	in.st = pageState{
		Status: "connecting", Server: serverState{Target: target},
		Tools: []mcp.Tool{}, Resources: []mcp.Resource{}, Templates: []mcp.ResourceTemplate{}, Prompts: []mcp.Prompt{},
		Roots: []mcp.Root{}, Subscriptions: []string{}, Checks: []checkState{},
	}
	in.net = &netLog{hub: in.hub}
	in.publishLocked()
	return in
}

// ClientOptions returns the options of the session's client: its
// handlers ask the person through the pages (elicitation, sampling),
// answer roots/list with the roots the person set, and put the server's
// notifications in the journal.
func (in *Inspector) ClientOptions() *client.Options {
	return &client.Options{
		Elicit:                in.elicit,
		ElicitURL:             true,
		Sample:                in.sample,
		Roots:                 in.roots,
		OnLog:                 in.onLog,
		OnListChanged:         in.onListChanged,
		OnResourceUpdated:     func(_ context.Context, uri string) { in.hub.add(kindUpdated, map[string]string{"uri": uri}) },
		OnElicitationComplete: func(_ context.Context, id string) { in.note("the server completed the URL elicitation " + id) },
		Tasks:                 true,
		Apps:                  true, // the page renders Apps (apps.go)
	}
}

// Observer returns the observer of the session's transport: every frame
// goes into the journal, as a record of the tap recording format.
func (in *Inspector) Observer() transport.Observer {
	return in.observer(func(tr string) {
		in.mu.Lock()
		in.st.Server.Transport = tr
		in.mu.Unlock()
	})
}

// observer is Observer with first called with the transport of the
// first frame.
func (in *Inspector) observer(first func(transport string)) transport.Observer {
	var once sync.Once
	return frames.Observe(frames.AtClient, func(r *frames.Record) {
		once.Do(func() { first(r.Transport) })
		in.hub.add(kindFrame, r.AppendJSON(nil))
	})
}

// StderrLogger returns a logger that puts the server process's stderr
// lines in the journal, and hands every record to next too (nil for
// none).
func (in *Inspector) StderrLogger(next *slog.Logger) *slog.Logger {
	var h slog.Handler = slog.DiscardHandler
	if next != nil {
		h = next.Handler()
	}
	return slog.New(&stderrTap{next: h, sink: func(line string) {
		in.hub.add(kindStderr, map[string]string{"line": line, "time": time.Now().UTC().Format(time.RFC3339Nano)})
	}})
}

// Attach gives the inspector its session, reads the server's lists and,
// in the modern era, opens the subscription to its notifications. ctx
// bounds the reading.
func (in *Inspector) Attach(ctx context.Context, sess *client.Session, clientCaps mcp.ClientCapabilities) {
	in.mu.Lock()
	in.sess = sess
	in.st.Status = "connected"
	in.st.Server.Protocol = sess.ProtocolVersion()
	in.st.Server.Era = "stateful"
	if sess.IsModern() {
		in.st.Server.Era = "stateless"
	}
	in.st.Server.Capabilities = sess.ServerCapabilities()
	in.st.Server.Instructions = sess.Instructions()
	in.st.Server.Client = clientCaps
	in.mu.Unlock()
	for _, kind := range []string{listTools, listResources, listTemplates, listPrompts} {
		in.readList(ctx, kind)
	}
	if sess.IsModern() {
		in.relisten(ctx)
	}
	in.publish()
}

// End records that the session ended, and why (nil: it was closed).
func (in *Inspector) End(why error) {
	in.mu.Lock()
	in.st.Status = "ended"
	if why != nil {
		in.st.Ended = why.Error()
	}
	in.mu.Unlock()
	in.publish()
}

// Close abandons the questions, ends the event streams and the
// subscription, and waits for the inspector's goroutines.
func (in *Inspector) Close() {
	in.stop()
	in.hub.abandon(errClosing)
	in.hub.close()
	in.mu.Lock()
	for _, cancel := range in.running {
		cancel()
	}
	l := in.listen
	in.listen = nil
	cur := in.cur
	in.gen++ // the session's end is not news
	in.mu.Unlock()
	if l != nil {
		l.Close()
	}
	if cur != nil {
		cur.end()
	}
	in.wg.Wait()
}

// publish puts the state, as it is now, in the hub.
func (in *Inspector) publish() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.publishLocked()
}

// publishLocked is publish with in.mu held.
func (in *Inspector) publishLocked() {
	if in.sess != nil {
		in.st.Server.Info = in.sess.ServerInfo() // modern results may update it
	}
	data, err := json.Marshal(&in.st)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"status": "error", "ended": err.Error()})
	}
	if bytes.Equal(data, in.published) {
		return // the pages have it
	}
	in.published = data
	in.hub.setState(data)
}

// note puts a message of the inspector's own in the journal.
func (in *Inspector) note(msg string) {
	in.hub.add(kindNote, map[string]string{"message": msg, "time": time.Now().UTC().Format(time.RFC3339Nano)})
}

// The lists of the server.
const (
	listTools     = "tools"
	listResources = "resources"
	listTemplates = "templates"
	listPrompts   = "prompts"
)

// readList reads one of the server's lists, every page, into the state
// (not published); a list the server does not offer stays empty.
func (in *Inspector) readList(ctx context.Context, kind string) {
	in.mu.Lock()
	sess := in.sess
	in.mu.Unlock()
	if sess == nil {
		return // a new session is being opened
	}
	caps := sess.ServerCapabilities()
	var err error
	switch kind {
	case listTools:
		if caps.Tools != nil {
			var l []mcp.Tool
			l, err = collect(sess.Tools(ctx), in.opts.MaxListItems)
			in.setList(kind, func(st *pageState) { st.Tools = l }, err)
		}
	case listResources:
		if caps.Resources != nil {
			var l []mcp.Resource
			l, err = collect(sess.Resources(ctx), in.opts.MaxListItems)
			in.setList(kind, func(st *pageState) { st.Resources = l }, err)
		}
	case listTemplates:
		if caps.Resources != nil {
			var l []mcp.ResourceTemplate
			l, err = collect(sess.ResourceTemplates(ctx), in.opts.MaxListItems)
			in.setList(kind, func(st *pageState) { st.Templates = l }, err)
		}
	case listPrompts:
		if caps.Prompts != nil {
			var l []mcp.Prompt
			l, err = collect(sess.Prompts(ctx), in.opts.MaxListItems)
			in.setList(kind, func(st *pageState) { st.Prompts = l }, err)
		}
	}
}

// setList sets a list of the state with set, and its error.
func (in *Inspector) setList(kind string, set func(*pageState), err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	set(&in.st)
	if err == nil {
		delete(in.st.ListErrors, kind)
		return
	}
	if in.st.ListErrors == nil {
		in.st.ListErrors = make(map[string]string)
	}
	in.st.ListErrors[kind] = describe(err).Message
}

// collect gathers the items of a paginated list, up to max. An item the
// client refused (a tool it dropped) is skipped, and reported in the
// error with the others; an error that ends the list ends it.
func collect[T any](seq iter.Seq2[*T, error], max int) ([]T, error) {
	out := []T{}
	var errs []error
	for item, err := range seq {
		var dropped *client.DroppedToolError
		switch {
		case errors.As(err, &dropped):
			errs = append(errs, err)
			continue
		case err != nil:
			return out, errors.Join(append(errs, err)...)
		case len(out) == max:
			return out, errors.Join(append(errs, fmt.Errorf("the list has more than %d items; the first %d are shown", max, max))...)
		}
		out = append(out, *item)
	}
	return out, errors.Join(errs...)
}

// onListChanged reads a list again when the server says it changed. The
// reading goes on in a goroutine of the inspector (the handler must not
// wait for the server); changes that come meanwhile are read once more
// after it.
func (in *Inspector) onListChanged(_ context.Context, method string) {
	var kinds []string
	switch method {
	case mcp.NotificationToolListChanged:
		kinds = []string{listTools}
	case mcp.NotificationPromptListChanged:
		kinds = []string{listPrompts}
	case mcp.NotificationResourceListChanged:
		kinds = []string{listResources, listTemplates}
	default:
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.refresh == nil {
		in.refresh = make(map[string]bool)
	}
	for _, k := range kinds {
		in.refresh[k] = true
	}
	if in.refreshing || in.sess == nil {
		return
	}
	in.refreshing = true
	in.wg.Add(1)
	go in.refreshLists()
}

// refreshLists reads the lists marked for refresh until none is left.
func (in *Inspector) refreshLists() {
	defer in.wg.Done()
	for {
		in.mu.Lock()
		var kinds []string
		for k := range in.refresh {
			kinds = append(kinds, k)
		}
		clear(in.refresh)
		if len(kinds) == 0 {
			in.refreshing = false
			in.mu.Unlock()
			return
		}
		in.mu.Unlock()
		slices.Sort(kinds)
		ctx, cancel := context.WithTimeout(in.base, in.opts.RequestTimeout)
		for _, k := range kinds {
			in.readList(ctx, k)
		}
		cancel()
		in.publish()
	}
}

// relisten opens (again) the modern era's subscription to the server's
// notifications: the list changes its capabilities announce, and the
// resources the person subscribed to.
func (in *Inspector) relisten(ctx context.Context) {
	in.mu.Lock()
	sess := in.sess
	if sess == nil {
		in.mu.Unlock()
		return
	}
	caps := sess.ServerCapabilities()
	f := mcp.SubscriptionFilter{
		ToolsListChanged:      caps.Tools != nil && caps.Tools.ListChanged,
		PromptsListChanged:    caps.Prompts != nil && caps.Prompts.ListChanged,
		ResourcesListChanged:  caps.Resources != nil && caps.Resources.ListChanged,
		ResourceSubscriptions: slices.Clone(in.st.Subscriptions),
	}
	old := in.listen
	in.listen = nil
	in.mu.Unlock()
	if old != nil {
		old.Close()
	}
	if !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0 {
		in.setListening("no notifications: the server announces no list changes")
		return
	}
	sub, err := sess.Listen(ctx, f)
	if err != nil {
		in.setListening("no notifications: subscriptions/listen failed: " + describe(err).Message)
		return
	}
	in.mu.Lock()
	in.listen = sub
	in.mu.Unlock()
	in.setListening(describeFilter(sub.Filter))
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		<-sub.Done()
		if err := sub.Err(); err != nil {
			in.setListening("the subscription to notifications ended: " + describe(err).Message)
		}
	}()
}

// setListening records what the modern subscription covers.
func (in *Inspector) setListening(s string) {
	in.mu.Lock()
	in.st.Listening = s
	in.mu.Unlock()
	in.publish()
}

// describeFilter says what an acknowledged filter covers.
func describeFilter(f mcp.SubscriptionFilter) string {
	var parts []string
	for _, x := range []struct {
		on   bool
		what string
	}{{f.ToolsListChanged, "tools"}, {f.PromptsListChanged, "prompts"}, {f.ResourcesListChanged, "resources"}} {
		if x.on {
			parts = append(parts, x.what)
		}
	}
	s := "listening for changes of "
	if len(parts) == 0 {
		s = "listening for no list changes"
	} else {
		s += joinWords(parts)
	}
	if n := len(f.ResourceSubscriptions); n > 0 {
		s += fmt.Sprintf(" and updates of %d resource(s)", n)
	}
	return s
}

// joinWords joins "a", "b" and "c" as "a, b and c".
func joinWords(w []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		return w[0]
	}
	s := ""
	for i, x := range w[:len(w)-1] {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s + " and " + w[len(w)-1]
}

// elicit asks the person through the pages.
func (in *Inspector) elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	raw, err := in.hub.ask(ctx, askElicit, p, in.opts.AnswerTimeout, in.opts.MaxQuestions)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the inspector's user did not answer: "+err.Error())
	}
	var res mcp.ElicitResult
	if err := strictJSON(raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// sampleAnswer is the page's answer to a sampling request: the message
// the person wrote, or a refusal.
type sampleAnswer struct {
	Reject bool                     `json:"reject,omitempty"`
	Result *mcp.CreateMessageResult `json:"result,omitempty"`
}

// sample asks the person, who plays the model, through the pages.
func (in *Inspector) sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	raw, err := in.hub.ask(ctx, askSample, p, in.opts.AnswerTimeout, in.opts.MaxQuestions)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the inspector's user did not answer: "+err.Error())
	}
	var a sampleAnswer
	if err := strictJSON(raw, &a); err != nil {
		return nil, err
	}
	if a.Reject || a.Result == nil {
		return nil, jsonrpc.NewError(mcp.CodeUserRejected, "User rejected sampling request")
	}
	return a.Result, nil
}

// roots answers roots/list with the roots the person set.
func (in *Inspector) roots(context.Context) (*mcp.ListRootsResult, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return &mcp.ListRootsResult{Roots: slices.Clone(in.st.Roots)}, nil
}

// logEntry is a log message of the server, in the journal.
type logEntry struct {
	Time   time.Time        `json:"time"`
	Level  mcp.LoggingLevel `json:"level"`
	Logger string           `json:"logger,omitempty"`
	Data   json.RawMessage  `json:"data"`
}

// onLog puts a log message in the journal.
func (in *Inspector) onLog(_ context.Context, p *mcp.LoggingMessageParams) {
	in.hub.add(kindLog, logEntry{Time: time.Now().UTC(), Level: p.Level, Logger: p.Logger, Data: p.Data})
}

// stderrTap is a slog.Handler that hands the server's stderr lines (the
// command transport's "stderr" records) to sink, and every record to
// next.
type stderrTap struct {
	next slog.Handler
	sink func(line string)
}

// Enabled reports true for the stderr lines, and what next enables.
func (h *stderrTap) Enabled(ctx context.Context, l slog.Level) bool { return true }

// Handle hands the record on.
func (h *stderrTap) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "stderr" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "line" {
				h.sink(a.Value.String())
				return false
			}
			return true
		})
	}
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

// WithAttrs returns the handler with attrs added to next's records.
func (h *stderrTap) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &stderrTap{next: h.next.WithAttrs(attrs), sink: h.sink}
}

// WithGroup returns the handler with next's records in group.
func (h *stderrTap) WithGroup(name string) slog.Handler {
	return &stderrTap{next: h.next.WithGroup(name), sink: h.sink}
}
