package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/mcp"
)

// This file holds the output helpers the commands share: aligned tables,
// indented text, JSON, sizes and content blocks. Text output is for
// people and stable: aligned columns, no trailing spaces, binary data
// summed up and never written raw.

// WriteJSON writes v as indented JSON (two spaces), with <, > and &
// unescaped, and a final newline.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(unescapeHTML(b.Bytes()))
	return err
}

// PrettyJSON returns raw indented by two spaces, or raw as it is if it is
// not valid JSON.
func PrettyJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return raw
	}
	return unescapeHTML(b.Bytes())
}

// unescapeHTML turns the escapes \u003c, \u003e and \u0026 inside the
// strings of a JSON text back into <, > and &, which encoding/json writes
// for the MarshalJSON methods of package mcp whatever the encoder's
// setting. The text stays equivalent JSON.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out = append(out, '<')
				i += 5
				continue
			case "003e":
				out = append(out, '>')
				i += 5
				continue
			case "0026":
				out = append(out, '&')
				i += 5
				continue
			}
		}
		// Any other escape is kept whole, so that "\\u003c" stays as is.
		out = append(out, c, b[i+1])
		i++
	}
	return out
}

// SameJSON reports whether a and b are the same JSON value.
func SameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// A Table writes rows in aligned columns, two spaces apart. Columns that
// are empty in every row (the header aside) are left out, and no line
// ends in spaces.
type Table struct {
	Header []string // the first line, if not nil
	rows   [][]string
}

// Add adds a row.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// Write writes the table, each line after indent.
func (t *Table) Write(w io.Writer, indent string) error {
	n := len(t.Header)
	for _, r := range t.rows {
		n = max(n, len(r))
	}
	width := make([]int, n)
	used := make([]bool, n)
	for _, r := range t.rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
			used[i] = used[i] || c != ""
		}
	}
	for i, h := range t.Header {
		width[i] = max(width[i], utf8.RuneCountInString(h))
	}
	var b strings.Builder
	line := func(cells []string) {
		var l strings.Builder
		l.WriteString(indent)
		for i := range n {
			if !used[i] {
				continue
			}
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			l.WriteString(c)
			l.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	if t.Header != nil {
		line(t.Header)
	}
	for _, r := range t.rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// IndentLines writes s with each line after indent, without trailing
// spaces, and ends it with a newline.
func IndentLines(w io.Writer, indent, s string) error {
	var b strings.Builder
	for l := range strings.Lines(strings.TrimRight(s, "\r\n\t ")) {
		l = strings.TrimRight(l, "\r\n\t ")
		if l != "" {
			b.WriteString(indent)
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Flatten folds s onto one line, with single spaces.
func Flatten(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// FormatSize writes a byte count for people: "68 bytes", "1.2 KB".
func FormatSize(n int64) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1024*1024*1024))
}

// Base64Size describes the size of base64 data once decoded.
func Base64Size(data string) string {
	b, err := mcp.DecodeBase64(data)
	if err != nil {
		return "invalid base64 data"
	}
	return FormatSize(int64(len(b)))
}

// Bracket writes a summary line such as "[image image/png, 1.2 KB]",
// leaving out empty parts.
func Bracket(kind string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return "[" + kind + "]"
	}
	return "[" + kind + " " + strings.Join(kept, ", ") + "]"
}

// WriteText writes s, ending it with a newline if it has none.
func WriteText(w io.Writer, s string) error {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}

// WriteContent writes content blocks for people: text as it is, images
// and audio as a summary line, resources with their URI.
func WriteContent(w io.Writer, blocks []mcp.Content) error {
	for _, c := range blocks {
		if err := WriteBlock(w, c); err != nil {
			return err
		}
	}
	return nil
}

// WriteBlock writes one content block for people, as WriteContent does.
func WriteBlock(w io.Writer, c mcp.Content) error {
	switch c := c.(type) {
	case *mcp.TextContent:
		return WriteText(w, c.Text)
	case *mcp.ImageContent:
		return WriteText(w, Bracket("image", c.MimeType, Base64Size(c.Data)))
	case *mcp.AudioContent:
		return WriteText(w, Bracket("audio", c.MimeType, Base64Size(c.Data)))
	case *mcp.ResourceLink:
		var size string
		if c.Size != nil {
			size = FormatSize(*c.Size)
		}
		return WriteText(w, Bracket("resource link", c.URI, c.MimeType, size))
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r.IsBlob() {
			return WriteText(w, Bracket("resource", r.URI, r.MimeType, Base64Size(r.Blob)))
		}
		if err := WriteText(w, Bracket("resource", r.URI, r.MimeType)); err != nil {
			return err
		}
		if r.Text == "" {
			return nil
		}
		return WriteText(w, r.Text)
	case *mcp.ToolUseContent:
		return WriteText(w, Bracket("tool use", c.Name, string(c.Input)))
	case *mcp.ToolResultContent:
		if err := WriteText(w, Bracket("tool result", c.ToolUseID)); err != nil {
			return err
		}
		return WriteContent(w, c.Content)
	case nil:
		return nil
	}
	return WriteText(w, Bracket(c.Type()))
}

// CompactJSON returns raw on one line, with <, > and & unescaped; text
// that is not JSON is flattened instead.
func CompactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return Flatten(string(raw))
	}
	return string(unescapeHTML(b.Bytes()))
}
