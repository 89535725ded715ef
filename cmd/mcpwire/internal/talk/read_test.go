package talk

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
)

func TestReadParse(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	var got *readOptions
	cmds := func(a *app.App) []*cobra.Command {
		return []*cobra.Command{newReadCmd(a, func(_ context.Context, o *readOptions) error { got = o; return nil })}
	}
	if code := e.ExecuteWith(cmds, "read", "test://logo", "-o", "logo.png", "--", "srv"); code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, e.Stderr.String())
	}
	if got.URI != "test://logo" || got.Output != "logo.png" {
		t.Errorf("options %+v", got)
	}

	got = nil
	if code := e.ExecuteWith(cmds, "read", "test://logo", "--output", "x", "--json", "--", "srv"); code != app.ExitUsage || got != nil {
		t.Errorf("--output with --json: exit %d, options %+v", code, got)
	}
	clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: --output and --json do not go together\n")
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
				e := newTestEnv(t, clitest.ServerOptions{})
				e.App.Global.Protocol = v
				if err := runRead(context.Background(), e.App, &readOptions{URI: tt.uri}); err != nil {
					t.Fatal(err)
				}
				clitest.CheckOutput(t, "stdout", e.Stdout.String(), tt.want)
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
		{"test://logo", clitest.LogoPNG},
		{"test://readme", []byte("Hello from the test server.\n")},
	} {
		file := filepath.Join(dir, "out")
		e := newTestEnv(t, clitest.ServerOptions{})
		if err := runRead(context.Background(), e.App, &readOptions{URI: tt.uri, Output: file}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("%s: file holds %q (%v), want %q", tt.uri, got, err, tt.want)
		}
		clitest.CheckOutput(t, "stdout", e.Stdout.String(), "wrote "+app.FormatSize(int64(len(tt.want)))+" to "+file+"\n")
	}
}

func TestRunReadOutputStdout(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	if err := runRead(context.Background(), e.App, &readOptions{URI: "test://logo", Output: "-"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(e.Stdout.Bytes(), clitest.LogoPNG) {
		t.Errorf("stdout %q, want the image", e.Stdout.Bytes())
	}
}

// TestRunReadOutputTerminal: raw bytes never go to a terminal.
func TestRunReadOutputTerminal(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.IsTerminal = func(w io.Writer) bool { return w == e.App.Stdout }
	err := runRead(context.Background(), e.App, &readOptions{URI: "test://logo", Output: "-"})
	if app.ExitCode(err) != app.ExitUsage {
		t.Errorf("exit %d, want 2", app.ExitCode(err))
	}
	if e.Stdout.Len() != 0 {
		t.Errorf("wrote %d bytes to the terminal", e.Stdout.Len())
	}
	if got, want := app.Message(err), "--output -: stdout is a terminal; redirect it to a file, or name one with --output FILE"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestRunReadOutputSeveral(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	err := runRead(context.Background(), e.App, &readOptions{URI: "test://notes/all", Output: filepath.Join(t.TempDir(), "x")})
	if got, want := app.Message(err), "test://notes/all has 2 contents; --output saves a resource with one"; app.ExitCode(err) != app.ExitFailure || got != want {
		t.Errorf("exit %d, message %q; want 1, %q", app.ExitCode(err), got, want)
	}
}

func TestRunReadJSON(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Global.JSON = true
	if err := runRead(context.Background(), e.App, &readOptions{URI: "test://logo"}); err != nil {
		t.Fatal(err)
	}
	var res mcp.ReadResourceResult
	if err := json.Unmarshal(e.Stdout.Bytes(), &res); err != nil || len(res.Contents) != 1 {
		t.Fatalf("%v: %s", err, e.Stdout.String())
	}
	if b, err := res.Contents[0].Bytes(); err != nil || !bytes.Equal(b, clitest.LogoPNG) {
		t.Errorf("blob %q, %v", b, err)
	}
}

func TestReadNotFound(t *testing.T) {
	for _, v := range eras {
		t.Run(string(v), func(t *testing.T) {
			e := newTestEnv(t, clitest.ServerOptions{})
			e.App.Global.Protocol = v
			err := runRead(context.Background(), e.App, &readOptions{URI: "test://missing"})
			if got, want := app.Message(err), "resource not found: test://missing"; app.ExitCode(err) != app.ExitFailure || got != want {
				t.Errorf("exit %d, message %q; want 1, %q", app.ExitCode(err), got, want)
			}
		})
	}
}
