package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/mcp"
)

// This file holds the output helpers the commands share: aligned tables,
// indented text, JSON, sizes and content blocks.

// writeJSON writes v as indented JSON (two spaces), with <, > and &
// unescaped, and a final newline.
func writeJSON(w io.Writer, v any) error {
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

// prettyJSON returns raw indented by two spaces, or raw as it is if it is
// not valid JSON.
func prettyJSON(raw json.RawMessage) []byte {
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

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// A table writes rows in aligned columns, two spaces apart. Columns that
// are empty in every row (the header aside) are left out, and no line
// ends in spaces.
type table struct {
	header []string
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write writes the table, each line after indent.
func (t *table) write(w io.Writer, indent string) error {
	n := len(t.header)
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
	for i, h := range t.header {
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
	if t.header != nil {
		line(t.header)
	}
	for _, r := range t.rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// indentLines writes s with each line after indent, without trailing
// spaces, and ends it with a newline.
func indentLines(w io.Writer, indent, s string) error {
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

// flatten folds s onto one line, with single spaces.
func flatten(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// formatSize writes a byte count for people: "68 bytes", "1.2 KB".
func formatSize(n int64) string {
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

// base64Size describes the size of base64 data once decoded.
func base64Size(data string) string {
	b, err := mcp.DecodeBase64(data)
	if err != nil {
		return "invalid base64 data"
	}
	return formatSize(int64(len(b)))
}

// bracket writes a summary line such as "[image image/png, 1.2 KB]",
// leaving out empty parts.
func bracket(kind string, parts ...string) string {
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

// writeText writes s, ending it with a newline if it has none.
func writeText(w io.Writer, s string) error {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}

// writeContent writes content blocks for people: text as it is, images
// and audio as a summary line, resources with their URI.
func writeContent(w io.Writer, blocks []mcp.Content) error {
	for _, c := range blocks {
		if err := writeBlock(w, c); err != nil {
			return err
		}
	}
	return nil
}

func writeBlock(w io.Writer, c mcp.Content) error {
	switch c := c.(type) {
	case *mcp.TextContent:
		return writeText(w, c.Text)
	case *mcp.ImageContent:
		return writeText(w, bracket("image", c.MimeType, base64Size(c.Data)))
	case *mcp.AudioContent:
		return writeText(w, bracket("audio", c.MimeType, base64Size(c.Data)))
	case *mcp.ResourceLink:
		var size string
		if c.Size != nil {
			size = formatSize(*c.Size)
		}
		return writeText(w, bracket("resource link", c.URI, c.MimeType, size))
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r.IsBlob() {
			return writeText(w, bracket("resource", r.URI, r.MimeType, base64Size(r.Blob)))
		}
		if err := writeText(w, bracket("resource", r.URI, r.MimeType)); err != nil {
			return err
		}
		if r.Text == "" {
			return nil
		}
		return writeText(w, r.Text)
	case *mcp.ToolUseContent:
		return writeText(w, bracket("tool use", c.Name, string(c.Input)))
	case *mcp.ToolResultContent:
		if err := writeText(w, bracket("tool result", c.ToolUseID)); err != nil {
			return err
		}
		return writeContent(w, c.Content)
	case nil:
		return nil
	}
	return writeText(w, bracket(c.Type()))
}

// collect appends every item of a paginated list to list, stopping at the
// first error.
func collect[T any](list []T, items iter.Seq2[*T, error]) ([]T, error) {
	for it, err := range items {
		if err != nil {
			return list, err
		}
		list = append(list, *it)
	}
	return list, nil
}
