package filesystem

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
)

// makeTree fills root with the fixture of the differential test.
func makeTree(t testing.TB, root string) {
	t.Helper()
	var lines strings.Builder
	for i := 1; i <= 2500; i++ {
		lines.WriteString("line ")
		lines.WriteString(strings.Repeat("x", i%7))
		lines.WriteString("\n")
	}
	files := map[string]string{
		"hello.txt":                "Hello, world!\nSecond line\n",
		"crlf.txt":                 "one\r\ntwo\r\nthree\r\n",
		"nonl.txt":                 "no newline at end",
		"empty.txt":                "",
		"lines.txt":                lines.String(),
		"blank-lines.txt":          "a\n\n\nb\n\n",
		"unicode/café.txt":         "crème brûlée\n",
		"unicode/日本語.md":           "# 見出し\n本文\n",
		"unicode/emoji 😀.txt":      "smile\n",
		"nfd/cafe\u0301.txt":       "stored in NFD\n",
		"binary.bin":               "\x00\xff\xfea\xe2\x82b\xed\xa0\x80\xf0\x9f\x98c\xc0\xaf",
		"image.png":                "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"sound.mp3":                "ID3\x03\x00",
		"doc.pdf":                  "%PDF-1.4\n",
		"weird name #?[].txt":      "odd\n",
		"src/main.go":              "package main\n\nfunc main() {}\n",
		"src/util/helpers.go":      "package util\n",
		"src/util/helpers_test.go": "package util\n",
		"src/.hidden/x.txt":        "hidden\n",
		"src/node_modules/p/i.js":  "module.exports = 1\n",
		"deep/a/b/c/d.txt":         "deep\n",
		"code.py":                  "def f(x):\n    if x:\n        return 1\n    return 2\n\n\ndef g():\n    pass\n",
		"tick.md":                  "Intro\n```\ncode\n```\nEnd\n",
		"tabs.go":                  "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
		"crlf-edit.txt":            "one\r\ntwo\r\nthree\r\n",
		"log.txt":                  "first\n",
		"edit-me.txt":              "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\nlambda\nmu\n",
		"sortme/Apple":             "1",
		"sortme/apple":             "22",
		"sortme/_under":            "333",
		"sortme/1num":              "",
		"sortme/Zed":               "55555",
		"sortme/éclair":            "4444",
		"sortme/eclair":            "666666",
		"sortme/b.txt":             "7777777",
		"sortme/B.txt":             "88888888",
		"sortme/a-very-long-name-that-goes-past-thirty.txt": "x",
		// The order of names (localeCompare): case, accents (also in NFD,
		// equal to NFC: the two keep their order), punctuation, digits,
		// quotes, ß and æ, Cyrillic, kana, Han, emoji. (Not U+FFFD: x/text's
		// CLDR 23 puts it among the symbols, Node's ICU last; see
		// docs/rough_edges.md.)
		"sortme/e\u0301clair": "4444",
		"sortme/Éclair":       "",
		"sortme/résumé":       "",
		"sortme/Resume":       "",
		"sortme/resume":       "",
		"sortme/-dash":        "",
		"sortme/.dot":         "",
		"sortme/~tilde":       "",
		"sortme/(paren)":      "",
		"sortme/[bracket]":    "",
		"sortme/#hash":        "",
		"sortme/10":           "",
		"sortme/9":            "",
		"sortme/2b":           "",
		"sortme/a b":          "",
		"sortme/a_b":          "",
		"sortme/a.b":          "",
		"sortme/ab":           "",
		"sortme/AB":           "",
		"sortme/'quote'":      "",
		"sortme/‘quote’":      "",
		"sortme/“quote”":      "",
		"sortme/straße":       "",
		"sortme/strasse":      "",
		"sortme/ÆON":          "",
		"sortme/aeon":         "",
		"sortme/Ärger":        "",
		"sortme/arg":          "",
		"sortme/ёлка":         "",
		"sortme/Елка":         "",
		"sortme/йод":          "",
		"sortme/ирис":         "",
		"sortme/かな":           "",
		"sortme/カナ":           "",
		"sortme/日本":           "",
		"sortme/😀 smile":      "",

		"sizes/s0":    "",
		"sizes/s1":    "1",
		"sizes/s1023": strings.Repeat("k", 1023),
		"sizes/s1024": strings.Repeat("k", 1024),
		"sizes/s1152": strings.Repeat("k", 1152),
		"sizes/s1536": strings.Repeat("k", 1536),
		"sizes/s1m":   strings.Repeat("m", 1<<20+5000),
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "code.py"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"emptydir", "sortme/Dir", "sortme/dir2"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"link-to-hello.txt": "hello.txt", "linkdir": "src", "unicode/up": "../hello.txt", "sizes/dangling": "nowhere.txt"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
}

// A step is one tool call of the differential test.
type step struct {
	tool string
	args map[string]any
	// loose: compare only that both fail; the texts of some errors differ
	// (see "Intended differences" in the package documentation).
	loose bool
	// refused: ours fails on purpose where the official server answers
	// (head and tail are whole numbers from 1); the error names this.
	refused string
}

func a(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func p(path string) map[string]any { return a("path", path) }

var differentialSteps = []step{
	{tool: "list_allowed_directories", args: a()},
	// Reading text.
	{tool: "read_text_file", args: p("{root}/hello.txt")},
	{tool: "read_text_file", args: p("hello.txt")},
	{tool: "read_text_file", args: p("./unicode/../hello.txt")},
	{tool: "read_file", args: p("{root}/hello.txt")},
	{tool: "read_text_file", args: p("{root}/crlf.txt")},
	{tool: "read_text_file", args: p("{root}/nonl.txt")},
	{tool: "read_text_file", args: p("{root}/empty.txt")},
	{tool: "read_text_file", args: p("{root}/binary.bin")},
	{tool: "read_text_file", args: p("{root}/unicode/café.txt")},
	{tool: "read_text_file", args: p("{root}/unicode/日本語.md")},
	{tool: "read_text_file", args: p("{root}/unicode/emoji 😀.txt")},
	{tool: "read_text_file", args: p("{root}/nfd/café.txt")}, // asked in NFC, stored in NFD
	{tool: "read_text_file", args: p("{root}/weird name #?[].txt")},
	{tool: "read_text_file", args: p("{root}/link-to-hello.txt")},
	{tool: "read_text_file", args: p("{root}/linkdir/main.go")},
	{tool: "read_text_file", args: p("{root}/unicode/up")},
	{tool: "read_text_file", args: p("{root}/missing.txt")},
	{tool: "read_text_file", args: p("{root}/src")},
	{tool: "read_text_file", args: p("{root}/hello.txt/x")},
	{tool: "read_text_file", args: p("/etc/hostname")},
	{tool: "read_text_file", args: p("{root}/../outside.txt")},
	// head and tail.
	{tool: "read_text_file", args: a("path", "{root}/hello.txt", "head", 1)},
	{tool: "read_text_file", args: a("path", "{root}/hello.txt", "head", 0), refused: "arguments/head: 0 is less than the minimum 1"},
	{tool: "read_text_file", args: a("path", "{root}/lines.txt", "head", 2.5), refused: "arguments/head: expected integer"},
	{tool: "read_text_file", args: a("path", "{root}/lines.txt", "head", -1), refused: "arguments/head: -1 is less than the minimum 1"},
	{tool: "read_text_file", args: a("path", "{root}/lines.txt", "head", 700)},
	{tool: "read_text_file", args: a("path", "{root}/hello.txt", "head", 100)},
	{tool: "read_text_file", args: a("path", "{root}/blank-lines.txt", "head", 3)},
	{tool: "read_text_file", args: a("path", "{root}/blank-lines.txt", "head", 10)},
	{tool: "read_text_file", args: a("path", "{root}/nonl.txt", "head", 1)},
	{tool: "read_text_file", args: a("path", "{root}/hello.txt", "tail", 1)},
	{tool: "read_text_file", args: a("path", "{root}/hello.txt", "tail", 2)},
	{tool: "read_text_file", args: a("path", "{root}/crlf.txt", "tail", 2)},
	{tool: "read_text_file", args: a("path", "{root}/lines.txt", "tail", 3)},
	{tool: "read_text_file", args: a("path", "{root}/lines.txt", "tail", 1000)},
	{tool: "read_text_file", args: a("path", "{root}/lines.txt", "tail", 2.5), refused: "arguments/tail: expected integer"},
	{tool: "read_text_file", args: a("path", "{root}/lines.txt", "tail", 0.5), refused: "arguments/tail: expected integer"},
	{tool: "read_text_file", args: a("path", "{root}/lines.txt", "tail", -2), refused: "arguments/tail: -2 is less than the minimum 1"},
	{tool: "read_text_file", args: a("path", "{root}/empty.txt", "tail", 3)},
	{tool: "read_text_file", args: a("path", "{root}/nonl.txt", "tail", 5)},
	{tool: "read_text_file", args: a("path", "{root}/unicode/日本語.md", "tail", 1)},
	{tool: "read_text_file", args: a("path", "{root}/hello.txt", "head", 1, "tail", 1)},
	{tool: "read_text_file", args: a("path", "{root}/missing.txt", "head", 1, "tail", 1)},
	// Media.
	{tool: "read_media_file", args: p("{root}/image.png")},
	{tool: "read_media_file", args: p("{root}/sound.mp3")},
	{tool: "read_media_file", args: p("{root}/doc.pdf")},
	{tool: "read_media_file", args: p("{root}/weird name #?[].txt")},
	{tool: "read_media_file", args: p("{root}/missing.png")},
	// Several files.
	{tool: "read_multiple_files", args: a("paths", []string{"{root}/hello.txt", "{root}/missing.txt", "unicode/café.txt", "/etc/hostname"})},
	{tool: "read_multiple_files", args: a("paths", []string{}), loose: true}, // invalid arguments: worded by the validator
	// Listing.
	{tool: "list_directory", args: p("{root}")},
	{tool: "list_directory", args: p("")},
	{tool: "list_directory", args: p("{root}/emptydir")},
	{tool: "list_directory", args: p("{root}/unicode")},
	{tool: "list_directory", args: p("{root}/linkdir")},
	{tool: "list_directory", args: p("{root}/missing")},
	{tool: "list_directory", args: p("{root}/hello.txt")},
	{tool: "list_directory_with_sizes", args: p("{root}/sizes")},
	{tool: "list_directory_with_sizes", args: a("path", "{root}/sizes", "sortBy", "size")},
	{tool: "list_directory_with_sizes", args: p("{root}/sortme")},
	{tool: "list_directory_with_sizes", args: a("path", "{root}/sortme", "sortBy", "size")},
	{tool: "list_directory_with_sizes", args: p("{root}/emptydir")},
	{tool: "list_directory_with_sizes", args: a("path", "{root}/sizes", "sortBy", "date"), loose: true},
	{tool: "directory_tree", args: p("{root}/src")},
	{tool: "directory_tree", args: p("{root}/emptydir")},
	{tool: "directory_tree", args: a("path", "{root}/src", "excludePatterns", []string{"node_modules", ".hidden"})},
	{tool: "directory_tree", args: a("path", "{root}/src", "excludePatterns", []string{"*.go"})},
	{tool: "directory_tree", args: a("path", "{root}/src", "excludePatterns", []string{"**/*_test.go", "util"})},
	{tool: "directory_tree", args: a("path", "{root}", "excludePatterns", []string{"sizes", "lines.txt"})},
	{tool: "directory_tree", args: p("{root}/hello.txt")},
	// Searching.
	{tool: "search_files", args: a("path", "{root}", "pattern", "*.txt")},
	{tool: "search_files", args: a("path", "{root}", "pattern", "**/*.go")},
	{tool: "search_files", args: a("path", "{root}", "pattern", "**/*.go", "excludePatterns", []string{"**/util/**"})},
	{tool: "search_files", args: a("path", "{root}", "pattern", "**/*", "excludePatterns", []string{"src", "sizes", "sortme", "unicode", "deep", "nfd"})},
	{tool: "search_files", args: a("path", "{root}", "pattern", "**/caf*")},
	{tool: "search_files", args: a("path", "{root}", "pattern", "**/*.{md,py}")},
	{tool: "search_files", args: a("path", "{root}/src", "pattern", "**/.*")},
	{tool: "search_files", args: a("path", "{root}/emptydir", "pattern", "*")},
	{tool: "search_files", args: a("path", "{root}", "pattern", "nothing-matches-this")},
	{tool: "search_files", args: a("path", "{root}", "pattern", "link*")},
	{tool: "search_files", args: a("path", "{root}/missing", "pattern", "*")},
	// Information.
	{tool: "get_file_info", args: p("{root}/hello.txt")},
	{tool: "get_file_info", args: p("{root}/src")},
	{tool: "get_file_info", args: p("{root}/code.py")},
	{tool: "get_file_info", args: p("{root}/link-to-hello.txt")},
	{tool: "get_file_info", args: p("{root}/missing")},
	// Writing.
	{tool: "write_file", args: a("path", "{root}/new.txt", "content", "fresh\n")},
	{tool: "write_file", args: a("path", "{root}/hello.txt", "content", "replaced\n")},
	{tool: "write_file", args: a("path", "{root}/code.py", "content", "print(1)\n")},
	{tool: "write_file", args: a("path", "{root}/unicode/nouveau-é.txt", "content", "é\u2028\n")},
	{tool: "write_file", args: a("path", "{root}/nodir/x.txt", "content", "x")},
	{tool: "write_file", args: a("path", "{root}/src", "content", "x")},
	{tool: "write_file", args: a("path", "{root}/link-to-hello.txt", "content", "through the link\n")},
	{tool: "write_file", args: a("path", "/tmp/mcpwire-fs-outside.txt", "content", "x")},
	{tool: "read_text_file", args: p("{root}/hello.txt")},
	// Editing.
	{tool: "edit_file", args: a("path", "{root}/edit-me.txt", "edits", []map[string]any{{"oldText": "gamma", "newText": "GAMMA"}}, "dryRun", true)},
	{tool: "edit_file", args: a("path", "{root}/edit-me.txt", "edits", []map[string]any{{"oldText": "beta\ngamma", "newText": "b\ng"}, {"oldText": "mu\n", "newText": "mu\nnu\n"}})},
	{tool: "edit_file", args: a("path", "{root}/edit-me.txt", "edits", []map[string]any{{"oldText": "alpha", "newText": ""}, {"oldText": "iota", "newText": "IOTA"}})},
	{tool: "edit_file", args: a("path", "{root}/code.py", "edits", []map[string]any{{"oldText": "if x:\nreturn 1", "newText": "if not x:\n    return 0"}})},
	{tool: "edit_file", args: a("path", "{root}/code.py", "edits", []map[string]any{{"oldText": "  def g():\n      pass", "newText": "def g():\n        return None"}})},
	{tool: "edit_file", args: a("path", "{root}/crlf.txt", "edits", []map[string]any{{"oldText": "two\r\n", "newText": "2\r\n"}})},
	{tool: "edit_file", args: a("path", "{root}/tick.md", "edits", []map[string]any{{"oldText": "code", "newText": "more code"}}, "dryRun", true)},
	{tool: "edit_file", args: a("path", "{root}/nonl.txt", "edits", []map[string]any{{"oldText": "", "newText": "start: "}})},
	{tool: "edit_file", args: a("path", "{root}/empty.txt", "edits", []map[string]any{})},
	{tool: "edit_file", args: a("path", "{root}/edit-me.txt", "edits", []map[string]any{{"oldText": "not there", "newText": "x"}})},
	{tool: "edit_file", args: a("path", "{root}/missing.txt", "edits", []map[string]any{{"oldText": "a", "newText": "b"}})},
	{tool: "read_text_file", args: p("{root}/edit-me.txt")},
	// Directories and moves.
	{tool: "create_directory", args: p("{root}/made/deeper/still")},
	{tool: "create_directory", args: p("{root}/made")},
	{tool: "create_directory", args: p("{root}/hello.txt")},
	{tool: "create_directory", args: p("{root}/nouveau/répertoire")},
	{tool: "move_file", args: a("source", "{root}/new.txt", "destination", "{root}/made/moved.txt")},
	{tool: "move_file", args: a("source", "{root}/made/moved.txt", "destination", "{root}/hello.txt")},
	{tool: "move_file", args: a("source", "{root}/missing.txt", "destination", "{root}/x.txt"), loose: true}, // 2.3.0 names its staging name, ours the destination
	{tool: "move_file", args: a("source", "{root}/nonl.txt", "destination", "{root}/nodir/x.txt")},
	{tool: "move_file", args: a("source", "{root}/deep", "destination", "{root}/made/deep")},
	{tool: "move_file", args: a("source", "{root}/unicode/café.txt", "destination", "{root}/unicode/thé.txt")},
	{tool: "move_file", args: a("source", "{root}/sortme", "destination", "/tmp/mcpwire-fs-outside")},
	{tool: "directory_tree", args: p("{root}/made")},
	// 2.3.0: head and tail of CRLF text, depth, excludes, sizes unknown.
	{tool: "read_text_file", args: a("path", "{root}/crlf.txt", "head", 2)},
	{tool: "read_text_file", args: a("path", "{root}/crlf-edit.txt", "tail", 5)},
	{tool: "directory_tree", args: a("path", "{root}/src", "depth", 1)},
	{tool: "directory_tree", args: a("path", "{root}/src", "depth", 2)},
	{tool: "directory_tree", args: a("path", "{root}/src", "depth", 2.5), refused: "arguments/depth: expected integer"},
	{tool: "directory_tree", args: a("path", "{root}/src", "depth", 0), refused: "arguments/depth: 0 is less than the minimum 1"},
	{tool: "directory_tree", args: a("path", "{root}/src", "excludePatterns", []string{"**/util/**"})},
	{tool: "directory_tree", args: a("path", "{root}/src", "excludePatterns", []string{"*/**"})},
	{tool: "search_files", args: a("path", "{root}", "pattern", "**/*.js", "excludePatterns", []string{"node_modules"})},
	{tool: "search_files", args: a("path", "{root}", "pattern", "**/util*", "excludePatterns", []string{"**/util/**"})},
	{tool: "list_directory_with_sizes", args: a("path", "{root}/sizes", "sortBy", "size")},
	{tool: "read_text_file", args: p("{root}/sizes/dangling")},
	{tool: "write_file", args: a("path", "{root}/sizes/dangling", "content", "x")},
	// append_file.
	{tool: "append_file", args: a("path", "{root}/log.txt", "content", "second\n")},
	{tool: "append_file", args: a("path", "{root}/log.txt", "content", "no newline")},
	{tool: "append_file", args: a("path", "{root}/new-log.txt", "content", "created\n")},
	{tool: "append_file", args: a("path", "{root}/link-to-hello.txt", "content", "via link\n")},
	{tool: "append_file", args: a("path", "{root}/src", "content", "x")},
	{tool: "append_file", args: a("path", "{root}/nodir/log.txt", "content", "x")},
	{tool: "append_file", args: a("path", "/tmp/mcpwire-fs-outside.txt", "content", "x")},
	{tool: "append_file", args: a("path", "{root}/log.txt", "content", "")},
	{tool: "read_text_file", args: p("{root}/log.txt")},
	// copy_file.
	{tool: "copy_file", args: a("source", "{root}/code.py", "destination", "{root}/code-copy.py")},
	{tool: "copy_file", args: a("source", "{root}/code.py", "destination", "{root}/hello.txt")},
	{tool: "copy_file", args: a("source", "{root}/src", "destination", "{root}/src-copy")},
	{tool: "copy_file", args: a("source", "{root}/missing.txt", "destination", "{root}/copy.txt")},
	{tool: "copy_file", args: a("source", "{root}/hello.txt", "destination", "{root}/nodir/copy.txt")},
	{tool: "copy_file", args: a("source", "{root}/hello.txt", "destination", "/tmp/mcpwire-fs-outside-copy.txt")},
	{tool: "copy_file", args: a("source", "/etc/hostname", "destination", "{root}/hostname")},
	{tool: "copy_file", args: a("source", "{root}/link-to-hello.txt", "destination", "{root}/unicode/copied-through-link.txt")},
	{tool: "copy_file", args: a("source", "{root}/empty.txt", "destination", "{root}/emptydir/empty-copy.txt")},
	{tool: "get_file_info", args: p("{root}/code-copy.py")},
	// edit_file of 2.3.0: line endings kept, indentation, closest text.
	{tool: "edit_file", args: a("path", "{root}/crlf-edit.txt", "edits", []map[string]any{{"oldText": "two\nthree", "newText": "2\n3"}})},
	{tool: "edit_file", args: a("path", "{root}/tabs.go", "edits", []map[string]any{{"oldText": "    if x {\n        return 1\n    }", "newText": "    if y {\n        return 2\n    }\n    return 3"}})},
	{tool: "edit_file", args: a("path", "{root}/tabs.go", "edits", []map[string]any{{"oldText": "  return 2\n", "newText": "  return 22"}}, "dryRun", true)},
	{tool: "edit_file", args: a("path", "{root}/edit-me.txt", "edits", []map[string]any{{"oldText": "delta", "newText": "DELTA"}, {"oldText": "zeta\n eta", "newText": "x"}})},
	{tool: "edit_file", args: a("path", "{root}/edit-me.txt", "edits", []map[string]any{{"oldText": "kappa\nlambda\nmu\nnu\nxi\nomicron", "newText": "x"}})},
	{tool: "edit_file", args: a("path", "{root}/empty.txt", "edits", []map[string]any{{"oldText": "a", "newText": "b"}})},
	{tool: "read_text_file", args: p("{root}/tabs.go")},
	{tool: "get_file_info", args: p("{root}/crlf-edit.txt")},
	{tool: "list_directory", args: p("{root}")},
}

// TestDifferential runs the same calls against the official filesystem
// server (from npm) and against this package on two identical trees, and
// compares every result and the trees they leave: in process in both
// protocol eras, and as mcpwire serve filesystem over stdio and over
// Streamable HTTP.
func TestDifferential(t *testing.T) {
	for _, v := range []struct {
		name  string
		start func(t *testing.T, dir string) *client.Session
	}{
		{"in-process/2025-11-25", func(t *testing.T, dir string) *client.Session {
			return startOurs(t, []string{dir}, nil, "2025-11-25", nil)
		}},
		{"in-process/2026-07-28", func(t *testing.T, dir string) *client.Session {
			return startOurs(t, []string{dir}, nil, "2026-07-28", nil)
		}},
		{"serve-stdio/2026-07-28", func(t *testing.T, dir string) *client.Session {
			return startServe(t, []string{dir}, false, "2026-07-28", nil)
		}},
		{"serve-http/2025-11-25", func(t *testing.T, dir string) *client.Session {
			return startServe(t, []string{dir}, true, "2025-11-25", nil)
		}},
		{"serve-http/2026-07-28", func(t *testing.T, dir string) *client.Session {
			return startServe(t, []string{dir}, true, "2026-07-28", nil)
		}},
	} {
		t.Run(v.name, func(t *testing.T) {
			official := filepath.Join(t.TempDir(), "tree")
			mine := filepath.Join(t.TempDir(), "tree")
			for _, d := range []string{official, mine} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				makeTree(t, d)
			}
			theirs := startOfficialArgs(t, []string{official}, mcp.Version(v.name[strings.IndexByte(v.name, '/')+1:]), nil)
			ours := v.start(t, mine)
			for i, s := range differentialSteps {
				want := callTool(t, theirs, official, s.tool, s.args)
				got := callTool(t, ours, mine, s.tool, s.args)
				compare(t, i, s, want, got)
			}
			if d := diffSnapshots(snapshot(t, official), snapshot(t, mine)); d != "" {
				t.Errorf("the trees differ after the calls (official vs ours):\n%s", d)
			}
		})
	}
}

var dateLine = regexp.MustCompile(`(?m)^(created|modified|accessed): [A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4} \([^)]+\)$`)

func compare(t *testing.T, i int, s step, want, got callResult) {
	t.Helper()
	args, _ := json.Marshal(s.args)
	where := func() string { return s.tool + " " + string(args) }
	if s.refused != "" {
		if !got.IsError || !strings.Contains(got.Text, s.refused) {
			t.Errorf("step %d, %s: want an error with %q, got isError %v: %s", i, where(), s.refused, got.IsError, got.Text)
		}
		return
	}
	if want.IsError != got.IsError {
		t.Errorf("step %d, %s: isError %v, official %v\nours:     %s\nofficial: %s", i, where(), got.IsError, want.IsError, got.Text, want.Text)
		return
	}
	if want.IsError && s.loose {
		return
	}
	if s.tool == "get_file_info" {
		want.Text = dateLine.ReplaceAllString(want.Text, "$1: DATE")
		got.Text = dateLine.ReplaceAllString(got.Text, "$1: DATE")
		want.JSON, got.JSON = "", ""
	}
	if want.Text != got.Text {
		t.Errorf("step %d, %s: texts differ\nours:     %q\nofficial: %q", i, where(), got.Text, want.Text)
		return
	}
	if want.JSON != got.JSON && !want.IsError {
		t.Errorf("step %d, %s: results differ\nours:     %s\nofficial: %s", i, where(), got.JSON, want.JSON)
	}
}

var _ = client.Options{}

// bounded makes the official schemas' numbers what ours are on purpose
// (see "Intended differences" in the package documentation): head and
// tail from 1 (2.3.0: from 0), and depth's exclusiveMinimum 0 written as
// minimum 1 (the same integers).
func bounded(schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	for _, name := range []string{"head", "tail"} {
		if p, ok := props[name].(map[string]any); ok && p["type"] == "integer" {
			p["minimum"] = 1
		}
	}
	if p, ok := props["depth"].(map[string]any); ok && p["exclusiveMinimum"] != nil {
		delete(p, "exclusiveMinimum")
		p["minimum"] = 1
	}
}

// TestToolsMatchOfficial compares the tool list with the official
// server's: names, titles, descriptions, annotations and schemas (less
// the $schema member, and with head and tail bounded).
func TestToolsMatchOfficial(t *testing.T) {
	dir := t.TempDir()
	list := func(cs *client.Session, official bool) map[string]string {
		out := map[string]string{}
		for tool, err := range cs.Tools(t.Context()) {
			if err != nil {
				t.Fatal(err)
			}
			var in, outSchema map[string]any
			json.Unmarshal(tool.InputSchema, &in)
			json.Unmarshal(tool.OutputSchema, &outSchema)
			delete(in, "$schema")
			delete(outSchema, "$schema")
			if official {
				bounded(in)
			}
			tool.Execution = nil
			tool.InputSchema, _ = json.Marshal(in)
			tool.OutputSchema, _ = json.Marshal(outSchema)
			b, _ := json.Marshal(tool)
			out[tool.Name] = string(b)
		}
		return out
	}
	want := list(startOfficial(t, []string{dir}, nil), true)
	got := list(startOurs(t, []string{dir}, nil, "2025-11-25", nil), false)
	if len(want) != len(got) {
		t.Errorf("%d tools, official %d", len(got), len(want))
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("tool %s:\nours:     %s\nofficial: %s", name, got[name], w)
		}
	}
}
