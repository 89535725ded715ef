package frontmatter

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// moreCases are read by both parsers in the differential test, beyond
// cases: the corners of folding, chomping and the end of the input.
var moreCases = []string{
	"a: |\n  x",
	"a: |+\n  x",
	"a: >\n  x\n  y",
	"a: |-\n  x\n\n\nb: 1",
	"a: |+\n  x\n\n\nb: 1",
	"a: >\n\n  lead\n  x\n\n\n  y\n",
	"a: >\n  x\n\n    more\n  y\n",
	"a: \"  lead and trail  \"",
	"a: \"x\n\n\n  y\"",
	"a: 'x\n  \n  y'",
	"a: x\n\n\n  y\n\nb: 2",
	"a: [a  b, c\n  d]",
	"a: {x: [1, {y: z}], w: 'q'}",
	"a: -1.5e+3\nb: +12\nc: 0.\nd: .5\ne: 1E5\nf: 0o0\ng: 0x0",
	"a: 12:30\nb: a:b\nc: -x\nd: ?x\ne: :x",
	"a: 'don''t'\nb: \"\\\"\"",
	"k:\n  - a: 1\n    b:\n      - c\n      - d\n  - e",
	"k:   \n    deep: 1",
	"\"quoted: key\": 1\n'single: key': 2",
	"a: \"\\x41\\u00e9\\N\\_\\L\\P\\e\\0\"",
	"description: >-\n  Use this skill when the user asks for PDFs.\n  It extracts text.\nname: pdf",
}

// TestDifferentialYAML reads every case with the yaml package that the
// conformance suite parses frontmatter with (npm yaml 2, YAML 1.2 core
// schema) and checks that mcpwire reads the same JSON, or refuses the
// input. It needs Node and the suite (CONFORMANCE_ALPHA12, NODE22).
func TestDifferentialYAML(t *testing.T) {
	node, suite := os.Getenv("NODE22"), os.Getenv("CONFORMANCE_ALPHA12")
	if node == "" || suite == "" {
		t.Skip("NODE22 and CONFORMANCE_ALPHA12 are not set (see scripts/install-peers.sh)")
	}
	modules := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(suite)))) // .../node_modules
	inputs := append([]string{}, moreCases...)
	for _, tc := range cases {
		inputs = append(inputs, tc.yaml)
	}
	script := `
const { createRequire } = require('module');
const YAML = createRequire(process.argv[1] + '/')('yaml');
const inputs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(inputs.map((s) => {
  try { return JSON.stringify(YAML.parse(s)); } catch (e) { return null; }
})));`
	in, _ := json.Marshal(inputs)
	cmd := exec.Command(node, "-e", script, modules)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var theirs []*string
	if err := json.Unmarshal(out, &theirs); err != nil || len(theirs) != len(inputs) {
		t.Fatalf("node answered %s (%v)", out, err)
	}
	for i, y := range inputs {
		ours, err := ToJSON([]byte(y))
		switch {
		case err != nil && theirs[i] == nil:
		case err != nil:
			t.Logf("refused what yaml reads as %s: %q: %v", *theirs[i], y, err)
		case theirs[i] == nil:
			t.Errorf("read what yaml refuses: %q as %s", y, ours)
		default:
			var a, b any
			json.Unmarshal(ours, &a)
			json.Unmarshal([]byte(*theirs[i]), &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%q:\n ours %s\nyaml %s", y, ours, *theirs[i])
			}
		}
	}
}
