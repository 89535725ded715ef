package frames

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 12, 1, 20, 55, 1, 123456789, time.UTC)

// TestRecordRoundTrip writes frames of every kind and reads them back:
// messages byte for byte, frames that are not JSON as raw strings.
func TestRecordRoundTrip(t *testing.T) {
	frames := []*transport.Frame{
		{Time: t0, Direction: transport.Sent, Transport: "stdio", Raw: []byte(`{"jsonrpc":"2.0", "id":1,"method":"ping"}`),
			Message: &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}, Method: "ping"},
		{Time: t0.Add(time.Millisecond), Direction: transport.Received, Transport: "stdio", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`),
			Message: &jsonrpc.Response{ID: jsonrpc.Int64ID(1)}, Method: "ping", Latency: 1500 * time.Microsecond},
		{Time: t0, Direction: transport.Received, Transport: "streamable", Session: "abc", HTTPStatus: 404,
			Raw: []byte("{\n  \"jsonrpc\": \"2.0\",\n  \"error\": {\"code\": -32001, \"message\": \"Session not found\"}\n}")},
		{Time: t0, Direction: transport.Received, Raw: []byte("hello \xff\"world\""),
			Err: &jsonrpc.DecodeError{Err: jsonrpc.NewError(jsonrpc.CodeParseError, "Parse error: invalid literal")}},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, f := range frames {
		r := FromFrame(f, AtClient)
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	if want := `{"time":"2026-12-01T20:55:01.123456789Z","from":"client","message":{"jsonrpc":"2.0", "id":1,"method":"ping"},"transport":"stdio","method":"ping"}`; lines[0] != want {
		t.Errorf("line 1:\n got %s\nwant %s", lines[0], want)
	}
	recs, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(recs[0].Message); got != `{"jsonrpc":"2.0", "id":1,"method":"ping"}` {
		t.Errorf("message not kept byte for byte: %s", got)
	}
	if recs[1].From != FromServer || recs[1].LatencyMS != 1.5 || recs[1].Method != "ping" {
		t.Errorf("record 2: %+v", recs[1])
	}
	if got := string(recs[2].Message); got != `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}` || recs[2].Status != 404 || recs[2].Session != "abc" {
		t.Errorf("record 3: %s %+v", got, recs[2])
	}
	if recs[3].Raw == nil || *recs[3].Raw != "hello \ufffd\"world\"" || recs[3].Error != "Parse error: invalid literal" {
		t.Errorf("record 4: %+v", recs[3])
	}
	if _, err := recs[0].Decode(); err != nil {
		t.Errorf("Decode: %v", err)
	}
}

// TestWriteJSONAsAppendJSON: WriteJSON writes what AppendJSON makes, for
// records with a message, a raw frame, and neither.
func TestWriteJSONAsAppendJSON(t *testing.T) {
	raw := "not \"json\" \xff"
	for _, r := range []Record{
		{Time: t0, From: FromClient, Message: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), Transport: "stdio", Session: "s", Status: 200, Method: "ping", LatencyMS: 1.5, Error: "e"},
		{Time: t0, From: FromServer, Raw: &raw, Error: "not JSON"},
		{Time: t0, From: FromServer},
	} {
		var out bytes.Buffer
		buf, err := r.WriteJSON(&out, make([]byte, 3))
		if err != nil || out.String() != string(r.AppendJSON(nil)) || len(buf) == 0 {
			t.Errorf("WriteJSON wrote %s (%v); AppendJSON makes %s", out.String(), err, r.AppendJSON(nil))
		}
	}
}

// TestRecordsReadByJQ checks that jq reads a recording, when jq is here.
func TestRecordsReadByJQ(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq is not installed")
	}
	r := FromFrame(&transport.Frame{Time: t0, Direction: transport.Sent, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, AtClient)
	cmd := exec.Command(jq, "-r", ".message.method")
	cmd.Stdin = bytes.NewReader(append(r.AppendJSON(nil), '\n'))
	out, err := cmd.Output()
	if err != nil || string(out) != "ping\n" {
		t.Errorf("jq: %q, %v", out, err)
	}
}

func TestReadRefusesWhatIsNotARecording(t *testing.T) {
	for _, in := range []string{
		`{"time":"2026-12-01T20:55:01Z","from":"nobody","message":{}}`,
		`{"time":"2026-12-01T20:55:01Z","from":"client"}`,
		`{"time":"2026-12-01T20:55:01Z","from":"client","message":{},"extra":1}`,
		`not json`,
	} {
		_, err := Read(strings.NewReader("\n" + in + "\n"))
		if err == nil || !strings.HasPrefix(err.Error(), "line 2: ") {
			t.Errorf("%s: %v, want an error naming line 2", in, err)
		}
	}
}

func TestPrinter(t *testing.T) {
	var buf bytes.Buffer
	p := &Printer{W: &buf, Clip: 40}
	for _, f := range []*transport.Frame{
		{Time: t0, Direction: transport.Sent, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)},
		{Time: t0, Direction: transport.Received, Raw: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`), Method: "tools/call", Latency: 12345 * time.Microsecond},
		{Time: t0, Direction: transport.Received, Raw: []byte(`oops`), Err: &jsonrpc.DecodeError{Err: jsonrpc.NewError(jsonrpc.CodeParseError, "Parse error")}},
	} {
		r := FromFrame(f, AtClient)
		p.Print(&r)
	}
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	clock := t0.Local().Format("15:04:05.000")
	want := []string{
		clock + ` → tools/call #1 {"jsonrpc":"2.0","id":1,"method":"tools/… (31 more bytes)`,
		clock + ` ← tools/call #1 12.3ms error -32601 {"jsonrpc":"2.0","id":1,"error":{"code":… (25 more bytes)`,
		clock + ` ← ✗ Parse error "oops"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	buf.Reset()
	p.Color = true
	r := FromFrame(&transport.Frame{Time: t0, Direction: transport.Sent, Raw: []byte(`{}`)}, AtClient)
	p.Print(&r)
	if !strings.Contains(buf.String(), "\x1b[36m→\x1b[0m") {
		t.Errorf("no color: %q", buf.String())
	}
}

func TestObserve(t *testing.T) {
	var got []Record
	obs := Observe(AtServer, func(r *Record) { got = append(got, *r) })
	tr := transport.NewFrameTracker(obs, "stdio", "")
	tr.Observe(transport.Received, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}, nil, 0)
	tr.Observe(transport.Sent, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), &jsonrpc.Response{ID: jsonrpc.Int64ID(1)}, nil, 0)
	if len(got) != 2 || got[0].From != FromClient || got[1].From != FromServer || got[1].Method != "ping" {
		t.Errorf("records: %+v", got)
	}
	var m map[string]any
	if err := json.Unmarshal(got[1].Message, &m); err != nil || m["id"] != float64(1) {
		t.Errorf("message: %s", got[1].Message)
	}
}
