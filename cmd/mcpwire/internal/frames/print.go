package frames

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// A Printer shows records as they go, one line each, for a person:
//
//	20:55:01.123 → initialize #1 {"jsonrpc":"2.0","id":1,"method":"initialize",...}
//	20:55:01.130 ← initialize #1 7.1ms {"jsonrpc":"2.0","id":1,"result":{...}}
//	20:55:01.140 ← notifications/message {"jsonrpc":"2.0","method":...}
//	20:55:01.150 ← ✗ Parse error: invalid literal at offset 0: "hello"
//
// "→" is a frame from the client to the server, "←" one from the server.
// On a terminal (Color) the arrows, errors and latencies are colored and
// frames are cut to Clip bytes. It is safe for concurrent use.
type Printer struct {
	W     io.Writer
	Color bool
	// Clip cuts each frame to this many bytes; 0 keeps it whole.
	Clip int

	mu  sync.Mutex
	buf []byte
}

// ANSI colors.
const (
	colReset  = "\x1b[0m"
	colDim    = "\x1b[2m"
	colRed    = "\x1b[31m"
	colGreen  = "\x1b[32m"
	colYellow = "\x1b[33m"
	colCyan   = "\x1b[36m"
	colBold   = "\x1b[1m"
)

// Print writes one record.
func (p *Printer) Print(r *Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.buf[:0]
	b = p.paint(b, colDim, r.Time.Local().Format("15:04:05.000"))
	b = append(b, ' ')
	if r.From == FromClient {
		b = p.paint(b, colCyan, "→")
	} else {
		b = p.paint(b, colGreen, "←")
	}
	b = append(b, ' ')
	info := summarize(r)
	switch {
	case r.Error != "":
		b = p.paint(b, colRed+colBold, "✗ "+r.Error)
	default:
		if info.method != "" {
			b = p.paint(b, colBold, info.method)
		} else {
			b = append(b, "(response)"...)
		}
		if info.id != "" {
			b = append(b, " #"...)
			b = append(b, info.id...)
		}
		if r.LatencyMS > 0 {
			b = append(b, ' ')
			b = p.paint(b, colYellow, formatLatency(r.LatencyMS))
		}
		if info.errCode != "" {
			b = append(b, ' ')
			b = p.paint(b, colRed, "error "+info.errCode)
		}
	}
	if r.Status != 0 && r.Status != 200 && r.Status != 202 {
		b = append(b, ' ')
		b = p.paint(b, colRed, "HTTP "+strconv.Itoa(r.Status))
	}
	b = append(b, ' ')
	body := r.Body()
	if r.Raw != nil {
		b = p.paint(b, colDim, clipText(strconv.Quote(*r.Raw), p.Clip))
	} else {
		b = append(b, clipText(string(body), p.Clip)...)
	}
	b = append(b, '\n')
	p.W.Write(b)
	if cap(b) <= 64<<10 {
		p.buf = b[:0]
	} else {
		p.buf = nil
	}
}

func (p *Printer) paint(b []byte, color, s string) []byte {
	if !p.Color {
		return append(b, s...)
	}
	b = append(b, color...)
	b = append(b, s...)
	return append(b, colReset...)
}

// summary is what the one-line view says of a message.
type summary struct {
	method, id, errCode string
}

// summarize reads the method, id and error code of a record's message;
// the record's own method (a response's request) comes first.
func summarize(r *Record) summary {
	var s summary
	s.method = r.Method
	if r.Raw != nil {
		return s
	}
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Error  *struct {
			Code json.Number `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Message, &m); err != nil {
		return s // a batch, or not an object
	}
	if s.method == "" {
		s.method = m.Method
	}
	if id := bytes.TrimSpace(m.ID); len(id) > 0 && string(id) != "null" {
		s.id = string(bytes.Trim(id, `"`))
	}
	if m.Error != nil {
		s.errCode = m.Error.Code.String()
	}
	return s
}

// formatLatency writes a latency in ms or s, three significant digits.
func formatLatency(ms float64) string {
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.1fms", ms)
	}
	return fmt.Sprintf("%.2fs", ms/1000)
}

// clipText cuts s to max bytes on a rune boundary, adding how much was
// left out; max <= 0 keeps it whole.
func clipText(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}
