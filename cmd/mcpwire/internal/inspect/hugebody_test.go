package inspect

import (
	"net/http"
	"sort"
	"testing"

	"github.com/mcpwire/mcpwire/internal/bodytest"
)

// TestHugeBodyRefusedEarly (the class of the Python and Java SDKs' CVEs
// for request bodies without a size limit): a request of 200 MiB, made as
// it is sent, declared or chunked, to every endpoint of the page is
// refused (413, or answered without reading its body for the GET
// endpoints) once the inspector has read at most its limit: MaxBody for
// the operations, MaxRecording for a recording. The limits are the
// defaults for one operation and for a recording of one long line;
// reading 16 MiB for every operation, or decoding 64 MiB of records,
// would take a minute, so the other cases run with smaller limits.
func TestHugeBodyRefusedEarly(t *testing.T) {
	const smallBody, smallRecording = 1 << 20, 4 << 20
	serve := func(o *Options) *bodytest.Server {
		in := New("test", o)
		t.Cleanup(func() { in.Close() })
		s := bodytest.NewUnstartedServer(t)
		h, err := newHandler(in, s.Addr, "secret")
		if err != nil {
			t.Fatal(err)
		}
		s.Start(h)
		return s
	}
	defaults, small := serve(nil), serve(&Options{MaxBody: smallBody, MaxRecording: smallRecording})
	jsonBody := bodytest.Body{Prefix: `{"id":"x","name":"probe","arguments":{"s":"`}
	records := bodytest.Body{Fill: `{"time":"2026-01-02T03:04:05Z","from":"client","message":{"jsonrpc":"2.0","method":"ping","id":1}}` + "\n"}
	type endpoint struct {
		s            *bodytest.Server
		method, path string
		body         bodytest.Body
		contentType  string
		limit        int64
		status       int
		alloc        uint64 // the most the process may allocate meanwhile
		declared     bool   // only with a declared length (a chunked one costs the same, and seconds)
		slow         bool   // skipped under the race detector, which makes it last minutes
	}
	// The operations decode a body of at most MaxBody; a recording is
	// read line by line (growing each line by append) and decoded record
	// by record, which costs several times its size.
	opAlloc, smallAlloc := uint64(4*DefaultMaxBody+32<<20), uint64(4*smallBody+32<<20)
	endpoints := []endpoint{
		{defaults, "POST", "/api/call", jsonBody, "application/json", DefaultMaxBody, http.StatusRequestEntityTooLarge, opAlloc, false, false},
		{small, "POST", "/api/answer", jsonBody, "application/json", smallBody, http.StatusRequestEntityTooLarge, smallAlloc, false, false},
		{small, "POST", "/api/cancel", jsonBody, "application/json", smallBody, http.StatusRequestEntityTooLarge, smallAlloc, false, false},
		{defaults, "POST", "/api/recording", bodytest.Body{}, "application/x-ndjson", DefaultMaxRecording, http.StatusRequestEntityTooLarge, 8 * DefaultMaxRecording, true, true},
		{small, "POST", "/api/recording", records, "application/x-ndjson", smallRecording, http.StatusRequestEntityTooLarge, 32 * smallRecording, false, false},
		{defaults, "GET", "/", jsonBody, "", 0, http.StatusOK, 16 << 20, false, false},
		{defaults, "GET", "/export", jsonBody, "", 0, http.StatusOK, 16 << 20, false, false},
	}
	var names []string
	for name := range operations {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		endpoints = append(endpoints, endpoint{small, "POST", "/api/" + name, jsonBody, "application/json", smallBody, http.StatusRequestEntityTooLarge, smallAlloc, false, false})
	}
	for _, e := range endpoints {
		if e.slow && raceEnabled {
			continue
		}
		for _, chunked := range []bool{false, true} {
			if chunked && e.declared {
				continue
			}
			hdr := http.Header{"Origin": {e.s.URL}}
			if e.contentType != "" {
				hdr["Content-Type"] = []string{e.contentType}
			}
			res := e.s.Post(t, e.method, e.path+"?token=secret", hdr, e.body, chunked)
			if res.Status != e.status || res.Read > e.limit+bodytest.Slack || res.Allocated > e.alloc {
				t.Errorf("%s %s, chunked %v: %v\nwant %d with at most %d bytes read, %d allocated", e.method, e.path, chunked, res, e.status, e.limit+bodytest.Slack, e.alloc)
			} else {
				t.Logf("%s %s, chunked %v: status %d, %d bytes read, %d allocated", e.method, e.path, chunked, res.Status, res.Read, res.Allocated)
			}
		}
	}
}
