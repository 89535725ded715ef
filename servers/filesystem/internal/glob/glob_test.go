package glob

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/servers/filesystem/internal/peers"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var cases = []struct {
	pattern, path string
	want          bool
}{
	{"*.txt", "a.txt", true},
	{"*.txt", "d/a.txt", false},
	{"**/*.txt", "a.txt", true},
	{"**/*.txt", "d/e/a.txt", true},
	{"*", ".hidden", true},
	{"d/**", "d", false},
	{"d/**", "d/x", true},
	{"d/**", "d/x/y", true},
	{"**", "x", true},
	{"**/x/**", "x", false},
	{"**/x/**", "x/y", true},
	{"a/**/b", "a/b", true},
	{"a/**/b", "a/x/y/b", true},
	{"{a,b}.go", "b.go", true},
	{"{a,b}.go", "c.go", false},
	{"f{1..3}", "f2", true},
	{"f{1..3}", "f4", false},
	{"f{01..10}", "f07", true},
	{"[a-c]x", "bx", true},
	{"[!a-c]x", "bx", false},
	{"[^a-c]x", "dx", true},
	{"[[:digit:]]*", "1abc", true},
	{`\*`, "*", true},
	{`\*`, "a", false},
	{"?.md", "a.md", true},
	{"?.md", "ab.md", false},
	{"@(a|b).txt", "a.txt", true},
	{"+(a|b).txt", "abab.txt", true},
	{"?(a).txt", ".txt", true},
	{"*(x)y", "xxxy", true},
	{"!*.go", "a.txt", true},
	{"!*.go", "a.go", false},
	{"#comment", "#comment", false},
	{"", "", true},
	{"", "a", false},
	{"a/../b", "b", true},
	{"[x]", "x", true},
	{"é*", "été", true},
	{"node_modules", "node_modules", true},
	{"node_modules", "a/node_modules", false},
}

func TestMatch(t *testing.T) {
	for _, c := range cases {
		p, err := Compile(c.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", c.pattern, err)
			continue
		}
		if got := p.Match(c.path); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestUnsupported(t *testing.T) {
	if _, err := Compile("x!(a|b)"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Compile(x!(a|b)) = %v, want ErrUnsupported", err)
	}
	if _, err := Compile("{1..100000}"); err == nil {
		t.Error("a brace expansion beyond the limit compiled")
	}
	if _, err := Compile(strings.Repeat("a", DefaultMaxPatternLength+1)); err == nil {
		t.Error("a pattern beyond the length limit compiled")
	}
}

// TestAgainstMinimatch matches many patterns against many paths with
// this package and with the minimatch that the official filesystem
// server uses, and compares.
func TestAgainstMinimatch(t *testing.T) {
	node, modules := peers.NodeModules(t)
	patterns := []string{
		"*", "**", "*.txt", "**/*.txt", "*.{txt,md}", "**/*.{js,ts}", "src/**", "src/**/*.go", "**/test/**",
		"?", "??.txt", "[a-c]*", "[!a-c]*", "[^.]*", "[[:alpha:]]*", "[[:digit:]][[:digit:]]*", "[a-]*", "[]a]*",
		"a*b*c", "*a*", ".*", "*.", "**/.*", ".git", ".git/**", "**/.git/**", "node_modules", "**/node_modules",
		"{a,b}/{c,d}", "{a,{b,c}}x", "f{1..4}", "f{a..c}", "f{1..9..3}", "f{04..10}", "x{,y}", "{x,}", "$x{a,b}",
		"@(a|b)*", "+(ab)", "*(a|b)c", "?(x)y.txt", `\[a]`, `a\*`, "!*.txt", "!!*.txt", "#x", "a/../b/*",
		"src/*/x", "*/*", "*/**/*", "**/*/**", "é*", "*ü*", "dir with space/*", "[[:upper:]]*", "*[0-9]",
		"{}", "{a}", "a{b", "a}b", "*.tar.gz", "**/*.test.*", "[z-a]*", "{3..1}", "{a..c..2}x",
	}
	paths := []string{
		"a", "b", "c", "ab", "abc", "a.txt", "ab.txt", "x.md", "x.TXT", "src", "src/a.go", "src/x/y.go",
		"src/x/x", "test", "a/test/b", "test/b", ".git", ".git/config", "a/.git/HEAD", ".hidden", "a/.b",
		"node_modules", "a/node_modules", "node_modules/x", "a/c", "b/d", "ax", "bx", "cx", "f1", "f2", "f4",
		"f7", "f04", "f05", "f10", "fa", "fb", "fc", "x", "xy", "y", "y.txt", "xy.txt", "$xa", "aab", "abab",
		"ababc", "[a]", "a*", "a*b", "é", "été", "müll", "dir with space/f", "Z", "9", "x9", "a.tar.gz",
		"lib/x.test.ts", "-x", "]x", "3", "2", "1", "ax", "cx", "{}", "{a}", "a{b", "a}b", "a/b/c/d",
	}
	type query struct {
		Pattern string `json:"p"`
		Path    string `json:"f"`
	}
	var qs []query
	for _, p := range patterns {
		for _, f := range paths {
			qs = append(qs, query{p, f})
		}
	}
	script := `
const { minimatch } = await import(process.argv[1]);
let input = '';
for await (const chunk of process.stdin) input += chunk;
const qs = JSON.parse(input);
console.log(JSON.stringify(qs.map(q => minimatch(q.f, q.p, { dot: true }))));
`
	cmd := exec.Command(node, "--input-type=module", "-e", script, filepath.Join(modules, "minimatch", "dist", "esm", "index.js"))
	in, _ := json.Marshal(qs)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []bool
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("node's answer: %v: %s", err, out)
	}
	compiled := map[string]*Pattern{}
	for _, p := range patterns {
		c, err := Compile(p)
		if err != nil {
			t.Fatalf("Compile(%q): %v", p, err)
		}
		compiled[p] = c
	}
	bad := 0
	for i, q := range qs {
		if got := compiled[q.Pattern].Match(q.Path); got != want[i] {
			bad++
			if bad <= 40 {
				t.Errorf("minimatch(%q, %q) = %v, ours %v", q.Path, q.Pattern, want[i], got)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d matches differ", bad, len(qs))
	}
}

func FuzzCompile(f *testing.F) {
	for _, c := range cases {
		f.Add(c.pattern, c.path)
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		p, err := Compile(pattern)
		if err != nil {
			return
		}
		p.Match(path)
	})
}

// TestCompileExpansionBounded: brace expansion was bounded by the count
// of patterns it yields (1024) but not by their length, and each
// expanded pattern's segments were compiled anew: a 4 KB pattern of ten
// brace pairs and a thousand "?x" segments compiled a million regular
// expressions, three minutes of CPU for one exclude pattern of
// directory_tree. The expanded patterns are now bounded in total length,
// and a segment met again is not compiled again.
func TestCompileExpansionBounded(t *testing.T) {
	braces := strings.Repeat("{a,b}", 10) // 1024 patterns
	long := braces + "/" + strings.Repeat("?x/", 30) + "y"
	start := time.Now()
	if _, err := Compile(long); err == nil {
		t.Errorf("Compile of 1024 expansions of %d bytes each succeeded after %v, want an error (expanded length bounded)", len(long)-len(braces)+10, time.Since(start))
	}
	// Within the bound: 1024 patterns of 15 bytes.
	if _, err := Compile(braces + "/?x/y"); err != nil {
		t.Errorf("Compile of 1024 short expansions: %v", err)
	}
	// One budget for several patterns: together they cost what one may.
	budget := DefaultMaxExpandedLength
	var err error
	for i := 0; i < 3 && err == nil; i++ {
		_, err = CompileWithin(strings.Repeat("{a,b}", 9)+"/?x/y", &budget) // 512 patterns of 14 bytes
	}
	if err == nil {
		t.Error("three patterns of 7 KB of expansions each compiled within one budget of 16 KB")
	}
	if !MustCompile("{a,b}{c,d}/?x/y").Match("bd/zx/y") {
		t.Error("a pattern with expansions and shared segments does not match")
	}
}
