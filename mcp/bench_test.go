package mcp

import (
	"encoding/json"
	"testing"
)

var benchParams = []byte(`{"name":"get_weather","arguments":{"location":"New York"},"_meta":{` +
	`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{},"progressToken":"abc",` +
	`"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}`)

func BenchmarkDecodeCallToolParams(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var p CallToolParams
		if err := json.Unmarshal(benchParams, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRequestMeta(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequestMeta(benchParams); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeCallToolResult(b *testing.B) {
	r := &CallToolResult{Content: []Content{&TextContent{Text: "Current weather in New York: 72F, partly cloudy"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeCallToolResult(b *testing.B) {
	data := []byte(`{"content":[{"type":"text","text":"Current weather in New York: 72F, partly cloudy"}],"isError":false}`)
	b.ReportAllocs()
	for b.Loop() {
		var r CallToolResult
		if err := json.Unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAddDefaultMembers(b *testing.B) {
	res, _ := json.Marshal(&CallToolResult{Content: []Content{&TextContent{Text: "Current weather in New York: 72F"}}})
	defaults := []byte(`{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AddDefaultMembers(res, defaults); err != nil {
			b.Fatal(err)
		}
	}
}
