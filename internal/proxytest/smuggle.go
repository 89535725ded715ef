package proxytest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The paths of RefusingBackend: requests hidden in the bodies that
// Smuggle sends go to HiddenPath; the probe that Smuggle sends after its
// request, on the same connection, goes to ProbePath.
const (
	HiddenPath = "/hidden"
	ProbePath  = "/probe"
)

// hiddenHeader marks the answers of RefusingBackend to hidden requests.
const hiddenHeader = "X-Hidden-Request"

// RefusingBackend starts an upstream that answers a request with a
// foreign Origin at once with 403, without reading its body, as an MCP
// server's DNS-rebinding guard does; answers requests for HiddenPath and
// ProbePath; and counts the hidden requests that reach it. It is closed
// when the test ends.
func RefusingBackend(t testing.TB) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hidden atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Origin") != "":
			http.Error(w, "origin not allowed", http.StatusForbidden)
		case r.URL.Path == HiddenPath:
			hidden.Add(1)
			w.Header().Set(hiddenHeader, "1")
			io.WriteString(w, "hidden request served")
		case r.URL.Path == ProbePath:
			io.WriteString(w, "probe")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s, &hidden
}

// HiddenRequests returns at least size bytes: offset bytes of padding
// (spaces), then complete HTTP/1.1 requests: each request is "POST path"
// with headers hdr (lines without their line ending) and the JSON body,
// padded with spaces to 4 KiB, so that a reader that stops at a multiple
// of 4 KiB after the padding stops between two requests.
func HiddenRequests(size, offset int, path string, hdr []string, body string) []byte {
	const each = 4 << 10
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: upstream\r\n", path)
	for _, h := range hdr {
		head.WriteString(h + "\r\n")
	}
	pad := each - head.Len() - len(body) - len("Content-Length: 0000\r\n\r\n")
	body += strings.Repeat(" ", max(pad, 0))
	fmt.Fprintf(&head, "Content-Length: %04d\r\n\r\n%s", len(body), body)
	out := bytes.Repeat([]byte{' '}, offset)
	for len(out) < size {
		out = append(out, head.Bytes()...)
	}
	return out
}

// SmuggleSize is about the size of the bodies Smuggle sends: well over
// the 256 KiB that net/http's server reads of a body its handler left.
const SmuggleSize = 1 << 20

// Smuggle sends to addr (a proxy's host:port), rounds times, two
// requests "POST /mcp" with a foreign Origin, each on a raw connection of
// its own, whose bodies (about SmuggleSize bytes, with Content-Length,
// then chunked) are made of complete requests for HiddenPath; after the
// answer it sends a probe for ProbePath on the same connection. It
// returns what went wrong: a connection that carried any answer other
// than the one to its request and, if the proxy kept the connection
// (which is right only when it read the body to its end), the probe's.
// Any other answer is that of a hidden request, or of a piece of one,
// read as a request of its own. It does not count what reached the
// backend: the caller does.
func Smuggle(t testing.TB, addr string, rounds int) []string {
	t.Helper()
	var fails []string
	for round := range rounds {
		for _, chunked := range []bool{false, true} {
			if err := smuggleOnce(addr, chunked); err != nil {
				fails = append(fails, fmt.Sprintf("round %d, chunked %v: %v", round, chunked, err))
			}
		}
	}
	return fails
}

// smuggleOnce sends one request and the probe on one connection.
func smuggleOnce(addr string, chunked bool) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute)) // only a failure reaches it
	head := func(length int) string {
		h := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\n"
		if chunked {
			return h + "Transfer-Encoding: chunked\r\n\r\n"
		}
		return h + "Content-Length: " + strconv.Itoa(length) + "\r\n\r\n"
	}
	// The hidden requests start at a multiple of 4 KiB in the stream, so
	// that a server that reads the body in whole buffers stops between
	// two. (The body's length has as many digits as SmuggleSize.)
	body := HiddenRequests(SmuggleSize, (4<<10-len(head(SmuggleSize))%(4<<10))%(4<<10), HiddenPath,
		[]string{"Content-Type: application/json"}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe"}}`)
	req := []byte(head(len(body)))
	if chunked {
		req = append(req, chunk(body, 16<<10)...)
	} else {
		req = append(req, body...)
	}
	// The proxy may answer before it has the body, and may stop reading
	// it: the request is written by a goroutine of its own, which the
	// closing of the connection ends.
	wrote := make(chan error, 1)
	go func() {
		_, err := c.Write(req)
		wrote <- err
	}()
	br := bufio.NewReader(c)
	first, err := readAnswer(br)
	if err != nil {
		c.Close()
		<-wrote
		return fmt.Errorf("no answer to the request: %v", err)
	}
	if first.hidden {
		c.Close()
		<-wrote
		return errors.New("the first answer is that of a hidden request")
	}
	if err := <-wrote; err == nil {
		io.WriteString(c, "GET "+ProbePath+" HTTP/1.1\r\nHost: "+addr+"\r\nConnection: close\r\n\r\n")
	}
	var extra []string
	for {
		a, err := readAnswer(br)
		if err != nil {
			break // the connection was closed: its end
		}
		if a.body == "probe" && !a.hidden {
			continue
		}
		extra = append(extra, fmt.Sprintf("%d %q", a.status, a.body))
	}
	if len(extra) > 0 {
		return fmt.Errorf("after the answer (%d), the connection carried %d answers to requests that were part of the body, such as %s", first.status, len(extra), extra[0])
	}
	return nil
}

type answer struct {
	status int
	hidden bool
	body   string
}

func readAnswer(br *bufio.Reader) (answer, error) {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return answer{}, err
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return answer{}, err
	}
	return answer{status: resp.StatusCode, hidden: resp.Header.Get(hiddenHeader) != "", body: strings.TrimSpace(string(b))}, nil
}

// chunk returns b in the chunked transfer coding, in chunks of size
// bytes, with its last chunk.
func chunk(b []byte, size int) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		n := min(size, len(b))
		fmt.Fprintf(&out, "%x\r\n", n)
		out.Write(b[:n])
		out.WriteString("\r\n")
		b = b[n:]
	}
	out.WriteString("0\r\n\r\n")
	return out.Bytes()
}
