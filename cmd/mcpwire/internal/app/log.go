package app

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"unicode"
)

// Logger returns the logger of --verbose, or nil without it (the client
// and the command transport then discard what they would log). It
// writes one line per record on stderr: the server's stderr lines as
// "[server] LINE", everything else as "[client] MESSAGE key=value ...".
func (a *App) Logger() *slog.Logger {
	if !a.Global.Verbose {
		return nil
	}
	return slog.New(&verboseHandler{w: a.Stderr})
}

// verboseHandler writes log records to mcpwire's stderr, one line each:
// the server's stderr lines (the command transport's "stderr" records) as
// "[server] LINE", everything else as "[client] MESSAGE key=value ...".
// w must be safe for concurrent use: the server's lines arrive on their
// own goroutine.
type verboseHandler struct {
	w     io.Writer
	attrs []slog.Attr // from WithAttrs, already qualified by their group
	group string      // from WithGroup, with a trailing "."
}

// Enabled reports true for every level: --verbose shows it all.
func (h *verboseHandler) Enabled(context.Context, slog.Level) bool { return true }

// Handle writes r as one line.
func (h *verboseHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	if r.Message == "stderr" {
		if line, ok := recordAttr(r, "line"); ok && h.group == "" {
			b.WriteString("[server] ")
			b.WriteString(strings.TrimRightFunc(line.String(), unicode.IsSpace))
			b.WriteByte('\n')
			_, err := io.WriteString(h.w, b.String())
			return err
		}
	}
	b.WriteString("[client] ")
	b.WriteString(OneLine(r.Message))
	for _, a := range h.attrs {
		writeAttr(&b, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, h.group, a)
		return true
	})
	b.WriteByte('\n')
	_, err := io.WriteString(h.w, b.String())
	return err
}

// WithAttrs returns a handler that adds attrs to each record.
func (h *verboseHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		a.Key = h.group + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

// WithGroup returns a handler that qualifies the keys of later attributes
// with name.
func (h *verboseHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group = h.group + name + "."
	return &c
}

// recordAttr returns the value of r's attribute key.
func recordAttr(r slog.Record, key string) (slog.Value, bool) {
	var v slog.Value
	found := false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v, found = a.Value.Resolve(), true
			return false
		}
		return true
	})
	return v, found
}

// writeAttr writes " key=value", quoting values that hold spaces or
// quotes; groups are flattened as "group.key".
func writeAttr(b *strings.Builder, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			writeAttr(b, p, g)
		}
		return
	}
	if a.Equal(slog.Attr{}) {
		return
	}
	b.WriteByte(' ')
	b.WriteString(prefix + a.Key)
	b.WriteByte('=')
	s := OneLine(v.String())
	if s == "" || strings.ContainsAny(s, " \t\"=") {
		s = strconv.Quote(s)
	}
	b.WriteString(s)
}
