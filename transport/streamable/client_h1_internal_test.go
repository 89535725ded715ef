package streamable

import (
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
)

// TestH1RemoveZone: the Host header has no IPv6 zone, as net/http
// writes it.
func TestH1RemoveZone(t *testing.T) {
	for in, want := range map[string]string{
		"[fe80::1%25en0]:8080": "[fe80::1]:8080",
		"[fe80::1%en0]":        "[fe80::1]",
		"[::1]:80":             "[::1]:80",
		"example.com:80":       "example.com:80",
		"[broken":              "[broken",
	} {
		if got := h1RemoveZone(in); got != want {
			t.Errorf("h1RemoveZone(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestH1ParseHeadLinear: the work and memory of parsing an answer's
// headers grow with their size, as net/http's: a server repeating one
// header, or folding one value over many lines, within
// MaxResponseHeaderBytes, costs no more than a few times those bytes.
func TestH1ParseHeadLinear(t *testing.T) {
	const lines = 20000
	for name, line := range map[string]string{
		"repeated header": "X-Dup: v\r\n",
		"folded value":    " more\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			head := "HTTP/1.1 200 OK\r\nX-Dup: first\r\n" + strings.Repeat(line, lines) + "\r\n"
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			resp, err := h1ParseHead(head)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > uint64(20*len(head)) {
				t.Errorf("parsing %d bytes of headers allocated %d bytes, want at most %d", len(head), got, 20*len(head))
			}
			if !strings.HasPrefix(resp.Header.Get("X-Dup"), "first") {
				t.Errorf("X-Dup = %.40q…", resp.Header.Get("X-Dup"))
			}
		})
	}
}

// TestH1ParseHeadInvalidValue: a header value with a control character
// (NUL, a bare CR) is refused, as net/http's textproto refuses it.
func TestH1ParseHeadInvalidValue(t *testing.T) {
	for _, v := range []string{"a\x00b", "a\rb", "a\x7fb"} {
		_, err := h1ParseHead("HTTP/1.1 200 OK\r\nX-Bad: " + v + "\r\n\r\n")
		if err == nil || !strings.Contains(err.Error(), "malformed MIME header line") {
			t.Errorf("value %q: %v, want malformed MIME header line", v, err)
		}
	}
}

// TestH1NonASCIIHost: a host name that is not ASCII is not dialled nor
// sent raw: net/http dials and names it in its IDNA form
// (xn--h-bga:8080), which the HTTP/1.1 client leaves to net/http.
func TestH1NonASCIIHost(t *testing.T) {
	u, err := url.Parse("http://h%C3%A9:8080/mcp")
	if err != nil {
		t.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	if cl := newH1Client(tr, u); cl != nil && (cl.host != "xn--h-bga:8080" || cl.addr != "xn--h-bga:8080") {
		t.Errorf("the HTTP/1.1 client dials %q and sends Host %q; net/http uses xn--h-bga:8080 for both", cl.addr, cl.host)
	}
}
