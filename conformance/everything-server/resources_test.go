package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// TestResources checks resources-list, resources-read-text,
// resources-read-binary, resources-templates-read, and caching's read of
// the first listed resource.
func TestResources(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		ctx := testCtx(t)
		cs := connect(t, newTestServer(t), e, nil)
		var uris []string
		for r, err := range cs.Resources(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if r.Name == "" {
				t.Errorf("%s has no name", r.URI)
			}
			uris = append(uris, r.URI)
		}
		// The skills' SKILL.md files follow (skills.go).
		if want := []string{"test://static-text", "test://static-binary", "test://watched-resource",
			"skill://acme/billing/refunds/SKILL.md", "skill://pdf-processing/SKILL.md"}; !slices.Equal(uris, want) {
			t.Errorf("resources %v, want %v", uris, want)
		}
		for _, uri := range uris { // the first one for caching, every one for good measure
			if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil || len(rr.Contents) == 0 {
				t.Errorf("read %s: %+v %v", uri, rr, err)
			}
		}

		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
		if err != nil {
			t.Fatal(err)
		}
		if want := (mcp.ResourceContents{URI: "test://static-text", MimeType: "text/plain", Text: "This is the content of the static text resource."}); len(rr.Contents) != 1 || !equalContents(rr.Contents[0], want) {
			t.Errorf("static-text: %+v", rr.Contents)
		}

		rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].URI != "test://static-binary" || rr.Contents[0].MimeType != "image/png" {
			t.Fatalf("static-binary: %+v", rr.Contents)
		}
		checkPNG(t, rr.Contents[0].Blob)

		var templates []mcp.ResourceTemplate
		for tpl, err := range cs.ResourceTemplates(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, *tpl)
		}
		if len(templates) != 1 || templates[0].URITemplate != "test://template/{id}/data" || templates[0].Name == "" || templates[0].MimeType != "application/json" {
			t.Errorf("templates %+v", templates)
		}
		rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/123/data"})
		if err != nil {
			t.Fatal(err)
		}
		if want := (mcp.ResourceContents{URI: "test://template/123/data", MimeType: "application/json", Text: `{"id":"123","templateTest":true,"data":"Data for ID: 123"}`}); len(rr.Contents) != 1 || !equalContents(rr.Contents[0], want) {
			t.Errorf("template: %+v", rr.Contents)
		}
	})
}

// TestResourceNotFound checks sep-2164-resource-not-found: -32602 with
// data.uri in the modern era, -32002 in a session; never empty contents.
func TestResourceNotFound(t *testing.T) {
	const uri = "test://nonexistent-resource-for-conformance-testing"
	forEachEra(t, func(t *testing.T, e era) {
		cs := connect(t, newTestServer(t), e, nil)
		rr, err := cs.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: uri})
		je, ok := errorsAs[*jsonrpc.Error](err)
		if !ok {
			t.Fatalf("read: %+v %v, want an error", rr, err)
		}
		want := mcp.CodeResourceNotFound
		if e.version == "" {
			want = jsonrpc.CodeInvalidParams
		}
		var data mcp.ResourceNotFoundData
		if je.Code != want || json.Unmarshal(je.Data, &data) != nil || data.URI != uri {
			t.Errorf("error %d %s, want %d with data.uri %s", je.Code, je.Data, want, uri)
		}
	})
}

// TestSubscriptionsLegacy checks resources-subscribe and
// resources-unsubscribe, and that a subscribed session hears of updates
// (test_trigger_resource_update) until it unsubscribes.
func TestSubscriptionsLegacy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var updated []string
		var changed []string
		cs := connect(t, newTestServer(t), eras[1], &client.Options{
			OnResourceUpdated: func(ctx context.Context, uri string) { mu.Lock(); updated = append(updated, uri); mu.Unlock() },
			OnListChanged:     func(ctx context.Context, method string) { mu.Lock(); changed = append(changed, method); mu.Unlock() },
		})
		ctx := testCtx(t)
		if err := cs.Subscribe(ctx, watchedURI); err != nil {
			t.Fatal(err)
		}
		if text := onlyText(t, callTool(t, ctx, cs, "test_trigger_resource_update", "{}")); text != "test://watched-resource is now at revision 2" {
			t.Errorf("trigger: %q", text)
		}
		eventually(t, "resources/updated", func() bool { mu.Lock(); defer mu.Unlock(); return len(updated) == 1 })
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: watchedURI})
		if err != nil || rr.Contents[0].Text != "Watched resource content, revision 2." {
			t.Errorf("watched resource after the update: %+v %v", rr, err)
		}
		if err := cs.Unsubscribe(ctx, watchedURI); err != nil {
			t.Fatal(err)
		}
		callTool(t, ctx, cs, "test_trigger_resource_update", "{}")
		// Notifications reach the client in order: once the list change that
		// follows has arrived, an update would have too.
		callTool(t, ctx, cs, "test_trigger_tool_change", "{}")
		eventually(t, "tools/list_changed", func() bool { mu.Lock(); defer mu.Unlock(); return len(changed) > 0 })
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(updated, []string{watchedURI}) {
			t.Errorf("updates %v, want one for %s", updated, watchedURI)
		}
	})
}

// TestTriggersLegacy checks that the triggers change the lists and that a
// session hears of it (list_changed).
func TestTriggersLegacy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var changed []string
		cs := connect(t, newTestServer(t), eras[1], &client.Options{
			OnListChanged: func(ctx context.Context, method string) { mu.Lock(); changed = append(changed, method); mu.Unlock() },
		})
		ctx := testCtx(t)
		hasTool := func() bool { return slices.Contains(toolNames(listTools(t, ctx, cs)), dynamicToolName) }
		hasPrompt := func() bool { return slices.Contains(promptNames(t, ctx, cs), dynamicPromptName) }

		if text := onlyText(t, callTool(t, ctx, cs, "test_trigger_tool_change", "{}")); text != "Added the tool test_dynamic_tool" || !hasTool() {
			t.Errorf("first tool trigger: %q", text)
		}
		if text := onlyText(t, callTool(t, ctx, cs, dynamicToolName, "{}")); !strings.Contains(text, "added at run time") {
			t.Errorf("dynamic tool: %q", text)
		}
		if text := onlyText(t, callTool(t, ctx, cs, "test_trigger_tool_change", "{}")); text != "Removed the tool test_dynamic_tool" || hasTool() {
			t.Errorf("second tool trigger: %q", text)
		}
		if text := onlyText(t, callTool(t, ctx, cs, "test_trigger_prompt_change", "{}")); text != "Added the prompt test_dynamic_prompt" || !hasPrompt() {
			t.Errorf("prompt trigger: %q", text)
		}
		if gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: dynamicPromptName}); err != nil || len(gp.Messages) != 1 {
			t.Errorf("dynamic prompt: %+v %v", gp, err)
		}
		// The two tool changes may come as one notification: the server
		// coalesces the changes a client has not been told of yet.
		eventually(t, "tools and prompts list_changed", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Contains(changed, mcp.NotificationToolListChanged) && slices.Contains(changed, mcp.NotificationPromptListChanged)
		})
		mu.Lock()
		defer mu.Unlock()
		tools := 0
		for _, m := range changed {
			switch m {
			case mcp.NotificationToolListChanged:
				tools++
			case mcp.NotificationPromptListChanged:
			default:
				t.Errorf("unexpected notification %s", m)
			}
		}
		if tools > 2 {
			t.Errorf("%d tools/list_changed for 2 changes: %v", tools, changed)
		}
	})
}

// promptNames lists the names of every prompt.
func promptNames(t *testing.T, ctx context.Context, cs *client.Session) []string {
	t.Helper()
	var names []string
	for p, err := range cs.Prompts(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	return names
}

// TestPrompts checks prompts-list and the prompts-get-* scenarios.
func TestPrompts(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		ctx := testCtx(t)
		cs := connect(t, newTestServer(t), e, nil)
		var names []string
		for p, err := range cs.Prompts(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if p.Description == "" {
				t.Errorf("%s has no description", p.Name)
			}
			names = append(names, p.Name)
		}
		want := []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt"}
		if !slices.Equal(names, want) {
			t.Errorf("prompts %v, want %v", names, want)
		}

		get := func(name string, args map[string]string) []mcp.PromptMessage {
			t.Helper()
			gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, m := range gp.Messages {
				if m.Role != mcp.RoleUser || m.Content == nil {
					t.Errorf("%s: message %+v", name, m)
				}
			}
			return gp.Messages
		}
		text := func(m mcp.PromptMessage) string {
			if tc, ok := m.Content.(*mcp.TextContent); ok {
				return tc.Text
			}
			return "<" + m.Content.Type() + ">"
		}

		if ms := get("test_simple_prompt", nil); len(ms) != 1 || text(ms[0]) != "This is a simple prompt for testing." {
			t.Errorf("test_simple_prompt: %+v", ms)
		}
		ms := get("test_prompt_with_arguments", map[string]string{"arg1": "testValue1", "arg2": "testValue2"})
		if len(ms) != 1 || text(ms[0]) != "Prompt with arguments: arg1='testValue1', arg2='testValue2'" {
			t.Errorf("test_prompt_with_arguments: %+v", ms)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "x"}}); err == nil {
			t.Error("test_prompt_with_arguments without arg2 must fail")
		}
		ms = get("test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"})
		if len(ms) != 2 || text(ms[1]) != "Please process the embedded resource above." {
			t.Fatalf("test_prompt_with_embedded_resource: %+v", ms)
		}
		if er, ok := ms[0].Content.(*mcp.EmbeddedResource); !ok || !equalContents(er.Resource, mcp.ResourceContents{URI: "test://example-resource", MimeType: "text/plain", Text: "Embedded resource content for testing."}) {
			t.Errorf("test_prompt_with_embedded_resource: first message %+v", ms[0].Content)
		}
		ms = get("test_prompt_with_image", nil)
		if len(ms) != 2 || text(ms[1]) != "Please analyze the image above." {
			t.Fatalf("test_prompt_with_image: %+v", ms)
		}
		if img, ok := ms[0].Content.(*mcp.ImageContent); !ok || img.MimeType != "image/png" {
			t.Errorf("test_prompt_with_image: first message %+v", ms[0].Content)
		} else {
			checkPNG(t, img.Data)
		}
	})
}

// TestCompletion checks completion-complete (values is an array) and the
// completer of test_prompt_with_arguments.
func TestCompletion(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		ctx := testCtx(t)
		cs := connect(t, newTestServer(t), e, nil)
		if cs.ServerCapabilities().Completions == nil {
			t.Error("completions capability not declared")
		}
		for _, c := range []struct {
			arg, value string
			want       []string
		}{
			{"arg1", "test", []string{"testValue1", "testValue2"}},
			{"arg1", "", []string{"testValue1", "testValue2", "sampleValue"}},
			{"arg2", "ex", []string{"exampleValue"}},
			{"arg1", "zzz", nil},
		} {
			res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: mcp.PromptRef("test_prompt_with_arguments"), Argument: mcp.CompleteArgument{Name: c.arg, Value: c.value}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Completion.Values, c.want) {
				t.Errorf("%s=%q: %v, want %v", c.arg, c.value, res.Completion.Values, c.want)
			}
		}
		// The wire form of an empty completion is an array.
		var raw struct {
			Completion struct {
				Values json.RawMessage `json:"values"`
			} `json:"completion"`
		}
		params := map[string]any{"ref": map[string]string{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]string{"name": "arg1", "value": "zzz"}}
		if err := cs.Call(ctx, mcp.MethodComplete, params, &raw); err != nil || string(raw.Completion.Values) != "[]" {
			t.Errorf("empty completion: values %s, %v", raw.Completion.Values, err)
		}
	})
}

// TestCapabilities checks what the server declares (§8 "Capabilities").
func TestCapabilities(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		c := connect(t, newTestServer(t), e, nil).ServerCapabilities()
		if c.Tools == nil || !c.Tools.ListChanged || c.Prompts == nil || !c.Prompts.ListChanged ||
			c.Resources == nil || !c.Resources.ListChanged || !c.Resources.Subscribe || c.Completions == nil || c.Logging == nil {
			t.Errorf("capabilities %+v", c)
		}
	})
}
