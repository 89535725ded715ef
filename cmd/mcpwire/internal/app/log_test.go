package app

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"
)

func TestVerboseHandler(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(&verboseHandler{w: &b})
	// As the command transport logs the server's stderr.
	log.With("command", "srv", "pid", 42).Info("stderr", "line", "listening on stdio  ")
	log.Debug("mcp client: modern probe failed", "error", errors.New("method not found"))
	log.WithGroup("conn").With("id", 3).Warn("slow", slog.Group("stats", "ms", 1500), "note", "")
	checkOutput(t, "log", b.String(), `[server] listening on stdio
[client] mcp client: modern probe failed error="method not found"
[client] slow conn.id=3 conn.stats.ms=1500 conn.note=""
`)
}
