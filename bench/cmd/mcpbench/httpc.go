package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// An hconn is a minimal HTTP/1.1 client on one keep-alive connection: it
// writes pre-formatted requests and reads responses with a Content-Length
// or chunked body, so that the load generator spends as little CPU as it
// can on its side of the loopback.
type hconn struct {
	addr string
	c    net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
	body []byte // reused response body buffer
}

// hresp is what the benchmark needs of a response.
type hresp struct {
	status      int
	sessionID   string
	contentType string
	body        []byte // valid until the next request on the connection
}

func dialHTTP(addr string) (*hconn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &hconn{addr: addr, c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10)}, nil
}

func (h *hconn) close() { h.c.Close() }

// do sends one request: method, path, extra header lines (each ending in
// "\r\n") and a body.
func (h *hconn) do(method, path, headers string, body []byte) (hresp, error) {
	h.c.SetDeadline(time.Now().Add(30 * time.Second))
	w := h.w
	w.WriteString(method)
	w.WriteByte(' ')
	w.WriteString(path)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(h.addr)
	w.WriteString("\r\n")
	w.WriteString(headers)
	if body != nil {
		w.WriteString("Content-Length: ")
		w.WriteString(strconv.Itoa(len(body)))
		w.WriteString("\r\n")
	}
	w.WriteString("\r\n")
	w.Write(body)
	if err := w.Flush(); err != nil {
		return hresp{}, err
	}
	return h.read()
}

var errMalformed = errors.New("malformed HTTP response")

func (h *hconn) read() (hresp, error) {
	var res hresp
	line, err := h.r.ReadSlice('\n')
	if err != nil {
		return res, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return res, errMalformed
	}
	res.status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return res, errMalformed
	}
	length, chunked := -1, false
	for {
		line, err = h.r.ReadSlice('\n')
		if err != nil {
			return res, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return res, errMalformed
		}
		v = bytes.TrimSpace(v)
		switch {
		case asciiEqualFold(k, "content-length"):
			length, err = strconv.Atoi(string(v))
			if err != nil {
				return res, errMalformed
			}
		case asciiEqualFold(k, "transfer-encoding"):
			chunked = asciiEqualFold(v, "chunked")
		case asciiEqualFold(k, "mcp-session-id"):
			res.sessionID = string(v)
		case asciiEqualFold(k, "content-type"):
			res.contentType = string(v)
		}
	}
	h.body = h.body[:0]
	switch {
	case chunked:
		for {
			line, err = h.r.ReadSlice('\n')
			if err != nil {
				return res, err
			}
			line = bytes.TrimRight(line, "\r\n")
			if i := bytes.IndexByte(line, ';'); i >= 0 {
				line = line[:i]
			}
			n, err := strconv.ParseInt(string(line), 16, 64)
			if err != nil || n < 0 || n > 64<<20 {
				return res, errMalformed
			}
			if n == 0 {
				// Trailers, then the empty line.
				for {
					line, err = h.r.ReadSlice('\n')
					if err != nil {
						return res, err
					}
					if len(bytes.TrimRight(line, "\r\n")) == 0 {
						break
					}
				}
				break
			}
			h.body, err = readN(h.r, h.body, int(n)+2)
			if err != nil {
				return res, err
			}
			h.body = h.body[:len(h.body)-2]
		}
	case length > 64<<20:
		return res, errMalformed
	case length >= 0:
		h.body, err = readN(h.r, h.body, length)
		if err != nil {
			return res, err
		}
	case res.status == 200:
		return res, fmt.Errorf("status 200 without a length: %w", errMalformed)
	}
	res.body = h.body
	if bytes.HasPrefix([]byte(res.contentType), []byte("text/event-stream")) {
		res.body = lastSSEData(res.body)
	}
	return res, nil
}

// readN appends n bytes from r to b.
func readN(r *bufio.Reader, b []byte, n int) ([]byte, error) {
	start := len(b)
	b = append(b, make([]byte, n)...)
	_, err := io.ReadFull(r, b[start:])
	return b, err
}

// lastSSEData is the data of the last event of an SSE stream that has any
// (the answer ends the stream).
func lastSSEData(b []byte) []byte {
	var last []byte
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		line = bytes.TrimRight(line, "\r")
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok && len(bytes.TrimSpace(d)) > 0 {
			last = bytes.TrimPrefix(d, []byte(" "))
		}
	}
	return last
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
