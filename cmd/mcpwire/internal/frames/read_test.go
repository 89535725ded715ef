package frames

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// onlyReader hides every method of a reader but Read, as an HTTP body
// does: Read cannot learn the size of what it reads.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// recordingOf returns a recording of n records, each of about size bytes.
func recordingOf(n, size int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"time":"2026-12-01T20:55:01.123456789Z","from":"client","message":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}},"transport":"stdio","method":"tools/call","latency_ms":1.5}`+"\n",
			i, strings.Repeat("x", max(size-190, 1)))
	}
	return b.Bytes()
}

// TestReadCostsOneCopy: reading a recording allocated about 6 times a
// long line (each line grown by append, then copied again by a
// json.Decoder, then by the message's json.RawMessage) and about 20
// times many small records (a json.Decoder and its buffer per line): the
// inspector's POST of a 64 MiB recording allocated 380 MB for one line and
// 1.5 GB for 64 MiB of records. Now the records keep the bytes they were
// read into: one copy of the input, and the records themselves.
func TestReadCostsOneCopy(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocates some 100 MB, and counts allocations, which the race detector makes its own")
	}
	const size = 16 << 20
	long := []byte(`{"time":"2026-12-01T20:55:01Z","from":"server","message":{"jsonrpc":"2.0","id":1,"result":{"text":"` +
		strings.Repeat("y", size) + `"}}}` + "\n")
	many := recordingOf(size/300, 300)
	recordSize := uint64(reflect.TypeFor[Record]().Size())
	for _, c := range []struct {
		name   string
		in     []byte
		sized  bool // Read can tell the size (a file, a bytes.Reader)
		copies uint64
	}{
		{"one long line, size known", long, true, 1},
		// The line crosses chunks: the chunks, and its copy.
		{"one long line, size unknown", long, false, 2},
		{"many records, size known", many, true, 1},
		{"many records, size unknown", many, false, 1},
	} {
		var recs []Record
		var err error
		got := allocated(func() {
			var r io.Reader = bytes.NewReader(c.in)
			if !c.sized {
				r = onlyReader{r}
			}
			recs, err = Read(r)
		})
		if err != nil || len(recs) == 0 || !bytes.Equal(recs[len(recs)-1].AppendJSON(nil), bytes.TrimSuffix(c.in[bytes.LastIndexByte(c.in[:len(c.in)-1], '\n')+1:], []byte("\n"))) {
			t.Fatalf("%s: %d records, %v, or the last one changed", c.name, len(recs), err)
		}
		// The copies of the input, the records, and the slack: at most a
		// chunk not filled, and 1 MiB.
		limit := c.copies*uint64(len(c.in)) + uint64(len(recs))*recordSize + maxChunk + 1<<20
		t.Logf("%s: %d records of %d bytes: %.1f MB allocated, %.2f times the input (limit %.1f MB)", c.name, len(recs), len(c.in), float64(got)/1e6, float64(got)/float64(len(c.in)), float64(limit)/1e6)
		if got > limit {
			t.Errorf("%s: reading %d bytes allocated %d (%.2f times), want at most %d", c.name, len(c.in), got, float64(got)/float64(len(c.in)), limit)
		}
	}
}

// TestReadKeepsErrorsAndRecordsBefore checks what Read returns with its
// errors: the records before the line that failed, and the cause.
func TestReadKeepsErrorsAndRecordsBefore(t *testing.T) {
	good := `{"time":"2026-12-01T20:55:01Z","from":"client","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}`
	for _, c := range []struct {
		name, in string
		r        func(io.Reader) io.Reader
		n        int    // records before the error
		err      string // "" for none
	}{
		{"blank lines and CRLF", "\n" + good + "\r\n\r\n  \n" + good, nil, 2, ""},
		{"no newline at the end", good, nil, 1, ""},
		{"one byte at a time", good + "\n" + good + "\n", iotest.OneByteReader, 2, ""},
		{"data after the record", good + "\n" + good + " {}\n", nil, 1, `line 2: not a frame record: invalid JSON`},
		{"not an object", good + "\n[1]\n", nil, 1, `line 2: not a frame record: not a JSON object`},
		{"unknown member", good + "\n" + strings.Replace(good, `"from"`, `"extra":1,"from"`, 1), nil, 1, `line 2: not a frame record: unknown member "extra"`},
		{"member in another case", strings.Replace(good, `"from"`, `"From"`, 1), nil, 0, `line 1: not a frame record: unknown member "From"`},
		{"escaped member name", strings.Replace(good, `"from"`, `"fr\u006fm"`, 1), nil, 1, ""},
		{"wrong type", strings.Replace(good, `"from":"client"`, `"from":1`, 1), nil, 0, `line 1: not a frame record: "from": not a string`},
		{"status not an integer", strings.Replace(good, `"from"`, `"status":1.5,"from"`, 1), nil, 0, `line 1: not a frame record: "status"`},
		{"read error", good + "\n" + good[:20], func(r io.Reader) io.Reader { return iotest.TimeoutReader(r) }, 1, "line 2: timeout"},
	} {
		var r io.Reader = strings.NewReader(c.in)
		if c.r != nil {
			r = c.r(r)
		}
		recs, err := Read(r)
		if len(recs) != c.n || (err == nil) != (c.err == "") || err != nil && !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%s: %d records, %v; want %d, %q", c.name, len(recs), err, c.n, c.err)
		}
	}
	// A line over MaxRecordSize.
	recs, err := Read(onlyReader{io.MultiReader(strings.NewReader(good+"\n"), strings.NewReader(strings.Repeat(" ", MaxRecordSize+1)))})
	if len(recs) != 1 || err == nil || err.Error() != fmt.Sprintf("line 2: the line exceeds %d bytes", MaxRecordSize) {
		t.Errorf("a long line: %d records, %v", len(recs), err)
	}
	// The reader's error is kept (the inspector tells a body too large by it).
	cause := errors.New("too large")
	_, err = Read(io.MultiReader(strings.NewReader(good+"\n"), iotest.ErrReader(cause)))
	if !errors.Is(err, cause) || !strings.HasPrefix(err.Error(), "line 2: ") {
		t.Errorf("a failing reader: %v", err)
	}
}

// decodeLikeEncodingJSON is how Read decoded a line before: with a
// json.Decoder that refuses unknown fields.
func decodeLikeEncodingJSON(line []byte) (Record, error) {
	var rec Record
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, err
	}
	if rec.From != FromClient && rec.From != FromServer {
		return rec, errors.New("from")
	}
	if rec.Raw == nil && len(rec.Message) == 0 {
		return rec, errors.New("neither")
	}
	return rec, nil
}

// FuzzReadMatchesEncodingJSON checks that a line Read takes is one that
// encoding/json takes too, decoded alike. (Read is stricter: it refuses
// data after the object, a member given twice, and names that match only
// without case.)
func FuzzReadMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"time":"2026-12-01T20:55:01.123456789Z","from":"client","message":{"jsonrpc":"2.0", "id":1,"method":"ping"},"transport":"stdio","method":"ping"}`,
		`{"time":"2026-12-01T20:55:01Z","from":"server","raw":"hello \ufffd\"world\"","error":"Parse error","status":404,"latency_ms":1.5,"session":"abc"}`,
		`{"from":"client","message":null}`, `{"fr\u006fm":"client","message":1}`, `{"from":"client","raw":null,"message":"x"}`,
		`{"from":"client","message":[1,{"a":"}"}],"status":-0}`, ` { "from" : "server" , "message" : true } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		recs, err := Read(bytes.NewReader(line))
		if err != nil || len(recs) == 0 {
			return
		}
		want, err := decodeLikeEncodingJSON(line)
		if err != nil {
			t.Fatalf("Read took %s, which encoding/json refuses: %v", line, err)
		}
		got := recs[0]
		if !got.Time.Equal(want.Time) || got.From != want.From || !bytes.Equal(got.Message, want.Message) ||
			(got.Raw == nil) != (want.Raw == nil) || got.Raw != nil && *got.Raw != *want.Raw ||
			got.Transport != want.Transport || got.Session != want.Session || got.Status != want.Status ||
			got.Method != want.Method || got.LatencyMS != want.LatencyMS || got.Error != want.Error {
			t.Fatalf("Read(%s) = %+v, encoding/json: %+v", line, got, want)
		}
	})
}

// FuzzReadAcrossChunks checks that lines across chunks read as lines
// within one: the input read in chunks of a few bytes gives what it gives
// read whole.
func FuzzReadAcrossChunks(f *testing.F) {
	good := `{"time":"2026-12-01T20:55:01Z","from":"client","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}`
	f.Add([]byte(good+"\n\n"+good+"\r\n"+good), uint8(1), uint8(3))
	f.Add([]byte(good+"\n"+good+" x\n"+good), uint8(7), uint8(7))
	f.Add([]byte("\n\n\n"+good), uint8(2), uint8(200))
	f.Fuzz(func(t *testing.T, data []byte, first, most uint8) {
		read := func(first, most int) ([]Record, error) {
			in := &input{r: onlyReader{bytes.NewReader(data)}, first: first, max: most}
			in.read(-1)
			out := make([]Record, 0, in.lines)
			d := &decoder{shared: map[string]string{}}
			for {
				line, ok := in.next()
				if !ok {
					return out, nil
				}
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				out = append(out, Record{})
				if err := d.decode(line, &out[len(out)-1]); err != nil {
					return out[:len(out)-1], err
				}
				if err := check(&out[len(out)-1]); err != nil {
					return out[:len(out)-1], err
				}
				if len(out) > in.lines {
					t.Fatalf("%d records, more than the %d lines counted", len(out), in.lines)
				}
			}
		}
		whole, werr := read(len(data)+1, len(data)+1)
		cut, cerr := read(int(first)%16+1, int(most)%64+1)
		if (werr == nil) != (cerr == nil) || len(whole) != len(cut) {
			t.Fatalf("read whole: %d records, %v; in chunks: %d records, %v", len(whole), werr, len(cut), cerr)
		}
		for i := range whole {
			if !bytes.Equal(whole[i].AppendJSON(nil), cut[i].AppendJSON(nil)) {
				t.Fatalf("record %d: %s, in chunks %s", i, whole[i].AppendJSON(nil), cut[i].AppendJSON(nil))
			}
		}
	})
}
