package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/mcpwire/mcpwire/mcp"
)

// DefaultMaxAppHTML bounds the HTML of an App's interface that ReadApp
// accepts (8 MiB, decoded).
const DefaultMaxAppHTML = 8 << 20

// ErrNoApp is returned by ReadApp for a tool that names no interface.
var ErrNoApp = errors.New("mcp client: the tool has no App interface")

// ErrAppInterface is wrapped by ReadApp's errors about an interface that a
// host must not render: a tool whose _meta.ui is malformed, contents of
// another type, too large, or a sandbox policy that does not parse.
var ErrAppInterface = errors.New("mcp client: unusable App interface")

// An AppInterface is a tool's App as its server serves it, checked and
// ready for a host to render in a sandbox.
type AppInterface struct {
	// Tool is the tool's _meta.ui: its interface and who may call it.
	Tool mcp.AppToolMeta
	// URI is the interface's ui:// URI (Tool.ResourceURI).
	URI string
	// HTML is the document.
	HTML string
	// UI is the sandbox policy from the contents' _meta.ui: the origins
	// the document may reach, the permissions it asks for. Every CSP
	// source has passed mcp.CheckCSPSource.
	UI mcp.AppResourceMeta
}

// declareApps adds the Apps extension to the declared capabilities when
// the client renders Apps (Options.Apps). The capabilities travel in
// initialize (legacy) and in every request's _meta (modern) alike.
func (c *Client) declareApps() {
	if !c.opts.Apps || c.caps.HasExtension(mcp.ExtensionApps) {
		return
	}
	c.caps.Extensions = maps.Clone(c.caps.Extensions)
	if c.caps.Extensions == nil {
		c.caps.Extensions = make(map[string]json.RawMessage, 1)
	}
	c.caps.Extensions[mcp.ExtensionApps] = mcp.DeclareApps()
}

// ReadApp finds the interface of tool (its _meta.ui.resourceUri, or the
// deprecated flat _meta["ui/resourceUri"]) and reads it with
// resources/read. It returns ErrNoApp for a tool without one. The contents
// must be one item with the tool's ui:// URI and the type
// text/html;profile=mcp-app, text or base64, at most DefaultMaxAppHTML
// bytes; its _meta.ui, if any, must decode (mcp.AppOfResource) with CSP
// sources a host can put in a policy. Anything else is an error wrapping
// ErrAppInterface: a host renders nothing rather than guess.
//
// ReadApp does not need Options.Apps; a server may however describe
// tools without interfaces to a client that does not declare the
// extension.
func (s *Session) ReadApp(ctx context.Context, tool *mcp.Tool) (*AppInterface, error) {
	ui, ok, err := mcp.AppOfTool(tool)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAppInterface, err)
	}
	if !ok || ui.ResourceURI == "" {
		return nil, ErrNoApp
	}
	if err := mcp.CheckAppURI(ui.ResourceURI); err != nil {
		return nil, fmt.Errorf("%w: tool %q: %w", ErrAppInterface, tool.Name, err)
	}
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: ui.ResourceURI})
	if err != nil {
		return nil, err
	}
	app, err := appFromContents(ui, res)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrAppInterface, ui.ResourceURI, err)
	}
	return app, nil
}

func appFromContents(ui mcp.AppToolMeta, res *mcp.ReadResourceResult) (*AppInterface, error) {
	if n := len(res.Contents); n != 1 {
		return nil, fmt.Errorf("resources/read returned %d contents, want 1", n)
	}
	c := &res.Contents[0]
	if c.URI != ui.ResourceURI {
		return nil, fmt.Errorf("the contents are those of %q", c.URI)
	}
	if c.MimeType != mcp.AppMIMEType {
		return nil, fmt.Errorf("the contents have the type %q, not %q", c.MimeType, mcp.AppMIMEType)
	}
	if len(c.Text) > DefaultMaxAppHTML || len(c.Blob) > DefaultMaxAppHTML/3*4+4 {
		return nil, fmt.Errorf("the document is larger than %d bytes", DefaultMaxAppHTML)
	}
	b, err := c.Bytes()
	if err != nil {
		return nil, err
	}
	if len(b) > DefaultMaxAppHTML {
		return nil, fmt.Errorf("the document is larger than %d bytes", DefaultMaxAppHTML)
	}
	app := &AppInterface{Tool: ui, URI: ui.ResourceURI, HTML: string(b)}
	if app.UI, _, err = mcp.AppOfResource(c.Meta); err != nil {
		return nil, err
	}
	if err := app.UI.CSP.Check(); err != nil {
		return nil, err
	}
	return app, nil
}
