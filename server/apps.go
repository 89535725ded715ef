package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
)

// MCP Apps (SEP-1865): a tool that comes with an interactive HTML
// interface. The server's part is small and declarative: the interface is
// a ui:// resource of type text/html;profile=mcp-app whose _meta.ui holds
// its sandbox policy (AddApp), and the tool names it in _meta.ui
// (AddAppTool, or mcp.SetAppOfTool before any AddTool). The server lists
// every tool to every client, app-only ones included: it is the host that
// keeps tools whose visibility lacks "model" from the model, and refuses
// an App's call of a tool whose visibility lacks "app". A handler that
// wants to answer differently to hosts that render no App asks
// req.ClientCapabilities().SupportsApps(); its result must make sense as
// text either way.

// DefaultMaxAppHTML bounds the HTML of an App's interface that AddApp
// accepts (8 MiB): an interface with its scripts inlined fits; more
// belongs to a host that fetches, which the sandbox forbids by default.
const DefaultMaxAppHTML = 8 << 20

// An App is the interface of one or more tools: an HTML document a host
// renders in a sandboxed iframe.
type App struct {
	// URI names the interface; it must start with ui://.
	URI string
	// Name identifies the resource (required); Title and Description
	// are for people.
	Name        string
	Title       string
	Description string
	// HTML is the document, scripts and styles inlined: by default the
	// host lets it load nothing from elsewhere.
	HTML string
	// UI is the sandbox policy: the origins it may reach (CSP), the
	// permissions it asks for, a dedicated domain, a border preference.
	// It is sent in the resource's contents and in its listing.
	UI mcp.AppResourceMeta
}

// ErrApp is wrapped by the errors of AddApp and AddAppTool, and of AddTool
// for a tool whose _meta.ui is not usable.
var ErrApp = errors.New("mcp server: invalid App")

// AddApp adds an App's interface as a resource, or replaces the one with
// the same URI. The URI must be a ui:// URI, the HTML at most
// DefaultMaxAppHTML bytes, and every CSP source an origin
// (mcp.CheckCSPSource): a host builds a policy from them.
func (s *Server) AddApp(app *App) error {
	if err := mcp.CheckAppURI(app.URI); err != nil {
		return fmt.Errorf("%w: %w", ErrApp, err)
	}
	if len(app.HTML) > DefaultMaxAppHTML {
		return fmt.Errorf("%w: %s: the HTML has %d bytes, more than %d", ErrApp, app.URI, len(app.HTML), DefaultMaxAppHTML)
	}
	if err := app.UI.CSP.Check(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrApp, app.URI, err)
	}
	var meta mcp.Meta
	if app.UI != (mcp.AppResourceMeta{}) {
		b, err := json.Marshal(app.UI)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrApp, app.URI, err)
		}
		meta = mcp.Meta{mcp.MetaKeyUI: json.RawMessage(b)}
	}
	res := &mcp.Resource{
		URI: app.URI, Name: app.Name, Title: app.Title, Description: app.Description,
		MimeType: mcp.AppMIMEType, Meta: meta,
	}
	contents := mcp.ResourceContents{URI: app.URI, MimeType: mcp.AppMIMEType, Text: app.HTML, Meta: meta}
	return s.AddResource(res, func(context.Context, *Request, *mcp.ReadResourceParams, map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{contents}}, nil
	})
}

// AddAppTool adds a tool whose results an App shows: it sets the tool's
// _meta.ui to ui (and the deprecated flat _meta["ui/resourceUri"] beside
// it, as hosts of either form expect) and adds it as AddTool does. The
// interface ui.ResourceURI names must have been added already (AddApp, or
// any resource or template that serves the URI). A tool only the App may
// call has Visibility []mcp.AppVisibility{mcp.AppVisibilityApp}.
//
// For a tool with Go-typed arguments, call mcp.SetAppOfTool on the tool
// and then the generic AddTool: the same checks apply.
func (s *Server) AddAppTool(tool *mcp.Tool, ui mcp.AppToolMeta, h ToolHandler) error {
	if ui.Visibility != nil && len(ui.Visibility) == 0 {
		return fmt.Errorf(`%w: tool %q: an empty visibility lets nobody call it (nil means ["model","app"])`, ErrApp, tool.Name)
	}
	t := *tool
	mcp.SetAppOfTool(&t, ui)
	return s.AddTool(&t, h)
}

// checkAppTool checks the _meta.ui of a tool being added: well formed, a
// ui:// interface that the server serves, a visibility that lets someone
// call the tool.
func (s *Server) checkAppTool(t *mcp.Tool) error {
	ui, ok, err := mcp.AppOfTool(t)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrApp, err)
	}
	if !ok {
		return nil
	}
	if ui.Visibility != nil && len(ui.Visibility) == 0 {
		return fmt.Errorf(`%w: tool %q: an empty _meta.ui.visibility lets nobody call it (omit it for ["model","app"])`, ErrApp, t.Name)
	}
	if ui.ResourceURI == "" {
		return nil
	}
	if err := mcp.CheckAppURI(ui.ResourceURI); err != nil {
		return fmt.Errorf("%w: tool %q: %w", ErrApp, t.Name, err)
	}
	if h, _ := s.findResource(ui.ResourceURI); h == nil {
		return fmt.Errorf("%w: tool %q: its interface %s is not a resource of this server (add it first, with AddApp)", ErrApp, t.Name, ui.ResourceURI)
	}
	return nil
}
