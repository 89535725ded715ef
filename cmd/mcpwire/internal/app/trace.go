package app

import (
	"io"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/transport"
)

// The values of --trace.
const (
	TracePretty = "pretty" // one line per frame, colored on a terminal
	TraceJSONL  = "jsonl"  // the recording format of mcpwire tap
)

// traceClip is how much of a frame the pretty trace shows on a terminal;
// elsewhere (a file, a pipe) frames are shown whole.
const traceClip = 400

// TraceObserver returns the observer of --trace=mode on w, seen from the
// client: the one-line view (pretty; colored and clipped when w is a
// terminal and NO_COLOR is not set) or the JSONL recording format.
func (a *App) TraceObserver(mode string, w io.Writer) (transport.Observer, error) {
	switch mode {
	case TracePretty:
		p := &frames.Printer{W: w}
		if a.IsTerminal(w) {
			p.Clip = traceClip
			p.Color = a.Getenv("NO_COLOR") == ""
		}
		return frames.Observe(frames.AtClient, p.Print), nil
	case TraceJSONL:
		jw := frames.NewWriter(w)
		return frames.Observe(frames.AtClient, func(r *frames.Record) { jw.Write(r) }), nil
	}
	return nil, UsageErrorf("--trace=%s: want --trace (the same as --trace=%s) or --trace=%s", mode, TracePretty, TraceJSONL)
}
