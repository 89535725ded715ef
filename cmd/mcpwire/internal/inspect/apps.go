package inspect

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// The inspector is an MCP Apps host (SEP-1865, ext-apps 2.0.x). Calling a
// tool whose _meta.ui names an interface renders the interface, an HTML
// document of the server, in an iframe of the page, and the page speaks
// the host's end of the App protocol with it over postMessage
// (assets/apps.js).
//
// # Isolation
//
// The App never runs on the inspector's origin. Its document is served by
// a second listener, the sandbox, on the same loopback address and
// another port: another origin, whose only route is GET /app/ID, an App
// document under an unguessable id, and which holds no token and no API.
// The page frames it with sandbox="allow-scripts" and nothing else, so the
// document runs in an opaque origin besides: no storage or cookies of any
// origin, no popups, no top navigation, no forms, no modal dialogs, no
// downloads. Its Content-Security-Policy is built from the interface's
// _meta.ui.csp (the extension's restrictive default when it declares
// none, without 'self': nothing at all from the network), with
// frame-ancestors the inspector: the App can fetch nothing undeclared,
// the inspector's API least of all, which besides refuses any request
// whose Origin is not its own and that lacks the token, which the App
// never sees (the iframe's referrer is cut). Its one channel is
// postMessage to the page, which accepts messages only from the window of
// the iframe it made for that App, and forwards to the server only what
// the extension lets an App ask: tools/call of a tool whose visibility
// includes "app" (checked here, where the page's API calls it, and not
// only in the page), resources/read, ping. Sampling, roots, elicitation
// and anything else are refused.
//
// An App's HTML (DefaultMaxAppHTML of package client), the Apps open at
// once (maxApps) and the requests an App has running (maxAppPending) are
// bounded; the page bounds the size of an App's messages.

const (
	// maxApps bounds the Apps open at once; the page closes the oldest
	// before it opens one more, and so does the host (the Apps of a page
	// reloaded or closed are never closed by it).
	maxApps = 8
	// maxAppPending bounds the requests of one App running at once.
	maxAppPending = 16
	// codeRefused is the JSON-RPC error code of a request of an App that
	// the host refuses (the extension's implementation-defined -32000).
	codeRefused jsonrpc.Code = -32000
)

// errNoApp is the error of a request of an App that was closed, which
// the page hands to the App.
var errNoApp = errors.New("no such App: it was closed")

// appsHost serves the Apps of one inspector: their documents on the
// sandbox listener, and the operations of the page for them.
type appsHost struct {
	in     *Inspector
	origin string          // the sandbox's origin, http://127.0.0.1:PORT
	hosts  map[string]bool // the Host values the sandbox answers to
	page   string          // frame-ancestors: the inspector's origins
	srv    *http.Server
	served chan error

	mu     sync.Mutex
	apps   map[string]*openApp // by id
	opened uint64              // the Apps opened so far
}

// openApp is an App the page shows.
type openApp struct {
	id      string
	tool    mcp.Tool
	ui      *client.AppInterface
	csp     string
	pending int    // its requests running
	seq     uint64 // its place in the order of opening
	// life ends when the App is closed, and with it the App's requests
	// running: nobody takes their answers.
	life   context.Context
	cancel context.CancelCauseFunc
}

// newOpenApp returns an open App of id.
func newOpenApp(id string) *openApp {
	life, cancel := context.WithCancelCause(context.Background())
	return &openApp{id: id, life: life, cancel: cancel}
}

// startApps opens the sandbox listener next to the inspector's (same
// address, a free port), serves it, and adds the Apps operations to h.
func startApps(h *handler, pageAddr net.Addr) (*appsHost, error) {
	host, port, err := net.SplitHostPort(pageAddr.String())
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("the Apps sandbox: %w", err)
	}
	_, sport, _ := net.SplitHostPort(ln.Addr().String())
	a := &appsHost{
		in:     h.in,
		origin: "http://" + ln.Addr().String(),
		hosts:  map[string]bool{strings.ToLower(ln.Addr().String()): true, "localhost:" + sport: true},
		page:   "http://" + net.JoinHostPort(host, port) + " http://localhost:" + port,
		served: make(chan error, 1),
		apps:   make(map[string]*openApp),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /app/{id}", a.document)
	a.srv = &http.Server{Handler: a.check(mux), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10, IdleTimeout: time.Minute}
	go func() { a.served <- a.srv.Serve(ln) }()
	h.apps = a
	for name, f := range map[string]func(context.Context, *http.Request) (*outcome, error){
		"app/open": a.open, "app/call": a.call, "app/read": a.read, "app/close": a.close,
	} {
		h.mux.HandleFunc("POST /api/"+name, func(w http.ResponseWriter, r *http.Request) {
			o, err := f(r.Context(), r)
			if err != nil {
				fail(w, err)
				return
			}
			writeJSON(w, http.StatusOK, o)
		})
	}
	return a, nil
}

// stop closes the sandbox listener and waits for it.
func (a *appsHost) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.srv.Shutdown(ctx)
	a.srv.Close()
	<-a.served
}

// check refuses the sandbox's requests that are not for its own Host (DNS
// rebinding) and the loads of a document outside an iframe.
func (a *appsHost) check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr.Set("Cache-Control", "no-store")
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("Referrer-Policy", "no-referrer")
		if !a.hosts[strings.ToLower(r.Host)] {
			refuse(w, http.StatusForbidden, "this address answers to the Host 127.0.0.1 or localhost with its port only")
			return
		}
		if d := r.Header.Get("Sec-Fetch-Dest"); d != "" && d != "iframe" {
			refuse(w, http.StatusForbidden, "an App is shown in the inspector's page only")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// document serves the HTML of an open App, with its policy.
func (a *appsHost) document(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	app := a.apps[r.PathValue("id")]
	a.mu.Unlock()
	if app == nil {
		refuse(w, http.StatusNotFound, "no such App")
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Content-Security-Policy", app.csp)
	w.Write([]byte(app.ui.HTML))
}

// appCSP returns the Content-Security-Policy of an App's document: the
// extension's restrictive default (without 'self', which would be the
// sandbox: the App loads nothing from the network), widened by exactly
// the sources the interface declares (checked by client.ReadApp: origins
// only), framed by the inspector only, and sandboxed as the page's iframe
// is (sandbox allow-scripts: an opaque origin, however the document is
// loaded).
func appCSP(c *mcp.AppCSP, ancestors string) string {
	if c == nil {
		c = &mcp.AppCSP{}
	}
	list := func(base string, srcs []string, none string) string {
		s := strings.TrimSpace(base + " " + strings.Join(srcs, " "))
		if s == "" {
			return none
		}
		return s
	}
	res := c.ResourceDomains
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + list("'unsafe-inline'", res, ""),
		"style-src " + list("'unsafe-inline'", res, ""),
		"img-src " + list("data:", res, ""),
		"font-src " + list("data:", res, ""),
		"media-src " + list("data:", res, ""),
		"connect-src " + list("", c.ConnectDomains, "'none'"),
		"frame-src " + list("", c.FrameDomains, "'none'"),
		"base-uri " + list("", c.BaseURIDomains, "'none'"),
		"object-src 'none'",
		"form-action 'none'",
		"frame-ancestors " + ancestors,
		"sandbox allow-scripts",
	}, "; ")
}

// openArgs are the page's request to show the App of a tool it called.
type openArgs struct {
	Tool string `json:"tool"`
}

// appView is what the page needs to show an App.
type appView struct {
	App         string              `json:"app"`
	Src         string              `json:"src"`
	URI         string              `json:"uri"`
	Tool        mcp.Tool            `json:"tool"`
	Visibility  []mcp.AppVisibility `json:"visibility,omitempty"`
	CSP         *mcp.AppCSP         `json:"csp,omitempty"`
	Permissions *mcp.AppPermissions `json:"permissions,omitempty"`
	Border      *bool               `json:"prefersBorder,omitempty"`
	Policy      string              `json:"policy"` // the CSP of the document, to show
}

// findTool returns the tool name as the server listed it.
func (a *appsHost) findTool(name string) (mcp.Tool, bool) {
	a.in.mu.Lock()
	defer a.in.mu.Unlock()
	for _, t := range a.in.st.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return mcp.Tool{}, false
}

// open reads the interface of a tool (client.ReadApp checks it) and
// serves it under a new id.
func (a *appsHost) open(ctx context.Context, r *http.Request) (*outcome, error) {
	var args openArgs
	if err := readBody(r, &args); err != nil {
		return nil, err
	}
	tool, ok := a.findTool(args.Tool)
	if !ok {
		return nil, fmt.Errorf("the server lists no tool %q", args.Tool)
	}
	return a.in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		ui, err := s.ReadApp(ctx, &tool)
		if err != nil {
			return nil, err
		}
		app := newOpenApp(rand.Text())
		app.tool, app.ui, app.csp = tool, ui, appCSP(ui.UI.CSP, a.page)
		a.mu.Lock()
		defer a.mu.Unlock()
		for len(a.apps) >= maxApps {
			a.closeLocked(a.oldestLocked())
		}
		a.opened++
		app.seq = a.opened
		a.apps[app.id] = app
		return &appView{
			App: app.id, Src: a.origin + "/app/" + app.id, URI: ui.URI, Tool: tool,
			Visibility: ui.Tool.Visibility, CSP: ui.UI.CSP, Permissions: ui.UI.Permissions,
			Border: ui.UI.PrefersBorder, Policy: app.csp,
		}, nil
	})
}

// begin counts a request of the App id, or says why it may not run. Its
// context is parent's, cancelled too when the App is closed; end must be
// called when the request is over.
func (a *appsHost) begin(parent context.Context, id string) (ctx context.Context, end func(), err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	app := a.apps[id]
	switch {
	case app == nil:
		return nil, nil, errNoApp
	case app.pending >= maxAppPending:
		return nil, nil, fmt.Errorf("the App has %d requests running already", maxAppPending)
	}
	app.pending++
	ctx, cancel := context.WithCancelCause(parent)
	stop := context.AfterFunc(app.life, func() { cancel(context.Cause(app.life)) })
	return ctx, func() {
		stop()
		cancel(nil)
		a.mu.Lock()
		app.pending--
		a.mu.Unlock()
	}, nil
}

// refused is the outcome of a request the host refuses the App: an
// error the page hands to the App as its JSON-RPC error.
func refused(format string, args ...any) *outcome {
	return &outcome{Error: &opError{Message: fmt.Sprintf(format, args...), Code: int64(codeRefused)}}
}

// appCallArgs are an App's tools/call, as the page forwards it.
type appCallArgs struct {
	App       string          `json:"app"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// call forwards an App's tools/call to the server, if the tool is one an
// App may call: listed by the server, with "app" in its visibility (the
// default, when it has none). The extension: "Host MUST reject tools/call
// requests from apps for tools that don't include "app" in visibility".
func (a *appsHost) call(ctx context.Context, r *http.Request) (*outcome, error) {
	var args appCallArgs
	if err := readBody(r, &args); err != nil {
		return nil, err
	}
	ctx, end, err := a.begin(ctx, args.App)
	if err != nil {
		return nil, err
	}
	defer end()
	tool, ok := a.findTool(args.Name)
	if !ok {
		return refused("the server lists no tool %q", args.Name), nil
	}
	ui, _, err := mcp.AppOfTool(&tool)
	if err != nil {
		return refused("the tool %q has _meta.ui that does not parse, so no App may call it: %v", args.Name, err), nil
	}
	if !ui.VisibleTo(mcp.AppVisibilityApp) {
		return refused(`the tool %q is not visible to Apps (its _meta.ui.visibility lacks "app")`, args.Name), nil
	}
	return a.in.callTool(ctx, &callArgs{Name: args.Name, Arguments: args.Arguments})
}

// appReadArgs are an App's resources/read.
type appReadArgs struct {
	App string `json:"app"`
	URI string `json:"uri"`
}

// read forwards an App's resources/read to the server.
func (a *appsHost) read(ctx context.Context, r *http.Request) (*outcome, error) {
	var args appReadArgs
	if err := readBody(r, &args); err != nil {
		return nil, err
	}
	ctx, end, err := a.begin(ctx, args.App)
	if err != nil {
		return nil, err
	}
	defer end()
	return a.in.readResource(ctx, &readArgs{URI: args.URI})
}

// closeArgs name the App the page closed.
type closeArgs struct {
	App string `json:"app"`
}

// close forgets an App: its document is no longer served, its requests
// running are cancelled, its new ones refused.
func (a *appsHost) close(_ context.Context, r *http.Request) (*outcome, error) {
	var args closeArgs
	if err := readBody(r, &args); err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.closeLocked(a.apps[args.App])
	a.mu.Unlock()
	return &outcome{}, nil
}

// closeLocked forgets app, if not nil, and cancels its requests; a.mu
// is held.
func (a *appsHost) closeLocked(app *openApp) {
	if app == nil {
		return
	}
	app.cancel(errNoApp)
	delete(a.apps, app.id)
}

// oldestLocked returns the App opened first of those open; a.mu is held.
func (a *appsHost) oldestLocked() *openApp {
	var old *openApp
	for _, app := range a.apps {
		if old == nil || app.seq < old.seq {
			old = app
		}
	}
	return old
}
