package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// A stdioClient speaks newline-delimited JSON-RPC to a server's stdin and
// stdout.
type stdioClient struct {
	p   *proc
	w   *bufio.Writer
	buf []byte // request scratch
	big []byte // a line longer than the read buffer
}

// openStdio starts bin -stdio and initializes a legacy session.
func openStdio(bin string, extra ...string) (*stdioClient, error) {
	p, err := startStdio(bin, extra...)
	if err != nil {
		return nil, err
	}
	c := &stdioClient{p: p, w: newWriter(p)}
	if err := c.initialize(); err != nil {
		p.kill()
		return nil, fmt.Errorf("initialize: %v (stderr: %.500s)", err, p.stderr)
	}
	return c, nil
}

// openStdioModern starts bin -stdio and opens a 2026-07-28 session as a
// client does: server/discover, no initialize. It returns errNotModern
// when the server does not serve that era.
func openStdioModern(bin string) (*stdioClient, error) {
	p, err := startStdio(bin)
	if err != nil {
		return nil, err
	}
	c := &stdioClient{p: p, w: newWriter(p)}
	err = c.send(discoverRequest(0))
	var line []byte
	if err == nil {
		line, err = c.readResponse()
	}
	if err == nil {
		err = checkDiscover(line)
	}
	if err != nil {
		p.kill()
		if errors.Is(err, errNotModern) {
			return nil, err
		}
		return nil, fmt.Errorf("server/discover: %v (stderr: %.500s)", err, p.stderr)
	}
	return c, nil
}

// openStdioFor opens the session a template's requests belong to.
func openStdioFor(bin string, t *callTemplate) (*stdioClient, error) {
	if t.modern {
		return openStdioModern(bin)
	}
	return openStdio(bin)
}

func (c *stdioClient) initialize() error {
	if err := c.send(initializeRequest(0)); err != nil {
		return err
	}
	line, err := c.readResponse()
	if err != nil {
		return err
	}
	if _, err := parseResponse(line); err != nil {
		return err
	}
	return c.send(initializedNotification)
}

// send writes one message and flushes.
func (c *stdioClient) send(b []byte) error {
	c.w.Write(b)
	c.w.WriteByte('\n')
	return c.w.Flush()
}

// readResponse reads the next response line, skipping the server's
// notifications and requests. The line is valid until the next read.
func (c *stdioClient) readResponse() ([]byte, error) {
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, err
		}
		if _, ok := quickID(line); ok && !bytes.Contains(line[:min(len(line), 128)], []byte(`"method"`)) {
			return line, nil
		}
		r, err := parseResponse(line)
		if err != nil || r.Method == "" {
			return line, err
		}
	}
}

func (c *stdioClient) readLine() ([]byte, error) {
	line, err := c.p.stdout.ReadSlice('\n')
	if err == nil {
		return line[:len(line)-1], nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("reading the server's output: %v (stderr: %.500s)", err, c.p.stderr)
	}
	c.big = append(c.big[:0], line...)
	for {
		line, err = c.p.stdout.ReadSlice('\n')
		c.big = append(c.big, line...)
		if err == nil {
			return c.big[:len(c.big)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) || len(c.big) > 64<<20 {
			return nil, fmt.Errorf("reading the server's output: %v", err)
		}
	}
}

// call sends one tools/call and reads its answer.
func (c *stdioClient) call(t *callTemplate, id int64) ([]byte, error) {
	c.buf = t.append(c.buf[:0], id)
	if err := c.send(c.buf); err != nil {
		return nil, err
	}
	return c.readResponse()
}

// stdioSequential measures one call at a time, in the template's era: latency percentiles, calls
// per second and server CPU per call.
func stdioSequential(bin string, t *callTemplate, want []byte, lim limits) (metrics, error) {
	c, err := openStdioFor(bin, t)
	if err != nil {
		return nil, err
	}
	defer c.p.kill()
	defer watchdog(c.p, lim)()
	ck := &checker{want: want}
	id := int64(1)
	for end := time.Now().Add(lim.warm); time.Now().Before(end); id++ {
		line, err := c.call(t, id)
		if err != nil {
			return nil, err
		}
		if err := ck.check(line, id); err != nil {
			return nil, err
		}
	}
	lat := make([]time.Duration, 0, 1<<16)
	cpu0, t0 := c.p.cpu(), time.Now()
	end := t0.Add(lim.dur)
	for len(lat) < lim.maxCalls {
		s := time.Now()
		if s.After(end) {
			break
		}
		line, err := c.call(t, id)
		if err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(s))
		if err := ck.check(line, id); err != nil {
			return nil, err
		}
		id++
	}
	elapsed, cpu := time.Since(t0), c.p.cpu()-cpu0
	m := latencyMetrics(lat)
	m["calls/s"] = float64(len(lat)) / elapsed.Seconds()
	m["cpu/call µs"] = float64(cpu.Microseconds()) / float64(len(lat))
	m["peak RSS MB"] = float64(c.p.hwm()) / 1e6
	if err := c.p.stop(); err != nil {
		return nil, err
	}
	return m, nil
}

func latencyMetrics(lat []time.Duration) metrics {
	slices.Sort(lat)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return metrics{
		"p50 µs": us(percentile(lat, 50)),
		"p90 µs": us(percentile(lat, 90)),
		"p99 µs": us(percentile(lat, 99)),
	}
}

// stdioPipelined keeps depth calls in flight on one session (in the
// template's era) and measures
// calls per second and server CPU per call.
func stdioPipelined(bin string, t *callTemplate, want []byte, depth int, lim limits) (metrics, error) {
	c, err := openStdioFor(bin, t)
	if err != nil {
		return nil, err
	}
	defer c.p.kill()
	defer watchdog(c.p, lim)()
	tokens := make(chan struct{}, depth)
	stop := make(chan struct{})
	writerDone := make(chan error, 1)
	var written atomic.Int64 // requests handed to the pipe
	go func() {
		// Write while there is room in the window; flush before waiting.
		var buf []byte
		for id := int64(1); ; id++ {
			select {
			case tokens <- struct{}{}:
			default:
				if err := c.w.Flush(); err != nil {
					writerDone <- err
					return
				}
				select {
				case tokens <- struct{}{}:
				case <-stop:
					writerDone <- c.w.Flush()
					return
				}
			}
			select {
			case <-stop:
				<-tokens
				writerDone <- c.w.Flush()
				return
			default:
			}
			buf = t.append(buf[:0], id)
			buf = append(buf, '\n')
			written.Add(1)
			if _, err := c.w.Write(buf); err != nil {
				writerDone <- err
				return
			}
		}
	}()
	ck := &checker{want: want}
	var (
		n              int
		cpu0           time.Duration
		t0             time.Time
		warmEnd        = time.Now().Add(lim.warm)
		end            time.Time
		measured       = false
		stopped        = false
		readErr        error
		writerFinished bool
		callsInWin     int
	)
	for {
		// After stop, read until every request written has its answer.
		// The writer is waited for only when nothing is outstanding: it
		// may be blocked on a full pipe while the server waits for us to
		// read its answers.
		if stopped && int64(n) == written.Load() {
			if !writerFinished {
				writerFinished = true
				if err := <-writerDone; err != nil {
					return nil, err
				}
			}
			if int64(n) == written.Load() {
				break
			}
		}
		line, err := c.readResponse()
		if err != nil {
			readErr = err
			break
		}
		if err := ck.check(line, -1); err != nil {
			readErr = err
			break
		}
		<-tokens
		n++
		if measured && !stopped {
			callsInWin++
		}
		now := time.Now()
		switch {
		case !measured && now.After(warmEnd):
			measured, cpu0, t0, end = true, c.p.cpu(), now, now.Add(lim.dur)
		case measured && !stopped && (now.After(end) || callsInWin >= lim.maxCalls):
			end = now
			cpuEnd := c.p.cpu()
			close(stop)
			stopped = true
			cpu0 = cpuEnd - cpu0 // CPU of the window
		}
	}
	if readErr != nil {
		c.p.kill() // unblocks the writer
		if !stopped {
			close(stop)
		}
		if !writerFinished {
			<-writerDone
		}
		return nil, readErr
	}
	elapsed := end.Sub(t0)
	m := metrics{
		"calls/s":     float64(callsInWin) / elapsed.Seconds(),
		"cpu/call µs": float64(cpu0.Microseconds()) / float64(callsInWin),
		"peak RSS MB": float64(c.p.hwm()) / 1e6,
	}
	if err := c.p.stop(); err != nil {
		return nil, err
	}
	return m, nil
}

func newWriter(p *proc) *bufio.Writer { return bufio.NewWriterSize(p.stdin, 256<<10) }

// watchdog kills p if a run lasts far longer than its limits (a server
// that stopped answering); it returns the function that disarms it.
func watchdog(p *proc, lim limits) func() bool {
	t := time.AfterFunc(lim.warm+lim.dur+30*time.Second, func() {
		p.cmd.Process.Kill()
	})
	return t.Stop
}
