package jsonscan

import (
	"strings"
	"testing"
)

var benchTexts = []struct{ name, text string }{
	{"call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"New York"},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},` +
		`"io.modelcontextprotocol/clientCapabilities":{},"progressToken":"abc"}}}`},
	{"unicode", `{"text":"` + strings.Repeat("héllo wörld ✓ 日本語 ", 8) + `"}`},
	{"manykeys", `{` + manyMembers(40) + `}`},
	{"long", `{"text":"` + strings.Repeat("x", 64<<10) + `"}`},
	// Source code in a tool result: an escape every few bytes.
	{"escaped", `{"text":"` + strings.Repeat(`func main() {\n\tfmt.Println(\"hello, world\")\n}\n`, 16) + `"}`},
}

func BenchmarkScan(b *testing.B) {
	for _, tc := range benchTexts {
		b.Run(tc.name, func(b *testing.B) {
			data := []byte(tc.text)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				s := Scanner{Data: data, MaxDepth: 64, Flags: UTF8 | Duplicates}
				if !s.Document() {
					b.Fatal(s.Err())
				}
				s.Release()
			}
		})
	}
}

func BenchmarkSkipValue(b *testing.B) {
	for _, tc := range benchTexts {
		b.Run(tc.name, func(b *testing.B) {
			data := []byte(tc.text)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if SkipValue(data, 0) != len(data) {
					b.Fatal("short")
				}
			}
		})
	}
}

func BenchmarkMember(b *testing.B) {
	params := []byte(benchTexts[0].text)
	b.ReportAllocs()
	for b.Loop() {
		p := Member(params, "params")
		if !StringEqual(Member(Member(p, "_meta"), "io.modelcontextprotocol/protocolVersion"), "2026-07-28") {
			b.Fatal("no version")
		}
	}
}
