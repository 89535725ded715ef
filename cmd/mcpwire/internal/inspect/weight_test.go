package inspect

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pageBudget bounds the page without the server's state: page.html, the
// style sheet and the scripts, as served. The page is one document with
// everything inline; a change that makes it heavier than this should say
// why, and move the budget in the same commit.
const pageBudget = 96 << 10

// TestPageWeight measures the page's fixed part (the embedded assets, as
// inlined in the one document) and holds it to pageBudget.
//
//	go test -run 'TestPageWeight|TestTimeToTools' -v ./cmd/mcpwire/internal/inspect
func TestPageWeight(t *testing.T) {
	p := pageParts()
	total := len(p.head) + len(p.mid) + len(p.tail) + len(p.css) + len(p.js)
	names, err := assets.ReadDir("assets")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		b, _ := assets.ReadFile("assets/" + e.Name())
		t.Logf("%-10s %6d bytes", e.Name(), len(b))
	}
	t.Logf("the page without the state: %d bytes (budget %d)", total, pageBudget)
	if total > pageBudget {
		t.Errorf("the page without the state is %d bytes, over its budget of %d", total, pageBudget)
	}
}

// TestTimeToTools measures, in headless Chromium, how long after the
// navigation starts the page shows the tools of the project's
// everything-server (its 37 tools, the state inline): the median of five
// loads, each in a new tab. It reports; it does not fail on a slow
// machine.
func TestTimeToTools(t *testing.T) {
	bin := everythingServer(t)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	in := inspect(t, nil, "--", "everything-server", "-stdio")
	res, err := http.Get(in.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()

	var shown, painted []float64
	var tools int
	for range 5 {
		p := openPage(t, in)
		p.wait(`document.querySelector('#list li[data-key="tool:test_simple_text"]')`)
		p.wait(`performance.getEntriesByName("first-contentful-paint").length`) // reported a moment after the paint
		var m struct{ Shown, Paint float64 }
		p.js(`document.querySelectorAll('#list li[data-key^="tool:"]').length`, &tools)
		p.js(`({shown: performance.getEntriesByName("mcpwire:shown")[0].startTime,
			paint: performance.getEntriesByName("first-contentful-paint")[0].startTime})`, &m)
		if m.Shown <= 0 {
			t.Fatalf("the page marked no mcpwire:shown")
		}
		shown, painted = append(shown, m.Shown), append(painted, m.Paint)
	}
	slices.Sort(shown)
	slices.Sort(painted)
	t.Logf("the page: %d bytes with the state of %d tools inline; the tools in the document %.0f ms after the navigation started, painted at %.0f ms (medians of 5; all: %.0f, %.0f)",
		len(body), tools, shown[2], painted[2], shown, painted)
}

// TestScriptsStripSafely: the page drops the scripts' comment lines
// (withoutComments), which is safe only while no string of a script spans
// lines: no line has an odd number of backquotes (a template literal
// that goes on), and none ends with a backslash (a string continued).
func TestScriptsStripSafely(t *testing.T) {
	for _, name := range scripts {
		data, err := assets.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Count(line, "`")%2 == 1 || strings.HasSuffix(line, `\`) {
				t.Errorf("%s:%d: a string goes on to the next line, where a comment line would be dropped: %s", name, i+1, line)
			}
		}
	}
	if got := withoutComments("a();\n  // note\n\tb(); // kept\n"); got != "a();\nb(); // kept\n" {
		t.Errorf("withoutComments: %q", got)
	}
}
