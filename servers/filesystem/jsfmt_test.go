package filesystem

import (
	"encoding/json"
	"math/rand"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/servers/filesystem/internal/peers"
)

// node runs a script (an ES module, given input as JSON on stdin) with
// the Node of the official server and decodes its JSON output into out.
func node(t *testing.T, script string, input, out any) {
	t.Helper()
	bin, _ := peers.Filesystem(t)
	cmd := exec.Command(bin, "--input-type=module", "-e", `
let input = '';
for await (const chunk of process.stdin) input += chunk;
const data = JSON.parse(input);
`+script)
	in, _ := json.Marshal(input)
	cmd.Stdin = strings.NewReader(string(in))
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("node's output %q: %v", b, err)
	}
}

// TestFormatsAgainstNode compares the JavaScript formatting this package
// reproduces with JavaScript's own.
func TestFormatsAgainstNode(t *testing.T) {
	sizes := []int64{0, 1, 2, 1023, 1024, 1025, 1152, 1535, 1536, 10240, 1048575, 1048576, 1048577, 5 << 20, 1<<30 - 1, 1 << 30, 1<<40 - 1, 1 << 40, 5 << 40, 1 << 50}
	r := rand.New(rand.NewSource(3))
	for range 300 {
		sizes = append(sizes, r.Int63n(1<<uint(r.Intn(45)+1)))
	}
	var wantSizes []string
	node(t, `
const units = ['B', 'KB', 'MB', 'GB', 'TB'];
console.log(JSON.stringify(data.map(bytes => {
  if (bytes <= 0) return '0 B';
  const i = Math.floor(Math.log(bytes) / Math.log(1024));
  if (i < 0 || i === 0) return bytes + ' ' + units[0];
  const u = Math.min(i, units.length - 1);
  return (bytes / Math.pow(1024, u)).toFixed(2) + ' ' + units[u];
})));`, sizes, &wantSizes)
	for i, n := range sizes {
		if got := formatSize(n); got != wantSizes[i] {
			t.Errorf("formatSize(%d) = %q, JavaScript %q", n, got, wantSizes[i])
		}
	}

	var all strings.Builder
	for c := rune(1); c < 128; c++ {
		all.WriteRune(c)
	}
	paths := []string{"/a/b", "/x/" + all.String(), "/é/日本/😀 x", "/50%/a#b?c"}
	var wantURLs []string
	node(t, `const { pathToFileURL } = await import('node:url');
console.log(JSON.stringify(data.map(p => pathToFileURL(p).href)));`, paths, &wantURLs)
	for i, p := range paths {
		if got := fileURL(p); got != wantURLs[i] {
			t.Errorf("fileURL(%q) = %q, Node %q", p, got, wantURLs[i])
		}
	}

	inputs := [][]byte{
		[]byte("plain"), {0xff}, {0xe2, 0x82}, {0xe2, 0x82, 'a'}, {0xed, 0xa0, 0x80}, {0xf0, 0x9f, 0x98},
		{0xf0, 0x9f, 0x98, 0x80}, {0xc0, 0xaf}, {0xf4, 0x90, 0x80, 0x80}, {0xe0, 0x80, 0x80}, {'a', 0x80, 'b', 0xbf},
		{0xf8, 0x88, 0x80, 0x80, 0x80}, {0xef, 0xbb, 0xbf, 'x'},
	}
	for range 200 {
		b := make([]byte, r.Intn(12))
		for i := range b {
			b[i] = byte(0x7c + r.Intn(0x84))
		}
		inputs = append(inputs, b)
	}
	var wantText []string
	node(t, `console.log(JSON.stringify(data.map(b => Buffer.from(b, 'base64').toString('utf-8'))));`, inputs, &wantText)
	for i, b := range inputs {
		if got := decodeUTF8(b); got != wantText[i] {
			t.Errorf("decodeUTF8(% x) = %q, Node %q", b, got, wantText[i])
		}
	}

	names := []string{"b", "B", "a", "A", "_x", "-x", ".x", "1", "10", "9", "é", "e", "f", "Z", "z10", "z9", "ä", "Ä", "ß", "ss", "日本", "中", "😀", "a b", "a-b", "a_b", "a.b", "ab", "Ab", "aB", "résumé", "resume", "Résumé", "~x", "#x", "(x)", "[x]", "x y", "x\ty"}
	var wantOrder []string
	node(t, `console.log(JSON.stringify([...data].sort((a, b) => a.localeCompare(b))));`, names, &wantOrder)
	got := slices.Clone(names)
	slices.SortStableFunc(got, compareNames)
	if !slices.Equal(got, wantOrder) {
		t.Errorf("collation:\nours: %q\nNode: %q", got, wantOrder)
	}

	times := []int64{0, 1e9, 1_700_000_000, 1_800_000_000, 946_684_799}
	var wantDates []string
	node(t, `console.log(JSON.stringify(data.map(s => new Date(s * 1000).toString())));`, times, &wantDates)
	for i, s := range times {
		got, want := dateString(time.Unix(s, 0)), wantDates[i]
		if name, _ := time.Unix(s, 0).Local().Zone(); name != "UTC" {
			// Only the zone's name differs (an intended difference).
			got, want = got[:strings.Index(got, " (")], want[:strings.Index(want, " (")]
		}
		if got != want {
			t.Errorf("dateString(%d) = %q, JavaScript %q", s, got, want)
		}
	}
}

func TestJSTrim(t *testing.T) {
	for in, want := range map[string]string{
		"  x  ":             "x",
		"\t\v\f\r\nx\u00a0": "x",
		"\ufeffx\u2028":     "x",
		"\u0085x":           "\u0085x", // NEL is not white space in JavaScript
		"\u3000x\u2003":     "x",
	} {
		if got := jsTrim(in); got != want {
			t.Errorf("jsTrim(%q) = %q, want %q", in, got, want)
		}
	}
	if got := jsIndent("  \tx "); got != "  \t" {
		t.Errorf("jsIndent = %q", got)
	}
	if got := padEnd("😀", 4); got != "😀  " {
		t.Errorf("padEnd counts UTF-16 units: %q", got)
	}
}

func TestWriteJSONString(t *testing.T) {
	var b strings.Builder
	writeJSONString(&b, "a\"\\\b\f\n\r\t\x01\x1f<>&\u2028é")
	if want := `"a\"\\\b\f\n\r\t\u0001\u001f<>&` + "\u2028é\""; b.String() != want {
		t.Errorf("got %s, want %s", b.String(), want)
	}
}
