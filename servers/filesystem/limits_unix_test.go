//go:build unix

package filesystem

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	cs := startOurs(t, []string{dir}, nil, "2025-11-25", nil)
	for _, tool := range []string{"read_text_file", "read_media_file"} {
		r := callTool(t, cs, dir, tool, a("path", "fifo"))
		if !r.IsError || !strings.Contains(r.Text, "Cannot read: not a regular file: ") {
			t.Errorf("%s of a FIFO: %+v", tool, r)
		}
	}
	r := callTool(t, cs, dir, "read_text_file", a("path", "fifo", "head", 1))
	if !r.IsError {
		t.Errorf("head of a FIFO: %+v", r)
	}
}
