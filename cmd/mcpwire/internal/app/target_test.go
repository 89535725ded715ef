package app

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"":                           nil,
		"  node  server.js ":         {"node", "server.js"},
		`a 'b c' "d \"e\" \\f" g\ h`: {"a", "b c", `d "e" \f`, "g h"},
		`x''y ""`:                    {"xy", ""},
		`'it''s'`:                    {"its"},
		`"a\nb"`:                     {`a\nb`},
	} {
		got, err := SplitWords(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		`'open`:  "a single quote is not closed",
		`"open`:  "a double quote is not closed",
		`trail\`: "a backslash ends the line",
	} {
		if _, err := SplitWords(in); err == nil || err.Error() != want {
			t.Errorf("SplitWords(%q): error %v, want %q", in, err, want)
		}
	}
}

func TestParseTarget(t *testing.T) {
	a := New(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	a.Getenv = func(string) string { return "" }
	tg, err := a.ParseTarget("--compare", "http://127.0.0.1:3000/mcp")
	if err != nil || tg.URL != "http://127.0.0.1:3000/mcp" || tg.Name() != "http://127.0.0.1:3000/mcp" {
		t.Errorf("URL: %+v, %v", tg, err)
	}
	tg, err = a.ParseTarget("--compare", `node "my server.js" --port 1`)
	if err != nil || !slices.Equal(tg.Command, []string{"node", "my server.js", "--port", "1"}) {
		t.Errorf("command: %+v, %v", tg, err)
	}
	for spec, want := range map[string]string{
		"   ":                 "--compare: name a server: a URL, @NAME, or a command line",
		"http://u:p@host/mcp": "--url: put credentials in a header",
		`node 'server.js`:     `--compare "node 'server.js": a single quote is not closed`,
	} {
		_, err := a.ParseTarget("--compare", spec)
		if ExitCode(err) != ExitUsage || !strings.Contains(Message(err), want) {
			t.Errorf("ParseTarget(%q): %v, want a usage error with %q", spec, err, want)
		}
	}
}

// TestOneURLUnlessAnnotated checks that --url is given once, except to a
// command annotated ManyURLs, which sees them all.
func TestOneURLUnlessAnnotated(t *testing.T) {
	run := func(many bool, args ...string) (Options, error) {
		a := New(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		a.Getenv = func(string) string { return "" }
		var got Options
		cmd := &cobra.Command{Use: "verb", RunE: a.RunE(func(*cobra.Command, []string) error { got = a.Global; return nil })}
		if many {
			cmd.Annotations = map[string]string{ManyURLs: "yes"}
		}
		root := a.NewRoot(Family{Commands: func(*App) []*cobra.Command { return []*cobra.Command{cmd} }})
		root.SetArgs(append([]string{"verb"}, args...))
		return got, root.Execute()
	}
	_, err := run(false, "--url", "http://a/mcp", "--url", "http://b/mcp")
	if ExitCode(err) != ExitUsage || !strings.Contains(Message(err), "give --url once") {
		t.Errorf("two --url to a plain command: %v", err)
	}
	g, err := run(true, "--url", "http://a/mcp", "--url", "http://b/mcp")
	if err != nil || g.Target.URL != "http://a/mcp" || !slices.Equal(g.URLs, []string{"http://a/mcp", "http://b/mcp"}) {
		t.Errorf("two --url to a ManyURLs command: %+v, %v", g, err)
	}
	if _, err := run(true, "--url", "http://a/mcp", "--url", "ftp://b"); ExitCode(err) != ExitUsage {
		t.Errorf("a bad second --url: %v", err)
	}
}
