// Package wire is the part of mcpwire that stands on the wire itself:
// `mcpwire tap`, a transparent recording proxy for stdio and HTTP
// servers, and `mcpwire replay`, which plays the client's side of a
// recording to a server and reports what it answers differently.
package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// DefaultMaxFrame bounds the part of a line (or HTTP body) that a tap
// keeps for its recording; the bytes themselves always pass, whatever
// their length.
const DefaultMaxFrame = 16 << 20

// A StdioTap sits between a client and a stdio server: it starts the
// server and carries every byte from its own stdin to the server's, and
// from the server's stdout to its own, unchanged and as soon as they are
// read, while it records each line as a frame. Lines that are not
// JSON-RPC pass too, and are recorded as raw frames. The server's stderr
// goes to Stderr.
type StdioTap struct {
	Cmd    *exec.Cmd // the server; its Stdin, Stdout and Stderr are set by Run
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Record receives each frame, in the order the lines crossed; it is
	// called from two goroutines (one per direction), never at once, and
	// never after Run has returned.
	Record func(*frames.Record)
	// MaxFrame bounds what is kept of one line; default DefaultMaxFrame.
	MaxFrame int
}

// Run starts the server and carries bytes until the server's stdout ends
// (the server exited or closed it), or ctx ends (the server is then
// stopped). The end of Stdin closes the server's stdin, as a host does to
// stop a server. It returns the server's exit error (an *exec.ExitError
// for a status other than 0).
//
// When the server ends first, the copying of Stdin may still wait in a
// read of it when Run returns (a read cannot be interrupted); what it
// reads then goes nowhere, and is not recorded: the caller may close
// what Record writes to.
func (t *StdioTap) Run(ctx context.Context) error {
	in, err := t.Cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := t.Cmd.StdoutPipe()
	if err != nil {
		return err
	}
	t.Cmd.Stderr = t.Stderr
	if err := t.Cmd.Start(); err != nil {
		return err
	}
	var (
		mu    sync.Mutex // Record is never called at once
		ended bool       // Run has returned: nothing more is recorded; guarded by mu
	)
	obs := frames.Observe(frames.AtClient, func(r *frames.Record) {
		if t.Record != nil {
			t.Record(r)
		}
	})
	tr := transport.NewFrameTracker(transport.ObserverFunc(func(f *transport.Frame) {
		mu.Lock()
		defer mu.Unlock()
		if !ended {
			obs.ObserveFrame(f)
		}
	}), transport.TransportStdio, "")
	defer func() {
		mu.Lock()
		ended = true
		mu.Unlock()
	}()
	max := t.MaxFrame
	if max <= 0 {
		max = DefaultMaxFrame
	}
	toServer := &lineTee{w: in, tr: tr, dir: transport.Sent, max: max}
	toClient := &lineTee{w: t.Stdout, tr: tr, dir: transport.Received, max: max}

	stop := context.AfterFunc(ctx, func() { t.Cmd.Process.Kill() })
	defer stop()
	go func() {
		io.Copy(toServer, t.Stdin)
		toServer.flush()
		in.Close() // the client is done: the server reads the end of its input
	}()
	_, copyErr := io.Copy(toClient, out)
	toClient.flush()
	waitErr := t.Cmd.Wait()
	if waitErr == nil && copyErr != nil && !errors.Is(copyErr, io.ErrClosedPipe) {
		return copyErr
	}
	return waitErr
}

// A lineTee writes everything through to w as it comes and, on the side,
// cuts it into lines that it shows to a frame tracker.
type lineTee struct {
	w    io.Writer
	tr   *transport.FrameTracker
	dir  transport.Direction
	max  int
	line []byte // the current line, at most max bytes of it
	over bool   // the current line is longer than max
	dec  *jsonrpc.Decoder
}

// Write records the lines p completes, then passes p on: a frame is
// recorded before its peer can answer it.
func (l *lineTee) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.add(rest)
			break
		}
		l.add(rest[:i])
		l.emit()
		rest = rest[i+1:]
	}
	return l.w.Write(p)
}

func (l *lineTee) add(b []byte) {
	if room := l.max - len(l.line); room < len(b) {
		b = b[:max(room, 0)]
		l.over = true
	}
	l.line = append(l.line, b...)
}

// emit records the current line, unless it is blank.
func (l *lineTee) emit() {
	line := bytes.TrimSuffix(l.line, []byte{'\r'})
	if len(bytes.TrimSpace(line)) > 0 {
		if l.dec == nil {
			l.dec = jsonrpc.NewDecoder(jsonrpc.Limits{MaxMessageSize: l.max}, nil...)
		}
		var (
			msg jsonrpc.Message
			err error
		)
		if l.over {
			err = &jsonrpc.DecodeError{Err: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the line exceeds %d bytes; only its start was recorded", l.max)}
		} else {
			msg, err = l.dec.Decode(line)
		}
		l.tr.Observe(l.dir, line, msg, err, 0)
	}
	l.line, l.over = l.line[:0], false
	if cap(l.line) > 1<<20 {
		l.line = nil
	}
}

// flush records a last line without a line ending.
func (l *lineTee) flush() {
	if len(l.line) > 0 || l.over {
		l.emit()
	}
}
