package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/help")

// TestHelp compares the help of each command with testdata/help/NAME.txt;
// go test -run TestHelp -update rewrites them.
func TestHelp(t *testing.T) {
	for name, args := range map[string][]string{
		"mcpwire":          {"--help"},
		"tools":            {"tools", "--help"},
		"call":             {"call", "--help"},
		"resources":        {"resources", "--help"},
		"read":             {"read", "--help"},
		"prompts":          {"prompts", "--help"},
		"get":              {"get", "--help"},
		"completion":       {"completion", "--help"},
		"login":            {"login", "--help"},
		"logout":           {"logout", "--help"},
		"tap":              {"tap", "--help"},
		"replay":           {"replay", "--help"},
		"inspect":          {"inspect", "--help"},
		"serve":            {"serve", "--help"},
		"serve-filesystem": {"serve", "filesystem", "--help"},
		"serve-git":        {"serve", "git", "--help"},
		"serve-sqlite":     {"serve", "sqlite", "--help"},
		"servers":          {"servers", "--help"},
		"bench":            {"bench", "--help"},
		"check":            {"check", "--help"},
		"bridge":           {"bridge", "--help"},
		"version":          {"version", "--help"},
		"doctor":           {"doctor", "--help"},
		"diff":             {"diff", "--help"},
		"verify":           {"verify", "--help"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newTestEnv(t, clitest.ServerOptions{})
			if code := e.Execute(args...); code != app.ExitOK {
				t.Fatalf("exit %d: %s", code, e.Stderr.String())
			}
			got := e.Stdout.String()
			for i, line := range strings.Split(got, "\n") {
				if strings.TrimRight(line, " \t") != line {
					t.Errorf("line %d ends in spaces: %q", i+1, line)
				}
			}
			if name != "mcpwire" {
				// "mcpwire help CMD" says the same.
				h := newTestEnv(t, clitest.ServerOptions{})
				h.Execute(append([]string{"help"}, args[:len(args)-1]...)...)
				clitest.CheckOutput(t, "mcpwire help "+strings.Join(args[:len(args)-1], " "), h.Stdout.String(), got)
			}
			file := filepath.Join("testdata", "help", name+".txt")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -run TestHelp -update)", err)
			}
			clitest.CheckOutput(t, file, got, string(want))
		})
	}
}
