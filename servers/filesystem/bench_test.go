//go:build unix

package filesystem

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
)

// benchTree writes a 1 MiB text file and 20,000 small files in 20 × 20
// directories (the tree of bench/cmd/fsbench).
func benchTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	var big bytes.Buffer
	for i := 0; big.Len() < 1<<20; i++ {
		fmt.Fprintf(&big, "line %07d: the quick brown fox jumps over the lazy dog\n", i)
	}
	os.WriteFile(filepath.Join(root, "big.txt"), big.Bytes()[:1<<20], 0o644)
	exts := []string{".go", ".txt", ".md", ".json"}
	for a := range 20 {
		for c := range 20 {
			dir := filepath.Join(root, "src", fmt.Sprintf("pkg%02d", a), fmt.Sprintf("mod%02d", c))
			os.MkdirAll(dir, 0o755)
			for f := range 50 {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d%s", f, exts[f%len(exts)])), []byte("content\n"), 0o644)
			}
		}
	}
	return root
}

// BenchmarkTools measures the calls of bench/cmd/fsbench in process (over
// transport/memory, in the legacy era), to profile them:
//
//	go test -run '^$' -bench Tools -benchmem -cpuprofile /tmp/cpu.out ./servers/filesystem
func BenchmarkTools(b *testing.B) {
	root := benchTree(b)
	cs := startOurs(b, []string{root}, nil, "2025-11-25", nil)
	for _, c := range []struct{ name, tool, args string }{
		{"read_text_file-1MiB", "read_text_file", `{"path":"big.txt"}`},
		{"directory_tree-20k", "directory_tree", `{"path":"src"}`},
		{"search_files-20k", "search_files", `{"path":"src","pattern":"**/*.go"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)}
			cpu0 := cpuTime()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), p)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			// CPU time, client and server: steadier than the wall clock on
			// a shared machine.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

var _ = client.Options{}

// cpuTime is the CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
