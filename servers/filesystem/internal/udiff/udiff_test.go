package udiff

import (
	"encoding/json"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/servers/filesystem/internal/peers"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestTwoFiles(t *testing.T) {
	got := TwoFiles("/f.txt", "/f.txt", "a\nb\nc\n", "a\nx\nc\n", "original", "modified")
	want := "Index: /f.txt\n" +
		"===================================================================\n" +
		"--- /f.txt\toriginal\n" +
		"+++ /f.txt\tmodified\n" +
		"@@ -1,3 +1,3 @@\n" +
		" a\n" +
		"-b\n" +
		"+x\n" +
		" c\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := TwoFiles("f", "f", "same", "same", "original", "modified"); strings.Contains(got, "@@") {
		t.Errorf("a diff of equal texts has hunks:\n%s", got)
	}
	if got := TwoFiles("f", "f", "a", "b", "o", "m"); !strings.Contains(got, "-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n") {
		t.Errorf("missing newline markers:\n%s", got)
	}
}

// TestCostBound checks that a diff past the cost bound still turns the
// old text into the new one.
func TestCostBound(t *testing.T) {
	oldT := tokenize("a\nb\nc\nd\n")
	newT := tokenize("d\nc\nb\na\n")
	if got := diffLines(oldT, newT, 1); len(got) != 2 || !got[0].removed || !got[1].added {
		t.Errorf("over the bound: %+v, want everything removed then added", got)
	}
}

// TestAgainstJSDiff diffs random texts with this package and with the
// jsdiff that the official filesystem server uses, and compares.
func TestAgainstJSDiff(t *testing.T) {
	node, modules := peers.NodeModules(t)
	r := rand.New(rand.NewSource(7))
	words := []string{"a", "b", "c", "", "  x", "y\r", "é", "a"}
	text := func() string {
		var b strings.Builder
		for n := r.Intn(30); n > 0; n-- {
			b.WriteString(words[r.Intn(len(words))])
			b.WriteByte('\n')
		}
		if r.Intn(3) == 0 {
			b.WriteString("tail")
		}
		return b.String()
	}
	mutate := func(s string) string {
		lines := strings.SplitAfter(s, "\n")
		for n := r.Intn(6); n > 0; n-- {
			i := r.Intn(len(lines) + 1)
			switch r.Intn(3) {
			case 0:
				lines = append(lines[:i], append([]string{words[r.Intn(len(words))] + "\n"}, lines[i:]...)...)
			case 1:
				if i < len(lines) {
					lines = append(lines[:i], lines[i+1:]...)
				}
			case 2:
				if i < len(lines) {
					lines[i] = "changed\n"
				}
			}
		}
		return strings.Join(lines, "")
	}
	type pair struct {
		Old string `json:"o"`
		New string `json:"n"`
	}
	var pairs []pair
	for i := 0; i < 2000; i++ {
		o := text()
		n := mutate(o)
		if i%10 == 0 {
			n = text()
		}
		pairs = append(pairs, pair{o, n})
	}
	script := `
const { createTwoFilesPatch } = await import(process.argv[1]);
let input = '';
for await (const chunk of process.stdin) input += chunk;
console.log(JSON.stringify(JSON.parse(input).map(p => createTwoFilesPatch('/x/f.txt', '/x/f.txt', p.o, p.n, 'original', 'modified'))));
`
	cmd := exec.Command(node, "--input-type=module", "-e", script, filepath.Join(modules, "diff", "libesm", "index.js"))
	in, _ := json.Marshal(pairs)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, p := range pairs {
		if got := TwoFiles("/x/f.txt", "/x/f.txt", p.Old, p.New, "original", "modified"); got != want[i] {
			bad++
			if bad <= 3 {
				t.Errorf("diff of %q and %q:\ngot\n%s\njsdiff\n%s", p.Old, p.New, got, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d diffs differ", bad, len(pairs))
	}
}

func FuzzTwoFiles(f *testing.F) {
	f.Add("a\nb\n", "a\nc\n")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := TwoFiles("f", "f", a, b, "o", "m")
		if !strings.HasPrefix(d, "Index: f\n") {
			t.Fatalf("no header: %q", d)
		}
		if a == b && strings.Contains(d, "\n@@ ") {
			t.Fatalf("hunks for equal texts: %q", d)
		}
	})
}
