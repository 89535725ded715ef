package transport

import (
	"context"
	"log/slog"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// LogFrames returns an Observer that writes every frame to l as one
// structured record at level, with the message "frame" and the attributes
//
//	direction  "sent" or "received"
//	transport  the transport's name
//	session    the session id (omitted when there is none)
//	method     the method (for a response, of the request it answers)
//	id         the request or response id (omitted for notifications)
//	latency    a response's time since its request
//	status     the HTTP status, when there is one
//	size       the frame's length in bytes
//	frame      the frame itself, cut to maxFrame bytes when longer
//	error      why the frame is not a valid message
//
// maxFrame <= 0 means the whole frame. Records are skipped cheaply when l
// is not enabled for level.
func LogFrames(l *slog.Logger, level slog.Level, maxFrame int) Observer {
	return ObserverFunc(func(f *Frame) {
		ctx := context.Background()
		if !l.Enabled(ctx, level) {
			return
		}
		attrs := make([]slog.Attr, 0, 10)
		attrs = append(attrs, slog.String("direction", f.Direction.String()), slog.String("transport", f.Transport))
		if f.Session != "" {
			attrs = append(attrs, slog.String("session", f.Session))
		}
		if f.Method != "" {
			attrs = append(attrs, slog.String("method", f.Method))
		}
		if id, ok := f.ID(); ok {
			attrs = append(attrs, slog.String("id", id.String()))
		}
		if f.Latency > 0 {
			attrs = append(attrs, slog.Duration("latency", f.Latency))
		}
		if f.HTTPStatus != 0 {
			attrs = append(attrs, slog.Int("status", f.HTTPStatus))
		}
		attrs = append(attrs, slog.Int("size", len(f.Raw)), slog.String("frame", clip(f.Raw, maxFrame)))
		if f.Err != nil {
			attrs = append(attrs, slog.String("error", f.Err.Error()))
		}
		l.LogAttrs(ctx, level, "frame", attrs...)
	})
}

// ID returns the id of the frame's request or response, if it has one.
func (f *Frame) ID() (id jsonrpc.ID, ok bool) {
	switch m := f.Message.(type) {
	case *jsonrpc.Request:
		return m.ID, m.IsCall()
	case *jsonrpc.Response:
		return m.ID, m.ID.IsValid()
	}
	return jsonrpc.ID{}, false
}

// clip returns b as a string, cut to at most max bytes (on a rune
// boundary) with "…" added when cut; max <= 0 keeps it whole.
func clip(b []byte, max int) string {
	if max <= 0 || len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}
