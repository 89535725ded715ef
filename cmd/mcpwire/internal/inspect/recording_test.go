package inspect

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
)

// countingWriter is a ResponseWriter that keeps the start and the end of
// what it is sent, and counts the rest: an answer of tens of megabytes
// costs the test nothing to receive.
type countingWriter struct {
	hdr        http.Header
	status     int
	n          int
	head, tail []byte
}

func newCountingWriter() *countingWriter { return &countingWriter{hdr: http.Header{}} }

func (w *countingWriter) Header() http.Header { return w.hdr }
func (w *countingWriter) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	if len(w.head) < 256 {
		w.head = append(w.head, p[:min(len(p), 256-len(w.head))]...)
	}
	w.tail = append(w.tail, p[max(len(p)-256, 0):]...)
	w.tail = w.tail[max(len(w.tail)-256, 0):]
	return len(p), nil
}

// allocatedBy returns the bytes the process allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// hugeRecord is one line of a recording, of size bytes with its newline:
// a response whose result is one long string.
func hugeRecord(size int) []byte {
	head := `{"time":"2026-01-02T03:04:05Z","from":"server","message":{"jsonrpc":"2.0","id":1,"result":{"s":"`
	tail := `"}}}` + "\n"
	line := make([]byte, 0, size)
	line = append(line, head...)
	line = append(line, bytes.Repeat([]byte{'x'}, size-len(head)-len(tail))...)
	return append(line, tail...)
}

// TestRecordingAnswerIsNotBufferedWhole: the recording endpoints built
// their whole answer in one buffer. POST /api/recording (a recording the
// page loads) read it, copied each record into a buffer, and the buffer
// into the answer: about 340 MB allocated for one frame of 64 MiB, the
// largest a recording may hold. GET /export copied each frame of the
// journal into a buffer before writing it. Both now write the records as
// they go: loading a recording costs one copy of it (its bytes, read
// once), exporting a frame next to nothing.
func TestRecordingAnswerIsNotBufferedWhole(t *testing.T) {
	const addr = "127.0.0.1:1"
	in := New("test", nil)
	t.Cleanup(func() { in.Close() })
	h, err := newHandler(in, addr, "secret")
	if err != nil {
		t.Fatal(err)
	}
	line := hugeRecord(DefaultMaxRecording)
	if len(line)-1 > frames.MaxRecordSize {
		t.Fatalf("the record is %d bytes, more than a recording holds", len(line))
	}

	t.Run("load", func(t *testing.T) {
		w := newCountingWriter()
		req := httptest.NewRequest("POST", "http://"+addr+"/api/recording?token=secret", bytes.NewReader(line))
		req.Header.Set("Origin", "http://"+addr)
		req.Header.Set("Content-Type", "application/x-ndjson")
		n := allocatedBy(func() { h.ServeHTTP(w, req) })
		t.Logf("loading a recording of one frame of %d MiB: %d MiB allocated, an answer of %d bytes", len(line)>>20, n>>20, w.n)
		want := len(`{"records":[`) + len(line) - 1 + len(`]}`)
		if w.status != http.StatusOK || w.n != want || !bytes.HasPrefix(w.head, []byte(`{"records":[{"time":"2026-01-02T03:04:05Z","from":"server","message":{"jsonrpc":"2.0","id":1,`)) || !bytes.HasSuffix(w.tail, []byte(`xxx"}}}]}`)) {
			t.Errorf("the answer: status %d, %d bytes (want %d), %q...%q", w.status, w.n, want, w.head, w.tail)
		}
		if limit := uint64(len(line)) * 5 / 4; n > limit {
			t.Errorf("loading a recording of one frame of %d MiB allocated %d MiB; want at most %d MiB (one copy of it)", len(line)>>20, n>>20, limit>>20)
		}
	})

	t.Run("export", func(t *testing.T) {
		in.hub.add(kindFrame, bytes.TrimSuffix(line, []byte{'\n'}))
		w := newCountingWriter()
		req := httptest.NewRequest("GET", "http://"+addr+"/export?token=secret", nil)
		n := allocatedBy(func() { h.ServeHTTP(w, req) })
		t.Logf("exporting one frame of %d MiB: %d KiB allocated", len(line)>>20, n>>10)
		if w.status != http.StatusOK || w.n != len(line) || !bytes.HasSuffix(w.tail, []byte("xxx\"}}}\n")) {
			t.Errorf("the export: status %d, %d bytes (want %d)", w.status, w.n, len(line))
		}
		if n > 1<<20 {
			t.Errorf("exporting one frame of %d MiB allocated %d KiB; want at most 1 MiB", len(line)>>20, n>>10)
		}
	})
}

// TestRecordingAnswer: the answer to a recording the page loads is its
// records and, after the last good one, the error of the line that is
// not a record.
func TestRecordingAnswer(t *testing.T) {
	const addr = "127.0.0.1:1"
	in := New("test", nil)
	t.Cleanup(func() { in.Close() })
	h, err := newHandler(in, addr, "secret")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		body    string
		records int
		err     string
	}{
		{"", 0, ""},
		{`{"time":"2026-01-02T03:04:05Z","from":"client","message":{"jsonrpc":"2.0","method":"ping","id":1}}` + "\n" +
			`{"time":"2026-01-02T03:04:06Z","from":"server","raw":"not \"json\"","transport":"stdio"}`, 2, ""},
		{`{"time":"2026-01-02T03:04:05Z","from":"client","message":{"jsonrpc":"2.0","method":"ping","id":1}}` + "\nnope\n", 1, "line 2"},
		{"nope", 0, "line 1"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "http://"+addr+"/api/recording?token=secret", strings.NewReader(tc.body))
		req.Header.Set("Origin", "http://"+addr)
		req.Header.Set("Content-Type", "application/x-ndjson")
		h.ServeHTTP(rec, req)
		var out struct {
			Records []frames.Record `json:"records"`
			Error   *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		dec := json.NewDecoder(rec.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out); err != nil || rec.Code != http.StatusOK {
			t.Errorf("%q: %d %v", tc.body, rec.Code, err)
			continue
		}
		if len(out.Records) != tc.records || (tc.err == "") != (out.Error == nil) || out.Error != nil && !strings.Contains(out.Error.Message, tc.err) {
			t.Errorf("%q: %d records, error %+v; want %d, %q", tc.body, len(out.Records), out.Error, tc.records, tc.err)
		}
	}
}
