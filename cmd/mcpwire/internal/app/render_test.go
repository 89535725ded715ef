package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

func TestTable(t *testing.T) {
	tb := &Table{Header: []string{"URI", "NAME", "EMPTY", "DESCRIPTION"}}
	tb.Add("a://long/uri", "x", "", "")
	tb.Add("b://u", "élan", "", "described")
	var b bytes.Buffer
	if err := tb.Write(&b, "  "); err != nil {
		t.Fatal(err)
	}
	// The empty column is left out; no line ends in spaces; runes, not
	// bytes, are counted.
	checkOutput(t, "table", b.String(), `  URI           NAME  DESCRIPTION
  a://long/uri  x
  b://u         élan  described
`)
}

func TestUnescapeHTML(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"x \u003c y \u0026\u0026 z \u003e w"}`: `{"a":"x < y && z > w"}`,
		`{"a":"\\u003c"}`:  `{"a":"\\u003c"}`, // an escaped backslash, then text
		`{"a":"\u00e9\n"}`: `{"a":"\u00e9\n"}`,
		`{"a":"plain"}`:    `{"a":"plain"}`,
	} {
		if got := string(unescapeHTML([]byte(in))); got != want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", in, got, want)
		}
		if !SameJSON([]byte(in), unescapeHTML([]byte(in))) {
			t.Errorf("unescapeHTML(%s) changed the value", in)
		}
	}
}

// TestWriteJSONUnescaped: the mcp types' own MarshalJSON escapes <, > and
// &; the output does not.
func TestWriteJSONUnescaped(t *testing.T) {
	var b bytes.Buffer
	res := &mcp.ListToolsResult{Tools: []mcp.Tool{{Name: "cmp", Description: "a < b && b > c"}}}
	if err := WriteJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"description": "a < b && b > c"`) {
		t.Errorf("output:\n%s", b.String())
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1: "1 byte", 1023: "1023 bytes", 1024: "1.0 KB", 1229: "1.2 KB",
		5 << 20: "5.0 MB", 3 << 30: "3.0 GB",
	} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWriteContent(t *testing.T) {
	var b bytes.Buffer
	err := WriteContent(&b, []mcp.Content{
		&mcp.TextContent{Text: "two\nlines\n"},
		&mcp.ImageContent{Data: "not base64!", MimeType: "image/png"},
		mcp.NewImageContent(make([]byte, 1260), "image/jpeg"),
		&mcp.ResourceLink{Resource: mcp.Resource{URI: "file:///a.txt", Name: "a"}},
		&mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "file:///empty"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, "content", b.String(), `two
lines
[image image/png, invalid base64 data]
[image image/jpeg, 1.2 KB]
[resource link file:///a.txt]
[resource file:///empty]
`)
}

func TestIndentLines(t *testing.T) {
	var b bytes.Buffer
	IndentLines(&b, "  ", "first  \n\n\tsecond\r\n\n")
	checkOutput(t, "indented", b.String(), "  first\n\n  \tsecond\n")
}
