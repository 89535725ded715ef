package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/help")

// TestHelp compares the help of each command with testdata/help/NAME.txt;
// go test -run TestHelp -update rewrites them.
func TestHelp(t *testing.T) {
	for name, args := range map[string][]string{
		"mcpwire":    {"--help"},
		"tools":      {"tools", "--help"},
		"call":       {"call", "--help"},
		"resources":  {"resources", "--help"},
		"read":       {"read", "--help"},
		"prompts":    {"prompts", "--help"},
		"get":        {"get", "--help"},
		"completion": {"completion", "--help"},
		"login":      {"login", "--help"},
		"logout":     {"logout", "--help"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newTestEnv(t, testServerOptions{})
			if code := e.execute(args...); code != exitOK {
				t.Fatalf("exit %d: %s", code, e.stderr.String())
			}
			got := e.stdout.String()
			for i, line := range strings.Split(got, "\n") {
				if strings.TrimRight(line, " \t") != line {
					t.Errorf("line %d ends in spaces: %q", i+1, line)
				}
			}
			if name != "mcpwire" {
				// "mcpwire help CMD" says the same.
				h := newTestEnv(t, testServerOptions{})
				h.execute("help", args[0])
				checkOutput(t, "mcpwire help "+args[0], h.stdout.String(), got)
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
			checkOutput(t, file, got, string(want))
		})
	}
}
