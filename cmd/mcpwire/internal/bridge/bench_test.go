package bridge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// nowhere is the stream of a benchmark's requests.
type nowhere struct{}

func (nowhere) Write(context.Context, jsonrpc.Message) error { return nil }

// BenchmarkModernCall serves modern tools/call requests through the pool
// (two processes of the tests' server), in parallel: what the bridge
// itself adds to each request (its ids, the members it reads, the queue
// of the request's messages), and the process's round trip. cpu-ns/op is
// the CPU time of the bridge's process alone (not its servers'), which a
// busy machine disturbs less than the time per request.
func BenchmarkModernCall(b *testing.B) {
	for _, size := range []int{100, 64 << 10} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			ctx := context.Background()
			br, err := New(ctx, Options{Command: testCommand, PoolSize: 2, PoolConcurrency: 64})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { br.Close(); br.Stop() }()
			params := []byte(`{"name":"echo","arguments":{"text":"` + strings.Repeat("x", size) + `"},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.SetParallelism(8)
			before := processCPU()
			b.ResetTimer()
			defer func() {
				cpu := processCPU() - before
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}()
			b.RunParallel(func(pb *testing.PB) {
				for i := int64(0); pb.Next(); i++ {
					resp := br.ServeStateless(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(i), Method: "tools/call", Params: params}, nowhere{})
					if resp == nil || resp.Error != nil {
						b.Errorf("%+v", resp)
						return
					}
				}
			})
		})
	}
}
