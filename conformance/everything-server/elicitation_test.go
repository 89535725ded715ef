package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// schemaOf decodes a requestedSchema into generic JSON.
func schemaOf(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s["type"] != "object" {
		t.Errorf("requestedSchema type %v, want object", s["type"])
	}
	return s
}

// property returns a property of a decoded schema.
func property(t *testing.T, s map[string]any, name string) map[string]any {
	t.Helper()
	props, _ := s["properties"].(map[string]any)
	p, ok := props[name].(map[string]any)
	if !ok {
		t.Fatalf("no property %q in %v", name, s)
	}
	return p
}

// TestElicitationTool checks tools-call-elicitation: the request carries
// the message and a flat object schema, and the result renders the answer.
func TestElicitationTool(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		h := &handlers{}
		cs := connect(t, newTestServer(t), e, h.options())
		text := onlyText(t, callTool(t, testCtx(t), cs, "test_elicitation", `{"message":"Please provide your information"}`))
		if want := `User response: action=accept, content={"email":"test@example.com","username":"testuser"}`; text != want {
			t.Errorf("text %q, want %q", text, want)
		}
		if len(h.elicits) != 1 {
			t.Fatalf("%d elicitations", len(h.elicits))
		}
		p := h.elicits[0]
		if p.Message != "Please provide your information" || (p.Mode != "" && p.Mode != "form") {
			t.Errorf("params %+v", p)
		}
		s := schemaOf(t, p.RequestedSchema)
		for _, name := range []string{"username", "email"} {
			if prop := property(t, s, name); prop["type"] != "string" {
				t.Errorf("%s: %v", name, prop)
			}
		}
		if !reflect.DeepEqual(s["required"], []any{"username", "email"}) {
			t.Errorf("required %v", s["required"])
		}
	})
}

// TestElicitationSEP1034Defaults checks the 5 checks of
// elicitation-sep1034-defaults: each field's exact type and default.
func TestElicitationSEP1034Defaults(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		h := &handlers{}
		cs := connect(t, newTestServer(t), e, h.options())
		text := onlyText(t, callTool(t, testCtx(t), cs, "test_elicitation_sep1034_defaults", "{}"))
		if !strings.HasPrefix(text, "Elicitation completed: action=accept, content=") {
			t.Errorf("text %q", text)
		}
		if len(h.elicits) != 1 {
			t.Fatalf("%d elicitations", len(h.elicits))
		}
		s := schemaOf(t, h.elicits[0].RequestedSchema)
		want := map[string][2]any{
			"name":     {"string", "John Doe"},
			"age":      {"integer", 30.0},
			"score":    {"number", 95.5},
			"status":   {"string", "active"},
			"verified": {"boolean", true},
		}
		for name, w := range want {
			p := property(t, s, name)
			if p["type"] != w[0] || p["default"] != w[1] {
				t.Errorf("%s: type %v default %v, want %v %v", name, p["type"], p["default"], w[0], w[1])
			}
		}
		if enum, _ := property(t, s, "status")["enum"].([]any); !reflect.DeepEqual(enum, []any{"active", "inactive", "pending"}) {
			t.Errorf("status enum %v", enum)
		}
		if req, ok := s["required"].([]any); !ok || len(req) != 0 {
			t.Errorf("required %v, want []", s["required"])
		}
		// The age default is written as an integer, not 30.0.
		if !strings.Contains(string(h.elicits[0].RequestedSchema), `"default":30}`) {
			t.Errorf("age default not an integer literal: %s", h.elicits[0].RequestedSchema)
		}
	})
}

// TestElicitationSEP1330Enums checks the 5 checks of
// elicitation-sep1330-enums.
func TestElicitationSEP1330Enums(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		h := &handlers{}
		cs := connect(t, newTestServer(t), e, h.options())
		text := onlyText(t, callTool(t, testCtx(t), cs, "test_elicitation_sep1330_enums", "{}"))
		if !strings.HasPrefix(text, "Elicitation completed: action=accept") {
			t.Errorf("text %q", text)
		}
		if len(h.elicits) != 1 {
			t.Fatalf("%d elicitations", len(h.elicits))
		}
		s := schemaOf(t, h.elicits[0].RequestedSchema)
		isConstTitles := func(v any) bool {
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return false
			}
			for _, o := range list {
				m, ok := o.(map[string]any)
				if _, isString := m["const"].(string); !ok || !isString || m["title"] == nil {
					return false
				}
			}
			return true
		}

		p := property(t, s, "untitledSingle")
		if p["type"] != "string" || p["enum"] == nil || p["oneOf"] != nil || p["enumNames"] != nil {
			t.Errorf("untitledSingle %v", p)
		}
		p = property(t, s, "titledSingle")
		if p["type"] != "string" || !isConstTitles(p["oneOf"]) || p["enum"] != nil {
			t.Errorf("titledSingle %v", p)
		}
		p = property(t, s, "legacyEnum")
		enum, _ := p["enum"].([]any)
		names, _ := p["enumNames"].([]any)
		if p["type"] != "string" || len(enum) == 0 || len(names) != len(enum) {
			t.Errorf("legacyEnum %v", p)
		}
		p = property(t, s, "untitledMulti")
		items, _ := p["items"].(map[string]any)
		if p["type"] != "array" || items["type"] != "string" || items["enum"] == nil || items["anyOf"] != nil {
			t.Errorf("untitledMulti %v", p)
		}
		p = property(t, s, "titledMulti")
		items, _ = p["items"].(map[string]any)
		if p["type"] != "array" || !isConstTitles(items["anyOf"]) || items["enum"] != nil {
			t.Errorf("titledMulti %v", p)
		}
	})
}

// TestStreamingElicitation checks test_streaming_elicitation through the
// client: it completes with the user's answer in both eras.
func TestStreamingElicitation(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		h := &handlers{}
		cs := connect(t, newTestServer(t), e, h.options())
		text := onlyText(t, callTool(t, testCtx(t), cs, "test_streaming_elicitation", "{}"))
		if want := `Streaming elicitation completed: action=accept, content={"confirmed":true}`; text != want {
			t.Errorf("text %q, want %q", text, want)
		}
	})
}
