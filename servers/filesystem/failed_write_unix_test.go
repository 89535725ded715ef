//go:build unix

package filesystem

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteFileRefusesToReplaceAFIFO: write_file over a FIFO (or a socket,
// a device) refuses, as the official server does; it replaced the FIFO
// with a regular file.
func TestWriteFileRefusesToReplaceAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	cs := startOurs(t, []string{dir}, nil, "2025-11-25", nil)
	r := callTool(t, cs, dir, "write_file", a("path", "fifo", "content", "x"))
	if !r.IsError || !strings.Contains(r.Text, "not a regular file") {
		t.Errorf("write_file over a FIFO: %+v", r)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is gone: %v, %v", fi, err)
	}
}

// TestFailedWriteLeavesNoFile: a write_file of a new file that fails part
// way (here past the process's file size limit, EFBIG) leaves no file
// behind; it left the part it had written.
func TestFailedWriteLeavesNoFile(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	dir := t.TempDir()
	cs := startOurs(t, []string{dir}, nil, "2025-11-25", nil)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = 64 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	r := callTool(t, cs, dir, "write_file", a("path", "new.txt", "content", strings.Repeat("x", 256<<10)))
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if !r.IsError {
		t.Fatalf("a write past the size limit succeeded: %+v", r)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "new.txt")); err == nil {
		t.Errorf("the failed write left new.txt (%d bytes)", fi.Size())
	}
}

// TestFailedAppendAndCopyLeaveNothing: an append_file that fails part way
// takes back what it wrote, and a copy_file that fails removes its copy.
func TestFailedAppendAndCopyLeaveNothing(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "log.txt"), []byte("ten bytes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("b", 256<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := startOurs(t, []string{dir}, nil, "2025-11-25", nil)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = 64 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	app := callTool(t, cs, dir, "append_file", a("path", "log.txt", "content", strings.Repeat("x", 256<<10)))
	cp := callTool(t, cs, dir, "copy_file", a("source", "big.txt", "destination", "copy.txt"))
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if !app.IsError || !cp.IsError {
		t.Fatalf("past the size limit: append %+v, copy %+v", app, cp)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "log.txt")); string(b) != "ten bytes\n" {
		t.Errorf("the failed append left %d bytes", len(b))
	}
	if _, err := os.Lstat(filepath.Join(dir, "copy.txt")); err == nil {
		t.Error("the failed copy left copy.txt")
	}
}

// inChildProcess runs the calling test again in a child process and reports
// its outcome, returning false; in that child it returns true. The tests that
// lower the file size limit (RLIMIT_FSIZE) run there because the limit is the
// whole process's: set in the test binary that go test runs, it also stopped
// the framework's own log ("can't write testlog.txt: file too large", a red CI).
func inChildProcess(t *testing.T) bool {
	const env = "MCPWIRE_TEST_CHILD"
	if os.Getenv(env) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("in a child process: %v\n%s", err, out)
	case bytes.Contains(out, []byte("--- SKIP")):
		t.Skipf("skipped in the child process:\n%s", out)
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name())):
		t.Fatalf("the child process ran no test:\n%s", out)
	}
	return false
}
