package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

func TestRequestMetaKeepsOtherKeysVerbatim(t *testing.T) {
	const in = `{
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		"com.example/weird": {"b": 1.50, "a": [1, 2 , 3], "z": "\u00e9"},
		"io.modelcontextprotocol/related-task": {"taskId":"t1"},
		"n": 12345678901234567890
	}`
	var m RequestMeta
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if m.ProtocolVersion != Version20260728 {
		t.Errorf("ProtocolVersion = %q", m.ProtocolVersion)
	}
	want := map[string]string{
		"traceparent":                          `"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`,
		"com.example/weird":                    `{"b": 1.50, "a": [1, 2 , 3], "z": "\u00e9"}`,
		"io.modelcontextprotocol/related-task": `{"taskId":"t1"}`,
		"n":                                    `12345678901234567890`,
	}
	if len(m.Other) != len(want) {
		t.Errorf("Other has %d keys, want %d: %v", len(m.Other), len(want), m.Other)
	}
	for k, v := range want {
		if got := string(m.Other[k]); got != v {
			t.Errorf("Other[%q] = %s, want %s (verbatim)", k, got, v)
		}
	}
	out, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	// Typed keys first, then the others sorted, each value byte for byte.
	// (json.Marshal then compacts the whitespace away, keeping every token
	// as it is: 1.50 stays 1.50, \u00e9 stays escaped.)
	const wantOut = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"com.example/weird":{"b": 1.50, "a": [1, 2 , 3], "z": "\u00e9"},` +
		`"io.modelcontextprotocol/related-task":{"taskId":"t1"},` +
		`"n":12345678901234567890,` +
		`"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`
	if string(out) != wantOut {
		t.Errorf("marshal:\n got %s\nwant %s", out, wantOut)
	}
	out, _ = json.Marshal(m)
	if want := strings.Replace(wantOut, `{"b": 1.50, "a": [1, 2 , 3], "z": "\u00e9"}`,
		`{"b":1.50,"a":[1,2,3],"z":"\u00e9"}`, 1); string(out) != want {
		t.Errorf("json.Marshal:\n got %s\nwant %s", out, want)
	}
	// The retained values must not alias the input.
	buf := []byte(in)
	var m2 RequestMeta
	if err := json.Unmarshal(buf, &m2); err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'x'
	}
	if string(m2.Other["n"]) != "12345678901234567890" {
		t.Error("Other aliases the decoded buffer")
	}
}

func TestRequestMetaTypedKeys(t *testing.T) {
	const in = `{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},` +
		`"io.modelcontextprotocol/logLevel":"warning"}`
	var m RequestMeta
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if n, ok := m.ProgressToken.Int64(); !ok || n != 7 {
		t.Errorf("ProgressToken = %v", m.ProgressToken)
	}
	if m.ClientInfo == nil || m.ClientInfo.Name != "c" {
		t.Errorf("ClientInfo = %+v", m.ClientInfo)
	}
	if !m.ClientCapabilities.ElicitForm() || m.ClientCapabilities.ElicitURL() {
		t.Errorf("ClientCapabilities = %+v", m.ClientCapabilities)
	}
	if m.LogLevel != LevelWarning || m.Other != nil || !m.IsModern() {
		t.Errorf("LogLevel = %q, Other = %v", m.LogLevel, m.Other)
	}
	out, _ := json.Marshal(m)
	if string(out) != in {
		t.Errorf("marshal:\n got %s\nwant %s", out, in)
	}
}

func TestProgressTokenKeepsItsJSONType(t *testing.T) {
	for _, tok := range []string{`1`, `"1"`, `-3`, `"abc"`, `9223372036854775808`, `"\u00e9"`} {
		var p CallToolParams
		if err := json.Unmarshal([]byte(`{"name":"x","_meta":{"progressToken":`+tok+`}}`), &p); err != nil {
			t.Fatalf("%s: %v", tok, err)
		}
		n := ProgressParams{ProgressToken: p.Meta.ProgressToken, Progress: 1}
		out, _ := json.Marshal(n)
		var back struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		}
		json.Unmarshal(out, &back)
		var want, got any
		json.Unmarshal([]byte(tok), &want)
		json.Unmarshal(back.ProgressToken, &got)
		if want != got {
			t.Errorf("token %s echoed as %s", tok, back.ProgressToken)
		}
		if strings.HasPrefix(tok, `"`) != strings.HasPrefix(string(back.ProgressToken), `"`) {
			t.Errorf("token %s changed JSON type: %s", tok, back.ProgressToken)
		}
	}
}

func TestRequestMetaErrorsAndNulls(t *testing.T) {
	bad := []string{
		`{"progressToken":1.5}`,
		`{"progressToken":true}`,
		`{"io.modelcontextprotocol/protocolVersion":20260728}`,
		`{"io.modelcontextprotocol/clientCapabilities":"all"}`,
		`{"io.modelcontextprotocol/logLevel":["info"]}`,
		`[]`,
	}
	for _, in := range bad {
		var m RequestMeta
		if err := json.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	var m RequestMeta
	if err := json.Unmarshal([]byte(`{"progressToken":null,"io.modelcontextprotocol/protocolVersion":null}`), &m); err != nil {
		t.Fatal(err)
	}
	if !m.IsZero() {
		t.Errorf("null typed keys should read as absent: %+v", m)
	}
	if err := json.Unmarshal([]byte(`null`), &m); err != nil || !m.IsZero() {
		t.Errorf("null _meta: %v %+v", err, m)
	}
}

func TestRequestMetaOmittedWhenZero(t *testing.T) {
	out, _ := json.Marshal(ListToolsParams{})
	if string(out) != `{}` {
		t.Errorf("empty params = %s", out)
	}
	p := CallToolParams{Name: "t", Meta: RequestMeta{ProgressToken: jsonrpc.StringID("p")}}
	out, _ = json.Marshal(p)
	if string(out) != `{"name":"t","_meta":{"progressToken":"p"}}` {
		t.Errorf("params = %s", out)
	}
	// A typed field wins over a duplicate key in Other.
	p.Meta.Other = map[string]json.RawMessage{MetaKeyProgressToken: json.RawMessage(`"dup"`), "x": nil}
	out, _ = json.Marshal(p.Meta)
	if string(out) != `{"progressToken":"p","x":null}` {
		t.Errorf("meta = %s", out)
	}
	if err := p.Meta.SetOther(MetaKeyTraceParent, "00-1-2-01"); err != nil || string(p.Meta.Other["traceparent"]) != `"00-1-2-01"` {
		t.Errorf("SetOther: %v %s", err, p.Meta.Other["traceparent"])
	}
}

func TestDecodeRequestMeta(t *testing.T) {
	params := []byte(`{"name":"get_weather","arguments":{"_meta":"not this one"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","progressToken":"t"}}`)
	m, err := DecodeRequestMeta(params)
	if err != nil {
		t.Fatal(err)
	}
	if m.ProtocolVersion != Version20251125 || m.ProgressToken != jsonrpc.StringID("t") {
		t.Errorf("meta = %+v", m)
	}
	for _, p := range []string{``, `null`, `{}`, `{"name":"x"}`} {
		m, err := DecodeRequestMeta([]byte(p))
		if err != nil || !m.IsZero() {
			t.Errorf("DecodeRequestMeta(%q) = %+v, %v", p, m, err)
		}
	}
	if _, err := DecodeRequestMeta([]byte(`{"_meta":{"progressToken":{}}}`)); err == nil {
		t.Error("bad token: no error")
	}
	if _, err := DecodeRequestMeta([]byte(`{"_meta":`)); err == nil {
		t.Error("truncated params: no error")
	}
}

func TestMetaDecode(t *testing.T) {
	var r EmptyResult
	if err := json.Unmarshal([]byte(`{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1",`+
		`"io.modelcontextprotocol/serverInfo":{"name":"s","version":"2"}}}`), &r); err != nil {
		t.Fatal(err)
	}
	var id jsonrpc.ID
	if ok, err := r.Meta.Decode(MetaKeySubscriptionID, &id); !ok || err != nil || id != jsonrpc.StringID("listen-1") {
		t.Errorf("subscriptionId = %v, %v, %v", id, ok, err)
	}
	var info Implementation
	if ok, err := r.Meta.Decode(MetaKeyServerInfo, &info); !ok || err != nil || info.Name != "s" {
		t.Errorf("serverInfo = %+v, %v, %v", info, ok, err)
	}
	if ok, _ := r.Meta.Decode("missing", &info); ok {
		t.Error("missing key reported present")
	}
}

func TestValidateMetaKey(t *testing.T) {
	valid := []string{
		"progressToken", "traceparent", "x", "a.b-c_d", "io.modelcontextprotocol/protocolVersion",
		"com.example/", "com.example-1.api/name", "a/b", "com.example/v1.2",
		"", // the grammar allows an empty name ("unless empty, ...")
	}
	invalid := []string{
		"-x", "x-", "_x", "a b", "/name", "com..example/x", "1com.example/x",
		"com.example-/x", "com.example/x/y", "com.exa_mple/x", "com.example/-x", "é",
	}
	for _, k := range valid {
		if err := ValidateMetaKey(k); err != nil {
			t.Errorf("ValidateMetaKey(%q) = %v", k, err)
		}
	}
	for _, k := range invalid {
		if err := ValidateMetaKey(k); err == nil {
			t.Errorf("ValidateMetaKey(%q) = nil", k)
		}
	}
}

func TestIsReservedMetaKey(t *testing.T) {
	tests := map[string]bool{
		"io.modelcontextprotocol/protocolVersion": true,
		"dev.mcp/x":                      true,
		"org.modelcontextprotocol.api/x": true,
		"com.mcp.tools/x":                true,
		"com.example.mcp/x":              false,
		"com.example/x":                  false,
		"mcp/x":                          false,
		"progressToken":                  true,
		"traceparent":                    true,
		"tracestate":                     true,
		"baggage":                        true,
		"myKey":                          false,
	}
	for k, want := range tests {
		if got := IsReservedMetaKey(k); got != want {
			t.Errorf("IsReservedMetaKey(%q) = %v, want %v", k, got, want)
		}
	}
}
