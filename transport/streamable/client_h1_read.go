package streamable

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
	"strings"
)

// This file reads the answers of the HTTP/1.1 client (client_h1.go): the
// status line and headers, and the body as the headers frame it.

// readHead reads the status line and the headers of an answer into a
// response without a body, reading at most left bytes, and returns how
// many it read. Past left, the error names the limit of all the headers
// of one exchange (informational answers and the final one together, as
// net/http counts them), maxHeader.
func (pc *h1Conn) readHead(left int) (*http.Response, int, error) {
	max := pc.cl.maxHeader
	head := pc.head[:0]
	defer func() {
		if cap(head) <= h1MaxHeadBuffer {
			pc.head = head[:0]
		}
	}()
	lineStart := 0
	for {
		line, err := pc.br.ReadSlice('\n')
		if len(head)+len(line) > left {
			return nil, 0, fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", max)
		}
		head = append(head, line...)
		if err == bufio.ErrBufferFull {
			continue // the line goes on
		}
		if err != nil {
			if err == io.EOF && len(head) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		if lineStart > 0 && (len(head)-lineStart == 1 || (len(head)-lineStart == 2 && head[lineStart] == '\r')) {
			break // the blank line after the headers
		}
		lineStart = len(head)
	}
	resp, err := h1ParseHead(string(head))
	return resp, len(head), err
}

// h1ParseHead parses the status line and headers of an answer, s, which
// ends with a blank line. Header values are parts of s, and share one
// array of values: the answer's headers cost s, the map and that array.
func h1ParseHead(s string) (*http.Response, error) {
	line, rest, _ := strings.Cut(s, "\n")
	line = strings.TrimSuffix(line, "\r")
	proto, status, ok := strings.Cut(line, " ")
	if !ok {
		return nil, fmt.Errorf("malformed HTTP response %q", line)
	}
	status = strings.TrimLeft(status, " ")
	major, minor, ok := http.ParseHTTPVersion(proto)
	if !ok {
		return nil, fmt.Errorf("malformed HTTP version %q", proto)
	}
	code, err := strconv.Atoi(status[:min(3, len(status))])
	if err != nil || len(status) < 3 || code < 100 || code > 999 || (len(status) > 3 && status[3] != ' ') {
		return nil, fmt.Errorf("malformed HTTP status code %q", status)
	}
	n := min(strings.Count(rest, "\n"), 1000) // a hint, capped as net/http's
	h := make(http.Header, n)
	vals := make([]string, 0, n)
	for {
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' { // folds are read with the line they continue
			return nil, fmt.Errorf("malformed MIME header initial line: %q", line)
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || !h1ValidName(k) {
			return nil, fmt.Errorf("malformed MIME header line: %q", line)
		}
		v = textproto.TrimString(v)
		if len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
			// Obsolete line folding: the value goes on, after a space.
			// Built in one buffer, as textproto does: appending to the
			// string line by line would cost the square of its length.
			b := []byte(v)
			for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
				line, rest, _ = strings.Cut(rest, "\n")
				b = append(b, ' ')
				b = append(b, textproto.TrimString(strings.TrimSuffix(line, "\r"))...)
			}
			v = string(b)
		}
		if !h1ValidValue(v) {
			return nil, fmt.Errorf("malformed MIME header line: %q", line)
		}
		k = textproto.CanonicalMIMEHeaderKey(k)
		if vs, dup := h[k]; dup {
			h[k] = append(vs, v) // a value of vals has its capacity: appending copies it out
		} else {
			vals = append(vals, v)
			h[k] = vals[len(vals)-1 : len(vals) : len(vals)]
		}
	}
	return &http.Response{
		Status:        status,
		StatusCode:    code,
		Proto:         proto,
		ProtoMajor:    major,
		ProtoMinor:    minor,
		Header:        h,
		ContentLength: -1,
	}, nil
}

// frame gives resp its body, as its headers frame it, reading from pc:
// nothing (1xx, 204, 304), chunks, Content-Length bytes, or everything
// until the server closes the connection. stop ends the watch of the
// request's context; the body calls it when done, and pc goes back to the
// idle connections when the exchange leaves it reusable.
func (pc *h1Conn) frame(ctx context.Context, resp *http.Response, gz bool, stop func() bool) error {
	keep := h1KeepAlive(resp)
	b := &h1Body{pc: pc, ctx: ctx, stop: stop} // its own: the conn may serve another request once b has ended
	code := resp.StatusCode
	te, hasTE := resp.Header["Transfer-Encoding"]
	cl, hasCL := resp.Header["Content-Length"]
	switch {
	case code/100 == 1 || code == http.StatusNoContent || code == http.StatusNotModified:
		if code == http.StatusSwitchingProtocols {
			keep = false
		}
		resp.ContentLength = 0
	case hasTE && resp.ProtoAtLeast(1, 1):
		if len(te) != 1 || !strings.EqualFold(te[0], "chunked") {
			return fmt.Errorf("net/http: unsupported transfer encoding: %q", te)
		}
		delete(resp.Header, "Content-Length")
		b.chunked = httputil.NewChunkedReader(pc.br)
		b.left = -1
	case hasCL:
		for _, v := range cl[1:] {
			if v != cl[0] {
				return fmt.Errorf("http: message cannot contain multiple Content-Length headers; got %q", cl)
			}
		}
		n, err := strconv.ParseUint(cl[0], 10, 63)
		if err != nil {
			return fmt.Errorf("bad Content-Length %q", cl[0])
		}
		resp.ContentLength = int64(n)
		b.left = int64(n)
	default:
		b.left = -1
		keep = false // the body ends with the connection
	}
	b.keep = keep
	resp.Close = !keep
	if resp.ContentLength == 0 {
		b.end(io.EOF)
		resp.Body = http.NoBody
		return nil
	}
	resp.Body = b
	if gz && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		delete(resp.Header, "Content-Encoding")
		delete(resp.Header, "Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
		resp.Body = &h1Gzip{body: b}
	}
	return nil
}

// h1KeepAlive reports whether the connection may carry another request
// after resp, as HTTP/1.1 and 1.0 define it.
func h1KeepAlive(resp *http.Response) bool {
	conn := resp.Header["Connection"]
	if resp.ProtoAtLeast(1, 1) {
		return !h1HasToken(conn, "close")
	}
	return resp.ProtoMajor == 1 && h1HasToken(conn, "keep-alive")
}

// h1HasToken reports whether a comma-separated list of vs holds token.
func h1HasToken(vs []string, token string) bool {
	for _, v := range vs {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// errH1BodyClosed is the error of a read after Close.
var errH1BodyClosed = errors.New("http: read on closed response body")

// An h1Body is the body of an answer of the HTTP/1.1 client. It is read
// by one goroutine, which closes it.
type h1Body struct {
	pc      *h1Conn
	ctx     context.Context // the request's
	stop    func() bool     // ends the watch of ctx (context.AfterFunc)
	chunked io.Reader       // the chunks' reader, if chunked
	left    int64           // bytes left of a Content-Length body; -1 otherwise
	keep    bool            // the connection may be reused after the body
	err     error           // once ended: io.EOF, errH1BodyClosed, or what broke it
}

// Read reads the body.
func (b *h1Body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var err error
	switch {
	case b.chunked != nil:
		n, err = b.chunked.Read(p)
		if err == io.EOF {
			if terr := b.readTrailer(); terr != nil {
				err = terr
			}
		}
	case b.left >= 0:
		if int64(len(p)) > b.left {
			p = p[:b.left]
		}
		n, err = b.pc.br.Read(p)
		b.left -= int64(n)
		switch {
		case b.left == 0:
			err = io.EOF
		case err == io.EOF:
			err = io.ErrUnexpectedEOF
		}
	default:
		n, err = b.pc.br.Read(p)
	}
	if err != nil {
		if err != io.EOF && b.ctx.Err() != nil {
			err = b.ctx.Err() // as net/http reports a body read after its request was cancelled
		}
		b.end(err)
	}
	return n, err
}

// readTrailer reads the trailer section after the last chunk, which the
// client ignores.
func (b *h1Body) readTrailer() error {
	size := 0
	for {
		line, err := b.pc.br.ReadSlice('\n')
		size += len(line)
		if size > b.pc.cl.maxHeader {
			return errors.New("net/http: trailer too large")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if len(line) <= 2 && strings.TrimRight(string(line), "\r\n") == "" {
			return nil
		}
	}
}

// end ends the body with err: the connection goes back to the idle ones
// after a whole body that leaves it reusable, and is closed otherwise.
// Bytes already read past the body's end (a second answer, a body longer
// than its Content-Length) are unsolicited: the connection is out of
// step, and net/http closes it too. Those still unread are for the check
// before reuse (h1Alive).
func (b *h1Body) end(err error) {
	b.err = err
	pc := b.pc
	if !b.stop() || err != io.EOF || !b.keep || pc.br.Buffered() > 0 {
		pc.nc.Close() // the context's end may have interrupted it, the exchange broke, or the server said more
		return
	}
	pc.cl.put(pc)
}

// Close ends the body. A body closed before its end closes the
// connection, as net/http does.
func (b *h1Body) Close() error {
	if b.err == nil {
		b.end(errH1BodyClosed)
	}
	b.err = errH1BodyClosed
	return nil
}

// h1Gzip decompresses a gzip body as it is read.
type h1Gzip struct {
	body *h1Body
	zr   *gzip.Reader
	err  error
}

func (g *h1Gzip) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		g.zr, g.err = gzip.NewReader(g.body)
		if g.err != nil {
			return 0, g.err
		}
	}
	return g.zr.Read(p)
}

func (g *h1Gzip) Close() error { return g.body.Close() }
