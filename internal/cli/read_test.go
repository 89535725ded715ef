package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/mcp"
)

func TestReadParse(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	var got *readOptions
	cmds := func(a *app) []*cobra.Command {
		return []*cobra.Command{newReadCmd(a, func(_ context.Context, o *readOptions) error { got = o; return nil })}
	}
	if code := e.executeWith(cmds, "read", "test://logo", "-o", "logo.png", "--", "srv"); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	if got.URI != "test://logo" || got.Output != "logo.png" {
		t.Errorf("options %+v", got)
	}

	got = nil
	if code := e.executeWith(cmds, "read", "test://logo", "--output", "x", "--json", "--", "srv"); code != exitUsage || got != nil {
		t.Errorf("--output with --json: exit %d, options %+v", code, got)
	}
	checkOutput(t, "stderr", e.stderr.String(), "mcpwire: --output and --json do not go together\n")
}

func TestRunRead(t *testing.T) {
	tests := []struct{ uri, want string }{
		{"test://readme", "Hello from the test server.\n"},
		{"test://notes/7", "note 7\n"},
		{"test://logo", "[binary image/png, 70 bytes; save it with --output FILE]\n"},
		{"test://notes/all", "[resource test://notes/1, text/plain]\nfirst\n[resource test://notes/2, text/plain]\nsecond\n"},
	}
	for _, v := range eras {
		for _, tt := range tests {
			t.Run(string(v)+"/"+tt.uri, func(t *testing.T) {
				e := newTestEnv(t, testServerOptions{})
				e.app.global.Protocol = v
				if err := runRead(context.Background(), e.app, &readOptions{URI: tt.uri}); err != nil {
					t.Fatal(err)
				}
				checkOutput(t, "stdout", e.stdout.String(), tt.want)
			})
		}
	}
}

func TestRunReadOutput(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		uri  string
		want []byte
	}{
		{"test://logo", logoPNG},
		{"test://readme", []byte("Hello from the test server.\n")},
	} {
		file := filepath.Join(dir, "out")
		e := newTestEnv(t, testServerOptions{})
		if err := runRead(context.Background(), e.app, &readOptions{URI: tt.uri, Output: file}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("%s: file holds %q (%v), want %q", tt.uri, got, err, tt.want)
		}
		checkOutput(t, "stdout", e.stdout.String(), "wrote "+formatSize(int64(len(tt.want)))+" to "+file+"\n")
	}
}

func TestRunReadOutputStdout(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	if err := runRead(context.Background(), e.app, &readOptions{URI: "test://logo", Output: "-"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(e.stdout.Bytes(), logoPNG) {
		t.Errorf("stdout %q, want the image", e.stdout.Bytes())
	}
}

// TestRunReadOutputTerminal: raw bytes never go to a terminal.
func TestRunReadOutputTerminal(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	e.app.isTerminal = func(w io.Writer) bool { return w == e.app.stdout }
	err := runRead(context.Background(), e.app, &readOptions{URI: "test://logo", Output: "-"})
	if exitCode(err) != exitUsage {
		t.Errorf("exit %d, want 2", exitCode(err))
	}
	if e.stdout.Len() != 0 {
		t.Errorf("wrote %d bytes to the terminal", e.stdout.Len())
	}
	if got, want := message(err), "--output -: stdout is a terminal; redirect it to a file, or name one with --output FILE"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestRunReadOutputSeveral(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	err := runRead(context.Background(), e.app, &readOptions{URI: "test://notes/all", Output: filepath.Join(t.TempDir(), "x")})
	if got, want := message(err), "test://notes/all has 2 contents; --output saves a resource with one"; exitCode(err) != exitFailure || got != want {
		t.Errorf("exit %d, message %q; want 1, %q", exitCode(err), got, want)
	}
}

func TestRunReadJSON(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	e.app.global.JSON = true
	if err := runRead(context.Background(), e.app, &readOptions{URI: "test://logo"}); err != nil {
		t.Fatal(err)
	}
	var res mcp.ReadResourceResult
	if err := json.Unmarshal(e.stdout.Bytes(), &res); err != nil || len(res.Contents) != 1 {
		t.Fatalf("%v: %s", err, e.stdout.String())
	}
	if b, err := res.Contents[0].Bytes(); err != nil || !bytes.Equal(b, logoPNG) {
		t.Errorf("blob %q, %v", b, err)
	}
}

func TestReadNotFound(t *testing.T) {
	for _, v := range eras {
		t.Run(string(v), func(t *testing.T) {
			e := newTestEnv(t, testServerOptions{})
			e.app.global.Protocol = v
			err := runRead(context.Background(), e.app, &readOptions{URI: "test://missing"})
			if got, want := message(err), "resource not found: test://missing"; exitCode(err) != exitFailure || got != want {
				t.Errorf("exit %d, message %q; want 1, %q", exitCode(err), got, want)
			}
		})
	}
}
