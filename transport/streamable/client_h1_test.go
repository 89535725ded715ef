package streamable_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// The transport's own HTTP client sends calls on plain http:// with an
// HTTP/1.1 client of its own (client_h1.go); these tests hold it to what
// net/http's Transport did. Most of them answer from a bare TCP server,
// to control the bytes of the answer.

// h1Server is a TCP server whose connections answer is given; accepts
// counts them.
type h1Server struct {
	url     string
	accepts atomic.Int32
}

func newH1Server(t *testing.T, answer func(conn net.Conn, br *bufio.Reader)) *h1Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &h1Server{url: "http://" + ln.Addr().String() + "/mcp"}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepts.Add(1)
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Go(func() {
				defer conn.Close()
				answer(conn, bufio.NewReader(conn))
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return s
}

// h1Read reads a request and returns it with its body, and the JSON-RPC
// id of the body.
func h1Read(br *bufio.Reader) (*http.Request, []byte, string, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, nil, "", err
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, nil, "", err
	}
	msg, err := jsonrpc.Decode(body, nil)
	if err != nil {
		return nil, nil, "", err
	}
	id := ""
	if r, ok := msg.(*jsonrpc.Request); ok {
		id = string(r.ID.AppendJSON(nil))
	}
	return req, body, id, nil
}

// h1Result is the JSON-RPC response the servers answer id with.
func h1Result(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[],"resultType":"complete"}}`
}

// h1JSON writes a JSON answer of Content-Length framing.
func h1JSON(w io.Writer, body string, extra string) {
	fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", extra, len(body), body)
}

// h1Call writes a modern tools/call with id n on conn and returns the
// response read.
func h1Call(t *testing.T, conn transport.Conn, n int64) *jsonrpc.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msg, err := jsonrpc.NewCall(jsonrpc.Int64ID(n), "tools/call", json.RawMessage(`{"name":"echo","arguments":{},`+validMeta+`}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(ctx, msg); err != nil {
		t.Fatalf("call %d: Write: %v", n, err)
	}
	got, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("call %d: Read: %v", n, err)
	}
	resp, ok := got.(*jsonrpc.Response)
	if !ok {
		t.Fatalf("call %d: read %T, want a response", n, got)
	}
	if id, _ := resp.ID.Int64(); id != n {
		t.Fatalf("call %d: the response has id %v", n, resp.ID)
	}
	return resp
}

func h1Connect(t *testing.T, url string, opts *streamable.ClientOptions) transport.Conn {
	t.Helper()
	conn, err := streamable.NewTransport(url, opts).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestH1KeepsConnection: calls one after the other share one connection.
func TestH1KeepsConnection(t *testing.T) {
	s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
		for {
			_, _, id, err := h1Read(br)
			if err != nil {
				return
			}
			h1JSON(conn, h1Result(id), "")
		}
	})
	conn := h1Connect(t, s.url, nil)
	for n := range int64(5) {
		if r := h1Call(t, conn, n+1); r.Error != nil {
			t.Fatal(r.Error)
		}
	}
	if n := s.accepts.Load(); n != 1 {
		t.Errorf("%d connections for 5 calls, want 1", n)
	}
}

// TestH1IdleClosedByServer: a server that closes each connection after
// its answer (as one does after an idle timeout) costs a new connection
// per call, and no call fails: the closed idle connection is seen before
// it is used.
func TestH1IdleClosedByServer(t *testing.T) {
	closed := make(chan struct{}, 8)
	s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
		defer func() { closed <- struct{}{} }()
		_, _, id, err := h1Read(br)
		if err != nil {
			return
		}
		h1JSON(conn, h1Result(id), "")
		conn.Close()
	})
	conn := h1Connect(t, s.url, nil)
	for n := range int64(5) {
		if r := h1Call(t, conn, n+1); r.Error != nil {
			t.Fatalf("call %d: %v", n+1, r.Error)
		}
		<-closed // the next call finds the connection closed
	}
	if n := s.accepts.Load(); n != 5 {
		t.Errorf("%d connections for 5 calls, want 5", n)
	}
}

// TestH1ConnectionClose: an answer with Connection: close, or of HTTP/1.0
// without keep-alive, is the last on its connection.
func TestH1ConnectionClose(t *testing.T) {
	for _, head := range []string{"HTTP/1.1 200 OK\r\nConnection: close\r\n", "HTTP/1.0 200 OK\r\n"} {
		s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
			for {
				_, _, id, err := h1Read(br)
				if err != nil {
					return
				}
				body := h1Result(id)
				fmt.Fprintf(conn, "%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", head, len(body), body)
			}
		})
		conn := h1Connect(t, s.url, nil)
		for n := range int64(3) {
			if r := h1Call(t, conn, n+1); r.Error != nil {
				t.Fatal(r.Error)
			}
		}
		if n := s.accepts.Load(); n != 3 {
			t.Errorf("%q: %d connections for 3 calls, want 3", head, n)
		}
	}
}

// TestH1Framing: chunked bodies (with extensions and trailers, cut
// anywhere), bodies that end with the connection, gzip, and 1xx answers
// before the final one.
func TestH1Framing(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	for _, tc := range []struct {
		name   string
		answer func(id string) string
		keep   bool // the connection serves the next call
	}{
		{"chunked-sse", func(id string) string {
			ev := "id: 1\ndata: \n\nevent: message\ndata: " + h1Result(id) + "\n\n"
			return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
				fmt.Sprintf("5;ext=1\r\n%s\r\n%x\r\n%s\r\n0\r\nX-Trailer: t\r\n\r\n", ev[:5], len(ev)-5, ev[5:])
		}, true},
		{"chunked-json", func(id string) string {
			b := h1Result(id)
			return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(b), b)
		}, true},
		{"until-close", func(id string) string {
			return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + h1Result(id)
		}, false},
		{"gzip", func(id string) string {
			b := gz(h1Result(id))
			return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", len(b), b)
		}, true},
		{"1xx", func(id string) string {
			b := h1Result(id)
			return fmt.Sprintf("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s", len(b), b)
		}, true},
		{"folded-header", func(id string) string {
			b := h1Result(id)
			return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Long: a\r\n b\r\nContent-Length: %d\r\n\r\n%s", len(b), b)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sawGzip atomic.Bool
			s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
				for {
					req, _, id, err := h1Read(br)
					if err != nil {
						return
					}
					sawGzip.Store(req.Header.Get("Accept-Encoding") == "gzip")
					a := tc.answer(id)
					for len(a) > 0 { // in small pieces
						n := min(len(a), 7)
						conn.Write([]byte(a[:n]))
						a = a[n:]
					}
					if !tc.keep {
						return
					}
				}
			})
			conn := h1Connect(t, s.url, nil)
			for n := range int64(3) {
				if r := h1Call(t, conn, n+1); r.Error != nil {
					t.Fatal(r.Error)
				}
			}
			want := int32(1)
			if !tc.keep {
				want = 3
			}
			if n := s.accepts.Load(); n != want {
				t.Errorf("%d connections for 3 calls, want %d", n, want)
			}
			if !sawGzip.Load() {
				t.Error("the request had no Accept-Encoding: gzip")
			}
		})
	}
}

// TestH1MalformedAnswer: answers net/http refuses fail the call with the
// reason, and the connection is not used again.
func TestH1MalformedAnswer(t *testing.T) {
	for _, tc := range []struct{ answer, want string }{
		{"HTTP/1.1 2x0 OK\r\n\r\n", "malformed HTTP status code"},
		{"HTTP/9 200 OK\r\n\r\n", "malformed HTTP version"},
		{"HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n", "malformed MIME header line"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "unsupported transfer encoding"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "multiple Content-Length"},
		{"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length"},
	} {
		s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
			if _, _, _, err := h1Read(br); err != nil {
				return
			}
			io.WriteString(conn, tc.answer)
		})
		conn := h1Connect(t, s.url, nil)
		r := h1Call(t, conn, 1)
		if r.Error == nil || !strings.Contains(r.Error.Message, tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.answer, r.Error, tc.want)
		}
	}
}

// TestH1InvalidHeader: a header value net/http would refuse to send is
// refused by Write, in net/http's words.
func TestH1InvalidHeader(t *testing.T) {
	s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {})
	conn := h1Connect(t, s.url, &streamable.ClientOptions{Header: http.Header{"X-Bad": {"a\r\nInjected: 1"}}})
	msg, _ := jsonrpc.NewCall(jsonrpc.Int64ID(1), "tools/call", json.RawMessage(`{"name":"echo","arguments":{},`+validMeta+`}`))
	err := conn.Write(context.Background(), msg)
	if err == nil || !strings.Contains(err.Error(), `net/http: invalid header field value for "X-Bad"`) {
		t.Fatalf("Write: %v, want net/http's invalid header error", err)
	}
}

// TestH1RequestLikeNetHTTP: the request of a call carries what net/http
// sent for it: method, target, protocol, Host, the same headers and body.
func TestH1RequestLikeNetHTTP(t *testing.T) {
	type seen struct {
		method, uri, proto, host string
		header                   http.Header
		length                   int64
		body                     string
	}
	got := make(chan seen, 2)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.RequestURI, r.Proto, r.Host, r.Header.Clone(), r.ContentLength, string(body)}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, strings.Replace(h1Result("1"), `"id":1`, `"id":1`, 1))
	}))
	defer ts.Close()
	hdr := http.Header{"Authorization": {"Bearer t"}, "X-Multi": {"a", "b"}, "User-Agent": {"custom/1"}}
	h1Call(t, h1Connect(t, ts.URL+"/mcp?x=1", &streamable.ClientOptions{Header: hdr}), 1)
	h1Call(t, h1Connect(t, ts.URL+"/mcp?x=1", &streamable.ClientOptions{Header: hdr, HTTPClient: &http.Client{}}), 1)
	mine, theirs := <-got, <-got
	if fmt.Sprint(mine.method, mine.uri, mine.proto, mine.host, mine.length, mine.body) != fmt.Sprint(theirs.method, theirs.uri, theirs.proto, theirs.host, theirs.length, theirs.body) {
		t.Errorf("request %+v, net/http sent %+v", mine, theirs)
	}
	keys := func(h http.Header) []string {
		return slices.Sorted(func(yield func(string) bool) {
			for k := range h {
				if !yield(k) {
					return
				}
			}
		})
	}
	if a, b := keys(mine.header), keys(theirs.header); !slices.Equal(a, b) {
		t.Errorf("headers %v, net/http sent %v", a, b)
	}
	for k, v := range theirs.header {
		if !slices.Equal(mine.header[k], v) {
			t.Errorf("%s: %q, net/http sent %q", k, mine.header[k], v)
		}
	}
}

// TestH1CancelWhileAnswering: a call abandoned while its answer has not
// come ends its request at once, and the connection is not reused.
func TestH1CancelWhileAnswering(t *testing.T) {
	release := make(chan struct{})
	s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
		for {
			_, _, id, err := h1Read(br)
			if err != nil {
				return
			}
			if id == "1" {
				<-release
				return
			}
			h1JSON(conn, h1Result(id), "")
		}
	})
	defer close(release)
	conn := h1Connect(t, s.url, nil)
	msg, _ := jsonrpc.NewCall(jsonrpc.Int64ID(1), "tools/call", json.RawMessage(`{"name":"echo","arguments":{},`+validMeta+`}`))
	if err := conn.Write(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	cancel, _ := jsonrpc.NewNotification("notifications/cancelled", json.RawMessage(`{"requestId":1}`))
	if err := conn.Write(context.Background(), cancel); err != nil {
		t.Fatal(err)
	}
	if r := h1Call(t, conn, 2); r.Error != nil {
		t.Fatal(r.Error)
	}
	if n := s.accepts.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (the abandoned call's is not reused)", n)
	}
}

// TestH1SweepsClosedIdle: an idle connection that the server closed is
// closed by the client too, without waiting for the next call (net/http's
// reader goroutine did so at once), so that it does not linger in
// CLOSE_WAIT.
func TestH1SweepsClosedIdle(t *testing.T) {
	defer streamable.SetH1SweepEvery(10 * time.Millisecond)()
	clientClosed := make(chan struct{})
	s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
		_, _, id, err := h1Read(br)
		if err != nil {
			return
		}
		h1JSON(conn, h1Result(id), "")
		conn.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, br) // ends when the client closes its side
		close(clientClosed)
	})
	conn := h1Connect(t, s.url, nil)
	if r := h1Call(t, conn, 1); r.Error != nil {
		t.Fatal(r.Error)
	}
	select {
	case <-clientClosed:
	case <-time.After(10 * time.Second):
		t.Fatal("the client kept the connection the server closed")
	}
}

// TestH1BytesAfterAnswerNotNextAnswer: bytes a server sends after the end
// of an answer's body (a second answer to one request, or a body longer
// than its Content-Length) are not read as the answer of the next call
// on the connection: net/http's reader sees them unsolicited and closes
// the connection, and the next call goes on a new one.
func TestH1BytesAfterAnswerNotNextAnswer(t *testing.T) {
	for name, extra := range map[string]func(id string) string{
		"second answer": func(id string) string {
			stale := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"stale"}],"resultType":"complete"}}`
			return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(stale), stale)
		},
		"body longer than its length": func(string) string { return "\r\n" },
	} {
		t.Run(name, func(t *testing.T) {
			s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
				for {
					_, _, id, err := h1Read(br)
					if err != nil {
						return
					}
					var b bytes.Buffer
					h1JSON(&b, h1Result(id), "")
					b.WriteString(extra(id))
					conn.Write(b.Bytes()) // one write: the extra bytes come with the answer
				}
			})
			conn := h1Connect(t, s.url, nil)
			for n := range int64(3) {
				r := h1Call(t, conn, n+1)
				if r.Error != nil {
					t.Fatalf("call %d: %v", n+1, r.Error)
				}
				if strings.Contains(string(r.Result), "stale") {
					t.Fatalf("call %d got the answer sent after the first: %s", n+1, r.Result)
				}
			}
			if n := s.accepts.Load(); n != 3 {
				t.Errorf("%d connections for 3 calls, want 3 (none reused after unsolicited bytes)", n)
			}
		})
	}
}

// TestH1ManyInformationalAnswers: informational answers before the final
// one are bounded as net/http bounds them, by the bytes of all their
// headers together (MaxResponseHeaderBytes), not by their count: a long
// call that the server keeps alive with 102 Processing now and then is
// answered, and an endless run of them ends the call.
func TestH1ManyInformationalAnswers(t *testing.T) {
	t.Run("a few", func(t *testing.T) {
		s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
			_, _, id, err := h1Read(br)
			if err != nil {
				return
			}
			for range 20 {
				io.WriteString(conn, "HTTP/1.1 102 Processing\r\n\r\n")
			}
			h1JSON(conn, h1Result(id), "")
		})
		if r := h1Call(t, h1Connect(t, s.url, nil), 1); r.Error != nil {
			t.Fatal(r.Error)
		}
	})
	t.Run("endless", func(t *testing.T) {
		s := newH1Server(t, func(conn net.Conn, br *bufio.Reader) {
			if _, _, _, err := h1Read(br); err != nil {
				return
			}
			chunk := []byte(strings.Repeat("HTTP/1.1 102 Processing\r\nX-Pad: "+strings.Repeat("p", 1000)+"\r\n\r\n", 64))
			for range 11 << 20 / len(chunk) {
				if _, err := conn.Write(chunk); err != nil {
					return
				}
			}
		})
		r := h1Call(t, h1Connect(t, s.url, nil), 1)
		if r.Error == nil || !strings.Contains(r.Error.Message, "server response headers exceeded") {
			t.Fatalf("%v, want the header limit's error", r.Error)
		}
	})
}
