package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestImplementationFastCodec checks that the hand-written Implementation
// codec of the _meta envelope gives what encoding/json gives.
func TestImplementationFastCodec(t *testing.T) {
	for _, impl := range []Implementation{
		{},
		{Name: "c", Version: "1"},
		{Name: "c", Title: "The <C> & \"co\"", Version: "1.0", Description: "é\n\t", WebsiteURL: "https://x.example/?a=1&b=2"},
		{Name: "c", Version: "1", Icons: []Icon{{Src: "https://x.example/i.png", Sizes: []string{"48x48"}}}},
	} {
		got, err := appendImplementation(nil, impl)
		if err != nil {
			t.Fatal(err)
		}
		var back Implementation
		if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, impl) {
			t.Errorf("appendImplementation(%+v) = %s: decodes to %+v, %v", impl, got, back, err)
		}
		want, _ := json.Marshal(impl)
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("appendImplementation(%+v) = %s, encoding/json writes %s", impl, got, want)
		}
	}
	for _, in := range []string{
		`{"name":"c","version":"1"}`,
		`{ "name" : "c" , "title":"T","version":"1","description":"d","websiteUrl":"u" }`,
		`{"name":"c\u00e9","version":"1"}`,
		`{"name":null,"version":"1"}`,
		`{"Name":"c","version":"1"}`, // another case: encoding/json matches it
		`{"name":"c","version":"1","icons":[{"src":"s"}]}`,
		`{"name":"c","version":"1","extra":true}`,
		`{"na\u006de":"c","version":"1"}`,
		`{"name":1,"version":"1"}`,
		`{}`,
		`null`,
		`[]`,
	} {
		var got, want Implementation
		gerr := decodeImplementation([]byte(in), &got)
		werr := json.Unmarshal([]byte(in), &want)
		if (gerr != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeImplementation(%s) = %+v, %v; encoding/json: %+v, %v", in, got, gerr, want, werr)
		}
	}
}

// TestRequestMetaEnvelopeRoundTrip checks the envelope of modern requests
// through the fast paths: empty capabilities, client info, result _meta.
func TestRequestMetaEnvelopeRoundTrip(t *testing.T) {
	m := RequestMeta{ProtocolVersion: Latest, ClientCapabilities: &ClientCapabilities{}, ClientInfo: &Implementation{Name: "c", Version: "1"}}
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	if string(b) != want {
		t.Errorf("MarshalJSON = %s, want %s", b, want)
	}
	var back RequestMeta
	if err := back.UnmarshalJSON([]byte(` { "io.modelcontextprotocol/clientCapabilities" : { } ,"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("UnmarshalJSON = %+v, want %+v", back, m)
	}
	for _, meta := range []Meta{
		{MetaKeyServerInfo: Implementation{Name: "s", Version: "2"}},
		{MetaKeyServerInfo: &Implementation{Name: "s", Version: "2"}},
		{MetaKeyServerInfo: (*Implementation)(nil)},
		{MetaKeyServerInfo: "x", "other": 1},
	} {
		got, err := appendMeta(nil, meta)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(meta)
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("appendMeta(%v) = %s, encoding/json writes %s", meta, got, want)
		}
	}
}
