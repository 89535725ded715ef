package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

const baseHeaders = "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"

// An httpSession is one client of an HTTP endpoint: its own connection
// and, in the legacy era, its own session.
type httpSession struct {
	h   *hconn
	hdr string // header lines of every call
	buf []byte
}

// openLegacy dials addr and opens a legacy session: initialize, then
// notifications/initialized.
func openLegacy(addr string) (*httpSession, error) {
	h, err := dialHTTP(addr)
	if err != nil {
		return nil, err
	}
	s, err := initLegacy(h)
	if err != nil {
		h.close()
		return nil, err
	}
	return s, nil
}

// initLegacy opens a legacy session on an existing connection.
func initLegacy(h *hconn) (*httpSession, error) {
	res, err := h.do("POST", "/mcp", baseHeaders, initializeRequest(0))
	if err != nil {
		return nil, err
	}
	if res.status != 200 {
		return nil, fmt.Errorf("initialize: HTTP %d: %.300s", res.status, res.body)
	}
	r, err := parseResponse(res.body)
	if err != nil {
		return nil, fmt.Errorf("initialize: %v", err)
	}
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(r.Result, &ir); err != nil || ir.ProtocolVersion == "" {
		return nil, fmt.Errorf("initialize: no protocolVersion in %.300s", r.Result)
	}
	hdr := baseHeaders + "MCP-Protocol-Version: " + ir.ProtocolVersion + "\r\n"
	if res.sessionID != "" {
		hdr += "Mcp-Session-Id: " + res.sessionID + "\r\n"
	}
	res, err = h.do("POST", "/mcp", hdr, initializedNotification)
	if err != nil {
		return nil, err
	}
	if res.status != 202 && res.status != 200 {
		return nil, fmt.Errorf("notifications/initialized: HTTP %d: %.300s", res.status, res.body)
	}
	return &httpSession{h: h, hdr: hdr}, nil
}

// openModern dials addr for stateless 2026-07-28 requests and asks
// server/discover first, as a client does when it connects: errNotModern
// when the server does not serve that era.
func openModern(addr string) (*httpSession, error) {
	h, err := dialHTTP(addr)
	if err != nil {
		return nil, err
	}
	hdr := baseHeaders + "MCP-Protocol-Version: " + modernVersion + "\r\nMcp-Method: server/discover\r\n"
	res, err := h.do("POST", "/mcp", hdr, discoverRequest(0))
	switch {
	case err != nil:
	case res.status != 200:
		err = fmt.Errorf("%w (server/discover: HTTP %d: %.200s)", errNotModern, res.status, res.body)
	default:
		err = checkDiscover(res.body)
	}
	if err != nil {
		h.close()
		return nil, err
	}
	return &httpSession{h: h, hdr: baseHeaders + "MCP-Protocol-Version: " + modernVersion + "\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"}, nil
}

// call sends one tools/call and returns the response body.
func (s *httpSession) call(t *callTemplate, id int64) ([]byte, error) {
	s.buf = t.append(s.buf[:0], id)
	res, err := s.h.do("POST", "/mcp", s.hdr, s.buf)
	if err != nil {
		return nil, err
	}
	if res.status != 200 {
		return nil, fmt.Errorf("tools/call: HTTP %d: %.300s", res.status, res.body)
	}
	return res.body, nil
}

// maxExtend bounds how long an HTTP run waits past its window for a
// first completed call (well within the watchdog's 30 seconds).
const maxExtend = 15 * time.Second

// httpLoad runs conc clients, each calling in a loop on its own
// connection (and session), and measures calls per second, latency and
// server CPU per call.
func httpLoad(bin string, extra []string, t *callTemplate, want []byte, conc int, lim limits) (metrics, error) {
	return httpLoadMem(bin, extra, t, want, conc, lim, false)
}

// httpLoadMem is httpLoad; with live, it also reads the server's live
// memory (GET /debug/mem) and resident set at the end of the window,
// while every session is still open.
func httpLoadMem(bin string, extra []string, t *callTemplate, want []byte, conc int, lim limits, live bool) (metrics, error) {
	p, err := startHTTP(bin, extra...)
	if err != nil {
		return nil, err
	}
	defer p.kill()
	defer watchdog(p, lim)()
	sessions := make([]*httpSession, conc)
	for i := range sessions {
		var err error
		if t.modern {
			sessions[i], err = openModern(p.addr)
		} else {
			sessions[i], err = openLegacy(p.addr)
		}
		if err != nil {
			return nil, fmt.Errorf("session %d: %v (stderr: %.300s)", i, err, p.stderr)
		}
		defer sessions[i].h.close()
	}
	start := time.Now()
	warmEnd := start.Add(lim.warm)
	// The window ends at end, or, if no call has completed by then (a
	// server stalled on a loaded machine), at the first completion, at
	// most maxExtend later; endNs is its end as the workers see it.
	end := warmEnd.Add(lim.dur)
	var endNs, completed atomic.Int64
	endNs.Store(end.UnixNano())
	perWorker := max(1, lim.maxCalls/conc)
	lats := make([][]time.Duration, conc)
	errs := make([]error, conc)
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ck := &checker{want: want}
			lat := make([]time.Duration, 0, min(perWorker, 1<<16))
			for id := int64(1); len(lat) < perWorker; id++ {
				t0 := time.Now()
				if t0.UnixNano() > endNs.Load() {
					break
				}
				body, err := s.call(t, id)
				if err == nil {
					err = ck.check(body, id)
				}
				if err != nil {
					errs[i] = err
					return
				}
				// A call counts where it ends: calls/s is the calls
				// completed in the window, whenever they began (dropping
				// those begun before it undercounts a server whose latency
				// is a good part of the window, and a short window on a
				// loaded machine could then count none at all).
				if t1 := time.Now(); t1.After(warmEnd) && t1.UnixNano() < endNs.Load() {
					lat = append(lat, t1.Sub(t0))
					completed.Add(1)
				}
			}
			lats[i] = lat
		}()
	}
	time.Sleep(time.Until(warmEnd))
	cpu0 := p.cpu()
	time.Sleep(time.Until(end))
	if completed.Load() == 0 {
		for limit := end.Add(min(9*lim.dur, maxExtend)); completed.Load() == 0 && time.Now().Before(limit); {
			time.Sleep(10 * time.Millisecond)
		}
		end = time.Now()
		endNs.Store(end.UnixNano())
	}
	window := end.Sub(warmEnd)
	cpu := p.cpu() - cpu0
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	all := slices.Concat(lats...)
	if len(all) == 0 {
		return nil, fmt.Errorf("no call completed in the window")
	}
	m := latencyMetrics(all)
	m["calls/s"] = float64(len(all)) / window.Seconds()
	m["cpu/call µs"] = float64(cpu.Microseconds()) / float64(len(all))
	m["peak RSS MB"] = float64(p.hwm()) / 1e6
	if live {
		m["RSS at end MB"] = float64(p.rss()) / 1e6
		ms, err := readMem(p.addr)
		if err != nil {
			return nil, err
		}
		m["live heap MB"] = float64(ms.HeapAlloc) / 1e6
		m["stacks MB"] = float64(ms.StackInuse) / 1e6
		m["runtime Sys MB"] = float64(ms.Sys) / 1e6
		m["goroutines"] = float64(ms.Goroutines)
	}
	if err := p.stop(); err != nil {
		return nil, err
	}
	return m, nil
}

// memStats is the answer of a server's /debug/mem (see package harness).
type memStats struct {
	HeapAlloc  int64 `json:"heapAlloc"`
	StackInuse int64 `json:"stackInuse"`
	Sys        int64 `json:"sys"`
	Goroutines int   `json:"goroutines"`
}

func readMem(addr string) (memStats, error) {
	var ms memStats
	h, err := dialHTTP(addr)
	if err != nil {
		return ms, err
	}
	defer h.close()
	res, err := h.do("GET", "/debug/mem", "", nil)
	if err != nil {
		return ms, err
	}
	if res.status != 200 {
		return ms, fmt.Errorf("/debug/mem: HTTP %d", res.status)
	}
	return ms, json.Unmarshal(res.body, &ms)
}

// idleSessions opens n legacy sessions (initialize, then
// notifications/initialized) and leaves them idle; it reports the live
// memory they hold per session: the Go heap plus goroutine stacks after
// garbage collection (the primary figure: it is what the library keeps),
// and the growth of the resident set (which also counts the collector's
// headroom and memory not yet returned to the OS).
func idleSessions(bin string, n int, lim limits) (metrics, error) {
	p, err := startHTTP(bin)
	if err != nil {
		return nil, err
	}
	defer p.kill()
	// Warm up: one session and a call, so that what is built once (pools,
	// schemas, the first connection) is not charged to the sessions.
	s, err := openLegacy(p.addr)
	if err != nil {
		return nil, fmt.Errorf("warm-up session: %v", err)
	}
	if _, err := s.call(newCallTemplate(100, false), 1); err != nil {
		return nil, err
	}
	s.h.do("DELETE", "/mcp", s.hdr, nil)
	s.h.close()
	before, err := readMem(p.addr)
	if err != nil {
		return nil, err
	}
	rss0 := p.rss()
	const conns = 8
	deadline := time.Now().Add(lim.idleTimeout)
	errs := make([]error, conns)
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := dialHTTP(p.addr)
			if err != nil {
				errs[w] = err
				return
			}
			defer h.close()
			for i := w; i < n; i += conns {
				if time.Now().After(deadline) {
					errs[w] = fmt.Errorf("opening %d sessions took longer than %v", n, lim.idleTimeout)
					return
				}
				if _, err := initLegacy(h); err != nil {
					errs[w] = fmt.Errorf("session %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	after, err := readMem(p.addr)
	if err != nil {
		return nil, err
	}
	rss1 := p.rss()
	m := metrics{
		"heap+stacks B/session": float64(after.HeapAlloc+after.StackInuse-before.HeapAlloc-before.StackInuse) / float64(n),
		"RSS B/session":         float64(rss1-rss0) / float64(n),
		"goroutines/session":    float64(after.Goroutines-before.Goroutines) / float64(n),
	}
	if err := p.stop(); err != nil {
		return nil, err
	}
	return m, nil
}
