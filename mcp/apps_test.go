package mcp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

func decodeTool(t *testing.T, s string) *mcp.Tool {
	t.Helper()
	var tool mcp.Tool
	if err := json.Unmarshal([]byte(s), &tool); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return &tool
}

func TestAppOfTool(t *testing.T) {
	for _, tc := range []struct {
		name, tool string
		want       mcp.AppToolMeta
		ok         bool
		err        string
	}{
		{"none", `{"name":"t","inputSchema":{}}`, mcp.AppToolMeta{}, false, ""},
		{"nested", `{"name":"t","inputSchema":{},"_meta":{"ui":{"resourceUri":"ui://a/b","visibility":["app"]}}}`,
			mcp.AppToolMeta{ResourceURI: "ui://a/b", Visibility: []mcp.AppVisibility{"app"}}, true, ""},
		{"flat only", `{"name":"t","inputSchema":{},"_meta":{"ui/resourceUri":"ui://a"}}`,
			mcp.AppToolMeta{ResourceURI: "ui://a"}, true, ""},
		{"both agree", `{"name":"t","inputSchema":{},"_meta":{"ui/resourceUri":"ui://a","ui":{"resourceUri":"ui://a"}}}`,
			mcp.AppToolMeta{ResourceURI: "ui://a"}, true, ""},
		{"both differ", `{"name":"t","inputSchema":{},"_meta":{"ui/resourceUri":"ui://a","ui":{"resourceUri":"ui://b"}}}`,
			mcp.AppToolMeta{}, false, "differ"},
		{"case differs: not the member", `{"name":"t","inputSchema":{},"_meta":{"ui":{"ResourceUri":"ui://a"}}}`,
			mcp.AppToolMeta{}, true, ""},
		{"csp on the tool is ignored", `{"name":"t","inputSchema":{},"_meta":{"ui":{"resourceUri":"ui://a","csp":{"connectDomains":["x"]}}}}`,
			mcp.AppToolMeta{ResourceURI: "ui://a"}, true, ""},
		{"bad visibility", `{"name":"t","inputSchema":{},"_meta":{"ui":{"visibility":["user"]}}}`, mcp.AppToolMeta{}, false, `"user"`},
		{"visibility not array", `{"name":"t","inputSchema":{},"_meta":{"ui":{"visibility":"app"}}}`, mcp.AppToolMeta{}, false, "array"},
		{"too many visibilities", `{"name":"t","inputSchema":{},"_meta":{"ui":{"visibility":["app","model","app"]}}}`, mcp.AppToolMeta{}, false, "more than 2"},
		{"uri not string", `{"name":"t","inputSchema":{},"_meta":{"ui":{"resourceUri":7}}}`, mcp.AppToolMeta{}, false, "string"},
		{"flat not string", `{"name":"t","inputSchema":{},"_meta":{"ui/resourceUri":true}}`, mcp.AppToolMeta{}, false, "string"},
		{"ui not object", `{"name":"t","inputSchema":{},"_meta":{"ui":"ui://a"}}`, mcp.AppToolMeta{}, false, "object"},
		{"ui null", `{"name":"t","inputSchema":{},"_meta":{"ui":null}}`, mcp.AppToolMeta{}, false, "object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := mcp.AppOfTool(decodeTool(t, tc.tool))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, mcp.ErrAppMeta) {
					t.Fatalf("err = %v, want one with %q wrapping ErrAppMeta", err, tc.err)
				}
				return
			}
			if err != nil || ok != tc.ok || got.ResourceURI != tc.want.ResourceURI || len(got.Visibility) != len(tc.want.Visibility) {
				t.Fatalf("AppOfTool = %+v, %v, %v; want %+v, %v", got, ok, err, tc.want, tc.ok)
			}
		})
	}
}

func TestAppToolMetaDuplicateMember(t *testing.T) {
	var m mcp.AppToolMeta
	err := m.UnmarshalJSON([]byte(`{"resourceUri":"ui://a","resourceUri":"ui://b"}`))
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("err = %v, want a duplicate-member error", err)
	}
	// An escaped key is the same member.
	err = m.UnmarshalJSON([]byte(`{"resourceUri":"ui://a","resource\u0055ri":"ui://b"}`))
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("escaped duplicate: err = %v", err)
	}
}

// TestAppMetaDuplicateAfterManyMembers: a member named twice is an error
// however many other members come first: a tool whose visibility is
// ["app"] by one reading and ["model"] by another must not decode.
func TestAppMetaDuplicateAfterManyMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 64 {
		fmt.Fprintf(&b, `"x%d":0,`, i)
	}
	b.WriteString(`"visibility":["app"],"visibility":["model"]}`)
	var m mcp.AppToolMeta
	err := m.UnmarshalJSON([]byte(b.String()))
	if !errors.Is(err, mcp.ErrAppMeta) || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("err = %v (visibility %q), want a duplicate-member error", err, m.Visibility)
	}
	var c mcp.AppCSP
	err = c.UnmarshalJSON([]byte(strings.Replace(strings.Replace(b.String(), `"visibility":["app"]`, `"connectDomains":[]`, 1),
		`"visibility":["model"]`, `"connectDomains":["https://evil.example"]`, 1)))
	if !errors.Is(err, mcp.ErrAppMeta) || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("csp: err = %v (connectDomains %q), want a duplicate-member error", err, c.ConnectDomains)
	}
}

func TestAppVisibleTo(t *testing.T) {
	var none mcp.AppToolMeta
	model := mcp.AppToolMeta{Visibility: []mcp.AppVisibility{mcp.AppVisibilityModel}}
	app := mcp.AppToolMeta{Visibility: []mcp.AppVisibility{mcp.AppVisibilityApp}}
	switch {
	case !none.VisibleTo(mcp.AppVisibilityApp) || !none.VisibleTo(mcp.AppVisibilityModel):
		t.Error("the default must be both")
	case model.VisibleTo(mcp.AppVisibilityApp) || !model.VisibleTo(mcp.AppVisibilityModel):
		t.Error(`["model"] must refuse the app`)
	case !app.VisibleTo(mcp.AppVisibilityApp) || app.VisibleTo(mcp.AppVisibilityModel):
		t.Error(`["app"] must refuse the model`)
	}
}

func TestSetAppOfToolWire(t *testing.T) {
	tool := mcp.Tool{Name: "show", Meta: mcp.Meta{"x": 1}}
	orig := tool.Meta
	mcp.SetAppOfTool(&tool, mcp.AppToolMeta{ResourceURI: "ui://demo/view", Visibility: []mcp.AppVisibility{"model", "app"}})
	if _, changed := orig["ui"]; changed {
		t.Fatal("SetAppOfTool changed the caller's map")
	}
	b, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"name":"show","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://demo/view","visibility":["model","app"]},"ui/resourceUri":"ui://demo/view","x":1}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	back, ok, err := mcp.AppOfTool(decodeTool(t, string(b)))
	if err != nil || !ok || back.ResourceURI != "ui://demo/view" || len(back.Visibility) != 2 {
		t.Fatalf("round trip: %+v %v %v", back, ok, err)
	}
}

func TestAppOfResource(t *testing.T) {
	var c mcp.ResourceContents
	in := `{"uri":"ui://a","mimeType":"text/html;profile=mcp-app","text":"<p>","_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"],"resourceDomains":["https://*.cdn.example"]},"permissions":{"camera":{},"clipboardWrite":{}},"domain":"a.example","prefersBorder":false}}}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	m, ok, err := mcp.AppOfResource(c.Meta)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if m.CSP == nil || m.CSP.ConnectDomains[0] != "https://api.example.com" || m.CSP.ResourceDomains[0] != "https://*.cdn.example" ||
		m.Permissions == nil || m.Permissions.Camera == nil || m.Permissions.ClipboardWrite == nil || m.Permissions.Microphone != nil ||
		m.Domain != "a.example" || m.PrefersBorder == nil || *m.PrefersBorder {
		t.Fatalf("decoded %+v", m)
	}
	if err := m.CSP.Check(); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	var got, want any
	if json.Unmarshal(b, &got) != nil || json.Unmarshal([]byte(in), &want) != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %s\nwant %s", b, in)
	}
	for _, bad := range []string{
		`{"prefersBorder":"yes"}`,
		`{"csp":{"connectDomains":"https://a"}}`,
		`{"csp":{"connectDomains":[1]}}`,
		`{"csp":[]}`,
		`{"permissions":{"camera":true}}`,
		`{"domain":1}`,
		`{"csp":{"frameDomains":[` + strings.Repeat(`"https://a",`, mcp.MaxCSPSources) + `"https://a"]}}`,
	} {
		if _, _, err := mcp.AppOfResource(mcp.Meta{"ui": json.RawMessage(bad)}); !errors.Is(err, mcp.ErrAppMeta) {
			t.Errorf("%s: err = %v, want ErrAppMeta", bad, err)
		}
	}
}

func TestCheckCSPSource(t *testing.T) {
	for _, ok := range []string{"https://a.example", "https://*.example.com", "http://127.0.0.1:8080", "wss://rt.example"} {
		if err := mcp.CheckCSPSource(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"", "a.example", "javascript://x", "https://", "https://a b", "https://a;script-src *",
		"https://a'unsafe-eval'", "https://a/path", "https://a:", "https://a:123456", "https://*",
		"https://" + strings.Repeat("a", mcp.MaxCSPSourceLen),
	} {
		if err := mcp.CheckCSPSource(bad); !errors.Is(err, mcp.ErrAppMeta) {
			t.Errorf("%q: err = %v, want ErrAppMeta", bad, err)
		}
	}
}

func TestCheckAppURI(t *testing.T) {
	if err := mcp.CheckAppURI("ui://demo/view.html"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "ui://", "https://x", "UI://x", "ui:x", "ui://%zz"} {
		if err := mcp.CheckAppURI(bad); !errors.Is(err, mcp.ErrAppMeta) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

// The capability travels in ClientCapabilities in both eras: initialize
// params (legacy) and the request _meta (modern).
func TestAppsCapabilityBothEras(t *testing.T) {
	caps := mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{mcp.ExtensionApps: mcp.DeclareApps()}}
	if !caps.SupportsApps() {
		t.Fatal("DeclareApps does not declare Apps")
	}
	b, _ := json.Marshal(caps)
	if string(b) != `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}` {
		t.Fatalf("wire: %s", b)
	}
	var legacy mcp.InitializeParams
	if err := json.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","capabilities":`+string(b)+`,"clientInfo":{"name":"h","version":"1"}}`), &legacy); err != nil {
		t.Fatal(err)
	}
	if !legacy.Capabilities.SupportsApps() {
		t.Error("legacy: not found")
	}
	meta, err := mcp.DecodeRequestMeta([]byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + string(b) + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !meta.ClientCapabilities.SupportsApps() {
		t.Error("modern: not found")
	}
	for _, other := range []string{`{}`, `{"mimeTypes":["text/html"]}`, `{"mimeTypes":"text/html;profile=mcp-app"}`} {
		c := mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{mcp.ExtensionApps: json.RawMessage(other)}}
		if c.SupportsApps() {
			t.Errorf("%s: SupportsApps", other)
		}
	}
	if _, ok, err := (&mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{mcp.ExtensionApps: json.RawMessage(`[]`)}}).AppsSettings(); !ok || err == nil {
		t.Error("an array as settings must be an error")
	}
}
