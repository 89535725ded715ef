package jsonrpc

import (
	"strings"
	"testing"
)

// benchFrames are the frames the decoder sees most: a tools/call with a
// modern _meta envelope, its answer, and shapes that take the slower paths
// (escapes, non-ASCII text, big objects, long strings, batches).
var benchFrames = []struct{ name, frame string }{
	{"call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"New York"},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},` +
		`"io.modelcontextprotocol/clientCapabilities":{},"progressToken":"abc"}}}`},
	{"result", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Current weather in New York: 72F, partly cloudy"}],"isError":false}}`},
	{"escaped", `{"jsonrpc":"2.0","id":"a\"b","method":"tools\/call","params":{"text":"line\none\ttab \u00e9\ud83d\ude00 \\ end"}}`},
	{"unicode", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"text":"` + strings.Repeat("héllo wörld ✓ 日本語 ", 8) + `"}}`},
	{"manykeys", `{"jsonrpc":"2.0","id":1,"method":"m","params":{` + manyKeys(40, "") + `}}`},
	{"long", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"text":"` + strings.Repeat("x", 64<<10) + `"}}`},
	{"numbers", `{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat("-12.5e3,0,123456789,", 20) + `1]}`},
	{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a","params":{}},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":2,"result":null}]`},
}

func BenchmarkDecode(b *testing.B) {
	dec := NewDecoder(Limits{}, "tools/call", "m", "a", "b")
	for _, f := range benchFrames {
		b.Run(f.name, func(b *testing.B) {
			data := []byte(f.frame)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := dec.Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValid(b *testing.B) {
	for _, f := range benchFrames {
		b.Run(f.name, func(b *testing.B) {
			data := []byte(f.frame)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := Valid(data, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
