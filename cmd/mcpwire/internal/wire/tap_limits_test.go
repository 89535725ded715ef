package wire

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHTTPTapRefusesAHugeBody posts 200 MiB (streamed, never in memory)
// to the tap, with Content-Length and chunked: the tap answers 413 early,
// with bounded memory, forwards nothing, and closes the connection. The
// tap passed any body on, whatever its size.
func TestHTTPTapRefusesAHugeBody(t *testing.T) {
	var got atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Add(n)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	tap := httptest.NewServer(&HTTPTap{Upstream: u})
	defer tap.Close()
	const huge = 200 << 20
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			got.Store(0)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var written atomic.Int64
			status, closed, err := postHuge(tap.Listener.Addr().String(), huge, chunked, &written)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if status != http.StatusRequestEntityTooLarge || !closed {
				t.Errorf("a body of %d MiB: status %d, connection closed after it: %v; want 413, closed", huge>>20, status, closed)
			}
			if n := got.Load(); n != 0 {
				t.Errorf("the upstream received %d bytes of the body", n)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 3*DefaultMaxBody {
				t.Errorf("refusing the body allocated %d MiB", grew>>20)
			}
			t.Logf("written before the connection closed: %d MiB", written.Load()>>20)
		})
	}
}

// postHuge writes a POST with a body of size zero bytes to addr, as the
// server reads it, and returns the status of the answer and whether the
// connection was closed after it.
func postHuge(addr string, size int64, chunked bool, written *atomic.Int64) (status int, closed bool, err error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, false, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute)) // only a failure reaches it
	head := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n"
	if chunked {
		head += "Transfer-Encoding: chunked\r\n\r\n"
	} else {
		head += fmt.Sprintf("Content-Length: %d\r\n\r\n", size)
	}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		if _, err := io.WriteString(c, head); err != nil {
			return
		}
		const piece = 64 << 10
		buf := make([]byte, piece)
		if chunked { // each piece a chunk
			buf = fmt.Appendf(nil, "%x\r\n%s\r\n", piece, buf)
		}
		for sent := int64(0); sent < size; sent += piece {
			if _, err := c.Write(buf); err != nil {
				return // the tap closed the connection
			}
			written.Add(piece)
		}
		if chunked {
			io.WriteString(c, "0\r\n\r\n")
		}
	}()
	defer func() { c.Close(); <-wrote }()
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, false, fmt.Errorf("no answer: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second)) // only a failure reaches it
	_, err = http.ReadResponse(br, nil)
	return resp.StatusCode, err != nil && !strings.Contains(err.Error(), "timeout"), nil
}
