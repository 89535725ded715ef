package transport

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// lineToolsCall is a typical MCP request line.
const lineToolsCall = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"New York"}}}`

// lineRepeatReader returns line over and over, without end.
type lineRepeatReader struct {
	line []byte
	off  int
}

func (r *lineRepeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.line[r.off:])
		n += k
		r.off = (r.off + k) % len(r.line)
	}
	return n, nil
}

// lineKnownMethods stands for mcp.KnownMethods(), which package transport
// may not import.
var lineKnownMethods = []string{"tools/call", "ping", "notifications/initialized"}

func BenchmarkLineConnRead(b *testing.B) {
	c := NewLineConn(&lineRepeatReader{line: []byte(lineToolsCall + "\n")}, io.Discard, nil, &LineOptions{Methods: lineKnownMethods})
	defer c.Close()
	ctx := context.Background()
	b.SetBytes(int64(len(lineToolsCall) + 1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLineConnWrite(b *testing.B) {
	c := NewLineConn(&lineRepeatReader{line: []byte("\n")}, io.Discard, nil, nil)
	defer c.Close()
	ctx := context.Background()
	m := &jsonrpc.Response{ID: jsonrpc.Int64ID(42), Result: json.RawMessage(`{"content":[{"type":"text","text":"Sunny, 22°C"}],"isError":false}`)}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Write(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLineConnReadAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count")
	}
	c := NewLineConn(&lineRepeatReader{line: []byte(lineToolsCall + "\n")}, io.Discard, nil, &LineOptions{Methods: lineKnownMethods})
	defer c.Close()
	ctx := context.Background()
	c.Read(ctx) // start the reader
	// The frame and the decoded *jsonrpc.Request.
	if n := testing.AllocsPerRun(1000, func() { c.Read(ctx) }); n > 2 {
		t.Errorf("Read allocates %v times per message, want at most 2", n)
	}
	w := NewLineConn(&lineRepeatReader{line: []byte("\n")}, io.Discard, nil, nil)
	defer w.Close()
	m := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}
	if n := testing.AllocsPerRun(1000, func() { w.Write(ctx, m) }); n != 0 {
		t.Errorf("Write allocates %v times per message, want 0", n)
	}
}
