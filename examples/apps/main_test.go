package main

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeSDK stands for app-with-deps.js when the test has no EXT_APPS: a
// module that ends with an export statement, as the bundle does.
const fakeSDK = "class qB { constructor() {} }\nconst W9 = \"2026-01-26\";\nexport{W9 as LATEST_PROTOCOL_VERSION,qB as App};\n"

func sdk(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("EXT_APPS"); p != "" {
		s, err := readSDK(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
		t.Fatal("EXT_APPS is not set (scripts/install-peers.sh sets it)")
	}
	s, err := sdkModule(fakeSDK)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSDKModule(t *testing.T) {
	got, err := sdkModule(fakeSDK)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "globalThis.ExtApps = Object.freeze({LATEST_PROTOCOL_VERSION:W9,App:qB});\n") || strings.Contains(got, "export") {
		t.Errorf("sdkModule = %q", got)
	}
	for _, bad := range []string{"var a = 1;", "export{a as b}; var c;", "x</script>;export{a}"} {
		if _, err := sdkModule(bad); err == nil {
			t.Errorf("sdkModule(%q) = nil error", bad)
		}
	}
	if _, err := readSDK(""); err == nil {
		t.Error("readSDK without a path must fail")
	}
}

// TestApp: a host that renders Apps sees roll_dice with its interface and
// reroll for the App only; the interface is the page with the SDK inline
// and no reference to anything outside it; both tools roll.
func TestApp(t *testing.T) {
	srv, err := newServer(sdk(t))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	ct, st := memory.NewPair(nil)
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ss.Close(); ss.Wait() }()
	cs, err := client.New(mcp.Implementation{Name: "host", Version: "1"}, &client.Options{Apps: true}).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	vis := map[string][2]bool{}
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		app, err := cs.ReadApp(ctx, tool)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		vis[tool.Name] = [2]bool{app.Tool.VisibleTo(mcp.AppVisibilityModel), app.Tool.VisibleTo(mcp.AppVisibilityApp)}
		if !strings.Contains(app.HTML, "globalThis.ExtApps") || strings.Contains(app.HTML, "{{SDK}}") {
			t.Errorf("%s: the SDK is not inline", tool.Name)
		}
		if m := regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]*\s(src|href)=`).FindString(app.HTML); m != "" {
			t.Errorf("%s: the page loads something: %s", tool.Name, m)
		}
		if app.UI.PrefersBorder == nil || !*app.UI.PrefersBorder || app.UI.CSP != nil {
			t.Errorf("%s: the interface's metadata is %+v", tool.Name, app.UI)
		}
	}
	if vis["roll_dice"] != [2]bool{true, true} || vis["reroll"] != [2]bool{false, true} {
		t.Errorf("visibility (model, app): %v", vis)
	}
	for _, name := range []string{"roll_dice", "reroll"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{"sides":20}`)})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		var r Roll
		if err := json.Unmarshal(res.StructuredContent, &r); err != nil || r.Sides != 20 || r.Value < 1 || r.Value > 20 {
			t.Errorf("%s: %s (%v)", name, res.StructuredContent, err)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "roll_dice", Arguments: json.RawMessage(`{"sides":1000}`)})
	if err != nil || !res.IsError {
		t.Errorf("sides 1000: %v %+v, want a tool error", err, res)
	}
}
