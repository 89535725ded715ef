package wire

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// pieces is an upstream answer whose body arrives in the given pieces,
// one per Read.
type pieces []string

func (p *pieces) Read(b []byte) (int, error) {
	for len(*p) > 0 && (*p)[0] == "" {
		*p = (*p)[1:]
	}
	if len(*p) == 0 {
		return 0, io.EOF
	}
	n := copy(b, (*p)[0])
	(*p)[0] = (*p)[0][n:]
	return n, nil
}

func (p *pieces) Close() error { return nil }

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// recordSSE passes an SSE answer that arrives in the given pieces through
// a tap and returns what the tap passed on and the server frames it
// recorded (each as its body, and its error when it has one).
func recordSSE(t testing.TB, in []string, maxFrame int) (string, []string) {
	var rec records
	up, _ := url.Parse("http://upstream.invalid")
	tap := &HTTPTap{Upstream: up, Record: rec.add, MaxFrame: maxFrame, Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body := pieces(slices.Clone(in))
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: &body, Request: r}, nil
	})}
	w := httptest.NewRecorder()
	tap.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/mcp", nil))
	var frames []string
	for _, r := range rec.get() {
		f := string(r.Body())
		if r.Error != "" {
			f += " (" + r.Error + ")"
		}
		frames = append(frames, f)
	}
	return w.Body.String(), frames
}

// bytewise cuts s into pieces of one byte.
func bytewise(s string) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i : i+1]
	}
	return out
}

// TestHTTPTapRecordsSSEEventsSplitAcrossReads: an SSE stream recorded
// frame for frame the same whether it arrives whole, a byte at a time, or
// with each CR and its LF in two reads. The tap took the LF after a CR
// that ended a read for a blank line: it ended the event there, recorded
// an event of two data lines as two frames, and lost the name of an event
// whose "event:" line ended that way (the legacy transport's endpoint
// event was then recorded as a frame).
func TestHTTPTapRecordsSSEEventsSplitAcrossReads(t *testing.T) {
	stream := "event: endpoint\r\ndata: /messages?sessionId=1\r\n\r\n" +
		": a comment\r\n\r\n" +
		"id: 7\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n" +
		"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\r\n\r\n" +
		"data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":3,\"result\":{}}\r\n\r\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\r\rdata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n"
	want := []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`, `{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","id":4,"result":{}}`, `{"jsonrpc":"2.0","id":5,"result":{}}`}
	crlf := strings.SplitAfter(stream, "\r") // each CR ends a read, its LF starts the next
	for name, in := range map[string][]string{"whole": {stream}, "a byte at a time": bytewise(stream), "CR and LF in two reads": crlf} {
		passed, got := recordSSE(t, in, 0)
		if passed != stream {
			t.Errorf("%s: the tap passed on %q, want the stream unchanged", name, passed)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: recorded\n%q\nwant\n%q", name, got, want)
		}
	}
}

// FuzzHTTPTapSSEDelivery: the frames recorded of an SSE stream do not
// depend on how its bytes are cut into reads, even when the frames are
// over MaxFrame.
func FuzzHTTPTapSSEDelivery(f *testing.F) {
	f.Add("data: {\"a\":1}\r\n\r\nevent: x\r\ndata: y\r\n\r\n", []byte{3, 17, 1})
	f.Add("event: endpoint\rdata: z\r\rdata: 1\ndata: 2\n\n", []byte{1, 1, 1, 1, 1})
	f.Add("data: "+strings.Repeat("x", 40)+"\r\n\r\ndata:"+strings.Repeat("y", 10)+"\r\n\r\n", []byte{8, 2, 30, 1})
	f.Fuzz(func(t *testing.T, stream string, cuts []byte) {
		if len(stream) > 4<<10 {
			return
		}
		var in []string
		rest := stream
		for _, c := range cuts {
			n := min(int(c), len(rest))
			in = append(in, rest[:n])
			rest = rest[n:]
		}
		in = append(in, rest)
		_, whole := recordSSE(t, []string{stream}, 32)
		passed, split := recordSSE(t, in, 32)
		if passed != stream {
			t.Fatalf("the tap passed on %q, want %q", passed, stream)
		}
		if !slices.Equal(whole, split) {
			t.Fatalf("cut in %q, recorded\n%q\nwhole\n%q", in, split, whole)
		}
	})
}
