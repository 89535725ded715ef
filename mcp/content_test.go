package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestContentDispatch(t *testing.T) {
	tests := []struct {
		in   string
		want Content
	}{
		{`{"type":"text","text":"hi"}`, &TextContent{Text: "hi"}},
		{`{"text":"hi","type":"text"}`, &TextContent{Text: "hi"}},
		{`{"type":"image","data":"AAEC","mimeType":"image/png"}`, &ImageContent{Data: "AAEC", MimeType: "image/png"}},
		{`{"type":"audio","data":"AAEC","mimeType":"audio/wav"}`, &AudioContent{Data: "AAEC", MimeType: "audio/wav"}},
		{`{"type":"resource_link","uri":"file:///a","name":"a"}`, &ResourceLink{Resource{URI: "file:///a", Name: "a"}}},
		{`{"type":"resource","resource":{"uri":"file:///a","text":""}}`, &EmbeddedResource{Resource: ResourceContents{URI: "file:///a"}}},
		{`{"type":"tool_use","id":"1","name":"f","input":{"a":1}}`, &ToolUseContent{ID: "1", Name: "f", Input: json.RawMessage(`{"a":1}`)}},
		{`{"type":"tool_result","toolUseId":"1","content":[]}`, &ToolResultContent{ToolUseID: "1", Content: ContentList{}}},
		// An escaped type name is still the type.
		{`{"type":"te\u0078t","text":"x"}`, &TextContent{Text: "x"}},
	}
	for _, tt := range tests {
		c, err := UnmarshalContent([]byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if c.Type() != tt.want.Type() {
			t.Errorf("%s: type %s, want %s", tt.in, c.Type(), tt.want.Type())
		}
		got, _ := json.Marshal(c)
		want, _ := json.Marshal(tt.want)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: decoded to %s, want %s", tt.in, got, want)
		}
	}
}

func TestContentErrors(t *testing.T) {
	tests := []struct {
		in, where, wantErr string
	}{
		{`{"type":"video","data":""}`, "any", `unknown content type "video"`},
		{`{"text":"no type"}`, "any", `has no "type"`},
		{`{"type":7}`, "any", `"type" must be a string`},
		{`{"type":"text","text":5}`, "any", `text content`},
		{`[{"type":"tool_use","id":"1","name":"f","input":{}}]`, "list", `"tool_use" is not allowed in a content list`},
		{`[{"type":"text","text":"a"},{"type":"nope"}]`, "list", `unknown content type "nope"`},
		{`{"type":"text","text":"a"}`, "list", `expected a JSON array`},
		{`[{"type":"resource_link","uri":"u","name":"n"}]`, "sampling", `"resource_link" is not allowed in sampling content`},
		{`{"type":"resource","resource":{"uri":"u","text":""}}`, "sampling", `"resource" is not allowed`},
		{`{"role":"user","content":{"type":"tool_use","id":"1","name":"f","input":{}}}`, "prompt", `not allowed in a prompt message`},
		{`{"role":"user"}`, "prompt", `no content`},
	}
	for _, tt := range tests {
		var err error
		switch tt.where {
		case "any":
			_, err = UnmarshalContent([]byte(tt.in))
		case "list":
			var l ContentList
			err = json.Unmarshal([]byte(tt.in), &l)
		case "sampling":
			var s SamplingContent
			err = json.Unmarshal([]byte(tt.in), &s)
		case "prompt":
			var m PromptMessage
			err = json.Unmarshal([]byte(tt.in), &m)
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s %s: error %v, want %q", tt.where, tt.in, err, tt.wantErr)
		}
	}
	// An unknown type inside a tool result fails the whole result.
	var r CallToolResult
	err := json.Unmarshal([]byte(`{"content":[{"type":"hologram"}]}`), &r)
	if err == nil || !strings.Contains(err.Error(), `unknown content type "hologram"`) {
		t.Errorf("CallToolResult: %v", err)
	}
	if _, err := json.Marshal(CallToolResult{Content: ContentList{nil}}); err == nil {
		t.Error("a nil block marshaled")
	}
}

func TestContentListEncoding(t *testing.T) {
	out, _ := json.Marshal(CallToolResult{})
	if string(out) != `{"content":[]}` {
		t.Errorf("empty result = %s", out)
	}
	r := CallToolResult{Content: []Content{&TextContent{Text: "a\n\"b\"<"}, NewImageContent([]byte{0, 1, 2}, "image/png")}}
	out, _ = json.Marshal(r)
	const want = `{"content":[{"type":"text","text":"a\n\"b\"\u003c"},{"type":"image","data":"AAEC","mimeType":"image/png"}]}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	var back CallToolResult
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if text := back.Content[0].(*TextContent).Text; text != "a\n\"b\"<" {
		t.Errorf("text = %q", text)
	}
	if b, err := back.Content[1].(*ImageContent).Bytes(); err != nil || !bytes.Equal(b, []byte{0, 1, 2}) {
		t.Errorf("image bytes = %v, %v", b, err)
	}
	// A []Content converts to and from ContentList freely.
	var plain []Content = back.Content
	back.Content = append(plain, &TextContent{})
	if len(back.Content) != 3 {
		t.Error("append")
	}
	// A text block with annotations and _meta takes the general path.
	p := 0.5
	out, _ = json.Marshal(&TextContent{Text: "x", Annotations: &Annotations{Priority: &p}, Meta: Meta{"k": "v"}})
	if string(out) != `{"type":"text","text":"x","annotations":{"priority":0.5},"_meta":{"k":"v"}}` {
		t.Errorf("annotated text = %s", out)
	}
	out, _ = json.Marshal(&ToolUseContent{ID: "1", Name: "f"})
	if string(out) != `{"type":"tool_use","id":"1","name":"f","input":{}}` {
		t.Errorf("tool use without input = %s", out)
	}
}

func TestSamplingContentForms(t *testing.T) {
	for _, tt := range []struct{ in, out string }{
		{`{"type":"text","text":"a"}`, `{"type":"text","text":"a"}`},
		{`[{"type":"text","text":"a"}]`, `{"type":"text","text":"a"}`}, // one block: the single form
		{`[{"type":"text","text":"a"},{"type":"text","text":"b"}]`, `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`},
		{`[]`, `[]`},
	} {
		var m SamplingMessage
		if err := json.Unmarshal([]byte(`{"role":"user","content":`+tt.in+`}`), &m); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		out, _ := json.Marshal(m)
		if want := `{"role":"user","content":` + tt.out + `}`; string(out) != want {
			t.Errorf("%s: got %s, want %s", tt.in, out, want)
		}
	}
	var res CreateMessageResult
	err := json.Unmarshal([]byte(`{"role":"assistant","content":{"type":"tool_use","id":"c","name":"f","input":{"x":1}},"model":"m","stopReason":"toolUse"}`), &res)
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := res.Content[0].(*ToolUseContent); !ok || string(u.Input) != `{"x":1}` {
		t.Errorf("content = %#v", res.Content)
	}
}

func TestResourceContentsTextOrBlob(t *testing.T) {
	tests := []struct {
		c    ResourceContents
		want string
	}{
		{ResourceContents{URI: "u"}, `{"uri":"u","text":""}`},
		{ResourceContents{URI: "u", MimeType: "text/plain", Text: "hi"}, `{"uri":"u","mimeType":"text/plain","text":"hi"}`},
		{NewBlobContents("u", "image/png", []byte{0xff, 0}), `{"uri":"u","mimeType":"image/png","blob":"/wA="}`},
	}
	for _, tt := range tests {
		out, _ := json.Marshal(tt.c)
		if string(out) != tt.want {
			t.Errorf("got %s, want %s", out, tt.want)
		}
	}
	var c ResourceContents
	json.Unmarshal([]byte(`{"uri":"u","blob":"/wA"}`), &c) // unpadded, as some peers send
	if b, err := c.Bytes(); err != nil || !bytes.Equal(b, []byte{0xff, 0}) || !c.IsBlob() {
		t.Errorf("blob = %v, %v", b, err)
	}
	if _, err := DecodeBase64("not base64!"); err == nil {
		t.Error("DecodeBase64 accepted garbage")
	}
}

func TestContentListText(t *testing.T) {
	l := ContentList{&TextContent{Text: "a"}, NewImageContent([]byte{1}, "image/png"), &TextContent{Text: "b"}}
	if got := l.Text(); got != "a\nb" {
		t.Errorf("Text() = %q", got)
	}
	if got := (ContentList{}).Text(); got != "" {
		t.Errorf("empty: %q", got)
	}
}
