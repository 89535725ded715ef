package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The MCP Apps extension (SEP-1865, io.modelcontextprotocol/ui), as the
// specification of 2026-01-26 and @modelcontextprotocol/ext-apps 2.0.x
// define it: a tool names an HTML interface, a ui:// resource of type
// text/html;profile=mcp-app, that a host renders in a sandboxed iframe and
// talks to over postMessage (the ui/* methods). The extension is the same
// in both protocol eras; what differs is where the client declares it:
// once in initialize (legacy) or on every request in
// _meta["io.modelcontextprotocol/clientCapabilities"] (2026-07-28), in
// both cases under capabilities.extensions.

// ExtensionApps names the MCP Apps extension, declared by clients in
// ClientCapabilities.Extensions with AppsSettings.
const ExtensionApps = "io.modelcontextprotocol/ui"

// AppMIMEType is the MIME type of an App's HTML interface. The resource
// contents must carry it exactly.
const AppMIMEType = "text/html;profile=mcp-app"

// AppsProtocolVersion is the revision of the App-host protocol (the ui/*
// methods) this package follows.
const AppsProtocolVersion = "2026-01-26"

// Keys of the Apps extension in _meta.
const (
	// MetaKeyUI holds AppToolMeta in a tool's _meta, and AppResourceMeta
	// in a UI resource's (listing or contents) _meta.
	MetaKeyUI = "ui"
	// MetaKeyUIResourceURI is the deprecated flat form of
	// _meta.ui.resourceUri, which hosts still read and servers still
	// write beside the nested one.
	MetaKeyUIResourceURI = "ui/resourceUri"
)

// UISchemePrefix starts the URI of every App interface resource.
const UISchemePrefix = "ui://"

// AppVisibility says who may call a tool: the model, the App, or both.
type AppVisibility string

// The visibilities. A tool without visibility is visible to both.
const (
	// AppVisibilityModel: the tool is listed to the model and callable
	// by it.
	AppVisibilityModel AppVisibility = "model"
	// AppVisibilityApp: an App from the same server may call the tool.
	AppVisibilityApp AppVisibility = "app"
)

// AppToolMeta is _meta.ui of a tool.
type AppToolMeta struct {
	// ResourceURI names the tool's interface, a ui:// resource.
	ResourceURI string `json:"resourceUri,omitempty"`
	// Visibility lists who may call the tool; empty means both.
	// A host lists to the model only the tools visible to "model", and
	// refuses an App's tools/call of a tool not visible to "app".
	Visibility []AppVisibility `json:"visibility,omitempty"`
}

// VisibleTo reports whether the tool may be called by v: true when
// Visibility is empty (the default, both) or names v.
func (m *AppToolMeta) VisibleTo(v AppVisibility) bool {
	if m == nil || len(m.Visibility) == 0 {
		return true
	}
	for _, x := range m.Visibility {
		if x == v {
			return true
		}
	}
	return false
}

// AppCSP lists the origins an App's interface may reach; a host builds
// the Content-Security-Policy of the App's document from it and allows
// nothing undeclared. Each entry is a source such as https://api.example.com
// or https://*.example.com (see CheckCSPSource).
type AppCSP struct {
	// ConnectDomains: fetch, XHR, WebSocket (connect-src).
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains: scripts, styles, images, fonts, media.
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains: nested iframes (frame-src; none when empty).
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains: base-uri ('self' when empty).
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// AppPermissions are the browser permissions an interface asks for; a
// host may grant them with the iframe's allow attribute.
type AppPermissions struct {
	Camera         *Supported `json:"camera,omitempty"`
	Microphone     *Supported `json:"microphone,omitempty"`
	Geolocation    *Supported `json:"geolocation,omitempty"`
	ClipboardWrite *Supported `json:"clipboardWrite,omitempty"`
}

// AppResourceMeta is _meta.ui of an App's interface resource, in its
// resources/read contents (authoritative) and its resources/list entry
// (a fallback).
type AppResourceMeta struct {
	CSP         *AppCSP         `json:"csp,omitempty"`
	Permissions *AppPermissions `json:"permissions,omitempty"`
	// Domain asks for a dedicated sandbox origin; its format is the
	// host's to define.
	Domain string `json:"domain,omitempty"`
	// PrefersBorder: true asks for a visible border and background,
	// false for none; nil leaves it to the host.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
}

// AppsSettings are the settings of the Apps extension a client declares
// in ClientCapabilities.Extensions[ExtensionApps].
type AppsSettings struct {
	// MIMETypes lists the interface types the host renders; it must
	// include AppMIMEType.
	MIMETypes []string `json:"mimeTypes"`
}

// Limits of the Apps metadata: generous for any real interface, small
// enough that a hostile server cannot make a host build a huge policy.
const (
	// MaxCSPSources bounds the sources in each list of an AppCSP.
	MaxCSPSources = 64
	// MaxCSPSourceLen bounds the length of one source.
	MaxCSPSourceLen = 253 + len("https://:65535")
	// maxAppsMIMETypes bounds AppsSettings.MIMETypes.
	maxAppsMIMETypes = 32
)

// ErrAppMeta is wrapped by every error about malformed Apps metadata.
var ErrAppMeta = errors.New("mcp: invalid MCP Apps metadata")

func appMetaError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrAppMeta}, args...)...)
}

// UnmarshalJSON implements json.Unmarshaler: member names are read
// case-sensitively, duplicates and values of the wrong type are errors,
// a visibility other than "model" and "app" is an error, and unknown
// members (csp and permissions, which belong to the resource) are
// ignored.
func (m *AppToolMeta) UnmarshalJSON(data []byte) error {
	*m = AppToolMeta{}
	return eachAppMember(data, "_meta.ui", func(key string, v []byte) error {
		switch key {
		case "resourceUri":
			return appString("_meta.ui", key, v, &m.ResourceURI)
		case "visibility":
			var vs []string
			if err := appStrings("_meta.ui", key, v, &vs, 2); err != nil {
				return err
			}
			m.Visibility = make([]AppVisibility, 0, len(vs))
			for _, s := range vs {
				switch x := AppVisibility(s); x {
				case AppVisibilityModel, AppVisibilityApp:
					m.Visibility = append(m.Visibility, x)
				default:
					return appMetaError(`_meta.ui["visibility"] holds %q, not "model" or "app"`, s)
				}
			}
		}
		return nil
	})
}

// UnmarshalJSON implements json.Unmarshaler, as strictly as AppToolMeta's,
// bounding each list to MaxCSPSources sources.
func (c *AppCSP) UnmarshalJSON(data []byte) error {
	*c = AppCSP{}
	return eachAppMember(data, "_meta.ui.csp", func(key string, v []byte) error {
		var dst *[]string
		switch key {
		case "connectDomains":
			dst = &c.ConnectDomains
		case "resourceDomains":
			dst = &c.ResourceDomains
		case "frameDomains":
			dst = &c.FrameDomains
		case "baseUriDomains":
			dst = &c.BaseURIDomains
		default:
			return nil
		}
		return appStrings("_meta.ui.csp", key, v, dst, MaxCSPSources)
	})
}

// UnmarshalJSON implements json.Unmarshaler: each permission, when
// present, must be an object (its members are ignored).
func (p *AppPermissions) UnmarshalJSON(data []byte) error {
	*p = AppPermissions{}
	return eachAppMember(data, "_meta.ui.permissions", func(key string, v []byte) error {
		var dst **Supported
		switch key {
		case "camera":
			dst = &p.Camera
		case "microphone":
			dst = &p.Microphone
		case "geolocation":
			dst = &p.Geolocation
		case "clipboardWrite":
			dst = &p.ClipboardWrite
		default:
			return nil
		}
		if firstByte(v) != '{' {
			return appMetaError("_meta.ui.permissions[%q] must be an object", key)
		}
		*dst = &Supported{}
		return nil
	})
}

// UnmarshalJSON implements json.Unmarshaler, as strictly as AppToolMeta's.
func (m *AppResourceMeta) UnmarshalJSON(data []byte) error {
	*m = AppResourceMeta{}
	return eachAppMember(data, "_meta.ui", func(key string, v []byte) error {
		switch key {
		case "csp":
			m.CSP = new(AppCSP)
			return m.CSP.UnmarshalJSON(v)
		case "permissions":
			m.Permissions = new(AppPermissions)
			return m.Permissions.UnmarshalJSON(v)
		case "domain":
			return appString("_meta.ui", key, v, &m.Domain)
		case "prefersBorder":
			switch string(v) {
			case "true", "false":
				b := string(v) == "true"
				m.PrefersBorder = &b
				return nil
			}
			return appMetaError(`_meta.ui["prefersBorder"] must be a boolean`)
		}
		return nil
	})
}

// UnmarshalJSON implements json.Unmarshaler: mimeTypes must be an array
// of at most 32 strings.
func (s *AppsSettings) UnmarshalJSON(data []byte) error {
	*s = AppsSettings{}
	return eachAppMember(data, "extensions[\""+ExtensionApps+"\"]", func(key string, v []byte) error {
		if key == "mimeTypes" {
			return appStrings("extensions[\""+ExtensionApps+"\"]", key, v, &s.MIMETypes, maxAppsMIMETypes)
		}
		return nil
	})
}

// eachAppMember calls fn with each member of the object data, refusing
// data that is not an object and members named twice.
func eachAppMember(data []byte, where string, fn func(key string, v []byte) error) error {
	if firstByte(data) != '{' {
		return appMetaError("%s must be an object", where)
	}
	seen := make(map[string]bool) // every member: a duplicate is an error wherever it comes
	return eachMember(data, func(k []byte, escaped bool, v []byte) (bool, error) {
		key, _ := keyString(k, escaped)
		if seen[key] {
			return true, appMetaError("%s has the member %q twice", where, key)
		}
		seen[key] = true
		err := fn(key, v)
		return err != nil, err
	})
}

func appString(where, key string, v []byte, dst *string) error {
	s, ok := rawString(v)
	if !ok {
		return appMetaError("%s[%q] must be a string", where, key)
	}
	*dst = s
	return nil
}

func appStrings(where, key string, v []byte, dst *[]string, limit int) error {
	if firstByte(v) != '[' {
		return appMetaError("%s[%q] must be an array of strings", where, key)
	}
	out := []string{}
	err := eachElement(v, func(elem []byte) error {
		if len(out) == limit {
			return appMetaError("%s[%q] has more than %d entries", where, key, limit)
		}
		s, ok := rawString(elem)
		if !ok {
			return appMetaError("%s[%q] must be an array of strings", where, key)
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return err
	}
	*dst = out
	return nil
}

// metaEntry returns the raw JSON of meta[key], whatever form it holds
// (decoded by encoding/json, or json.RawMessage).
func metaEntry(meta Meta, key string) ([]byte, bool, error) {
	x, ok := meta[key]
	if !ok {
		return nil, false, nil
	}
	if raw, ok := x.(json.RawMessage); ok {
		return raw, true, nil
	}
	b, err := json.Marshal(x)
	return b, true, err
}

// AppOfTool returns the tool's Apps metadata: _meta.ui, with the
// resource URI taken from the deprecated _meta["ui/resourceUri"] when
// the nested one is absent. ok is false when the tool has neither. A
// tool whose two forms name different resources is an error.
func AppOfTool(t *Tool) (m AppToolMeta, ok bool, err error) {
	if t == nil {
		return m, false, nil
	}
	raw, hasUI, err := metaEntry(t.Meta, MetaKeyUI)
	if err != nil {
		return m, false, appMetaError("tool %q: %v", t.Name, err)
	}
	if hasUI {
		if err := m.UnmarshalJSON(raw); err != nil {
			return AppToolMeta{}, false, fmt.Errorf("tool %q: %w", t.Name, err)
		}
	}
	flat, hasFlat, err := metaEntry(t.Meta, MetaKeyUIResourceURI)
	if err != nil {
		return m, false, appMetaError("tool %q: %v", t.Name, err)
	}
	if hasFlat {
		s, ok := rawString(flat)
		if !ok {
			return AppToolMeta{}, false, appMetaError(`tool %q: _meta[%q] must be a string`, t.Name, MetaKeyUIResourceURI)
		}
		switch {
		case m.ResourceURI == "":
			m.ResourceURI = s
		case s != m.ResourceURI:
			return AppToolMeta{}, false, appMetaError(`tool %q: _meta.ui.resourceUri %q and _meta[%q] %q differ`,
				t.Name, m.ResourceURI, MetaKeyUIResourceURI, s)
		}
	}
	return m, hasUI || hasFlat, nil
}

// SetAppOfTool sets the tool's _meta.ui to m and, when m names a
// resource, the deprecated _meta["ui/resourceUri"] too, as hosts of
// either form expect. t.Meta is copied, not changed in place.
func SetAppOfTool(t *Tool, m AppToolMeta) {
	meta := make(Meta, len(t.Meta)+2)
	for k, v := range t.Meta {
		meta[k] = v
	}
	b, _ := json.Marshal(m) // strings and a slice of strings always marshal
	meta[MetaKeyUI] = json.RawMessage(b)
	if m.ResourceURI != "" {
		meta[MetaKeyUIResourceURI] = m.ResourceURI
	} else {
		delete(meta, MetaKeyUIResourceURI)
	}
	t.Meta = meta
}

// AppOfResource returns the Apps metadata in a resource's _meta (from
// resources/list or from the contents of resources/read); ok is false
// when there is none.
func AppOfResource(meta Meta) (m AppResourceMeta, ok bool, err error) {
	raw, ok, err := metaEntry(meta, MetaKeyUI)
	if err != nil || !ok {
		return m, false, err
	}
	if err := m.UnmarshalJSON(raw); err != nil {
		return AppResourceMeta{}, false, err
	}
	return m, true, nil
}

// AppsSettings returns the settings of the Apps extension the client
// declared; ok is false when it did not declare the extension.
func (c *ClientCapabilities) AppsSettings() (s AppsSettings, ok bool, err error) {
	if c == nil {
		return s, false, nil
	}
	raw, ok := c.Extensions[ExtensionApps]
	if !ok {
		return s, false, nil
	}
	if err := s.UnmarshalJSON(raw); err != nil {
		return AppsSettings{}, true, err
	}
	return s, true, nil
}

// SupportsApps reports whether the client declared the Apps extension
// with AppMIMEType among its mimeTypes.
func (c *ClientCapabilities) SupportsApps() bool {
	s, ok, err := c.AppsSettings()
	if !ok || err != nil {
		return false
	}
	for _, t := range s.MIMETypes {
		if t == AppMIMEType {
			return true
		}
	}
	return false
}

// DeclareApps returns the settings that declare the Apps extension for
// AppMIMEType, for ClientCapabilities.Extensions[ExtensionApps].
func DeclareApps() json.RawMessage {
	return json.RawMessage(`{"mimeTypes":["` + AppMIMEType + `"]}`)
}

// CheckAppURI reports whether uri can name an App's interface: a ui://
// URI with something after the scheme, that parses as a URI.
func CheckAppURI(uri string) error {
	if !strings.HasPrefix(uri, UISchemePrefix) || len(uri) == len(UISchemePrefix) {
		return appMetaError("the interface URI %q is not a ui:// URI", uri)
	}
	if _, err := url.Parse(uri); err != nil {
		return appMetaError("the interface URI %q does not parse: %v", uri, err)
	}
	return nil
}

// CheckCSPSource reports whether s is a source an AppCSP may list: an
// origin with an http, https, ws or wss scheme, whose host may start with
// a "*." wildcard label, with an optional port and nothing else (no path,
// no quotes, spaces, commas or semicolons, which would change the policy
// a host builds from it).
func CheckCSPSource(s string) error {
	if s == "" || len(s) > MaxCSPSourceLen {
		return appMetaError("a CSP source must have 1 to %d characters", MaxCSPSourceLen)
	}
	scheme, rest, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		return appMetaError("the CSP source %q has no scheme", s)
	case scheme != "https" && scheme != "http" && scheme != "wss" && scheme != "ws":
		return appMetaError("the CSP source %q has the scheme %q, not http(s) or ws(s)", s, scheme)
	}
	host, port, hasPort := strings.Cut(rest, ":")
	host = strings.TrimPrefix(host, "*.")
	if host == "" {
		return appMetaError("the CSP source %q has no host", s)
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return appMetaError("the CSP source %q has %q in its host", s, r)
		}
	}
	if hasPort {
		if port == "" || len(port) > 5 {
			return appMetaError("the CSP source %q has a bad port", s)
		}
		for _, r := range port {
			if r < '0' || r > '9' {
				return appMetaError("the CSP source %q has a bad port", s)
			}
		}
	}
	return nil
}

// Check reports the first source of c that CheckCSPSource refuses.
func (c *AppCSP) Check() error {
	if c == nil {
		return nil
	}
	for _, l := range [][]string{c.ConnectDomains, c.ResourceDomains, c.FrameDomains, c.BaseURIDomains} {
		if len(l) > MaxCSPSources {
			return appMetaError("a CSP list has more than %d sources", MaxCSPSources)
		}
		for _, s := range l {
			if err := CheckCSPSource(s); err != nil {
				return err
			}
		}
	}
	return nil
}
