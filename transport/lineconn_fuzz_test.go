package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// FuzzLineConn checks the line framing against a plain lineModel: split the
// input at "\n", drop one "\r" before it, refuse lines over the limit,
// skip blank lines, decode the rest. The input is fed in pieces of one
// byte to make every boundary a read boundary.
func FuzzLineConn(f *testing.F) {
	f.Add([]byte(linePing+"\n"+linePong+"\r\n\n  \n"+lineNotified), uint8(64))
	f.Add([]byte("{bad\n[]\n"+linePing), uint8(16))
	f.Add([]byte("\r\r\n\r"+linePing+"\r\r\n"), uint8(40))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"`+string(bytes.Repeat([]byte("a"), 300))+`"}`+"\n"+linePing), uint8(50))
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		limit := int(max) + 1
		lim := jsonrpc.Limits{MaxMessageSize: limit}
		want := lineModel(in, lim)

		for _, oneByte := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			c := NewLineConn(r, io.Discard, nil, &LineOptions{Limits: lim})
			var got []string
			for {
				m, err := c.Read(context.Background())
				if err == io.EOF {
					break
				}
				got = append(got, describeLine(m, err))
				if len(got) > len(want) {
					break
				}
			}
			c.Close()
			if len(got) != len(want) {
				t.Fatalf("input %q (limit %d, one byte at a time: %v):\ngot  %q\nwant %q", in, limit, oneByte, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("input %q (limit %d), item %d:\ngot  %s\nwant %s", in, limit, i, got[i], want[i])
				}
			}
		}
	})
}

// lineModel frames in the simplest way.
func lineModel(in []byte, lim jsonrpc.Limits) []string {
	var out []string
	lines := bytes.Split(in, []byte("\n"))
	for _, line := range lines {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > lim.MessageSize() {
			out = append(out, "too long")
			continue
		}
		if len(bytes.Trim(line, " \t\r")) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(line, &lim)
		out = append(out, describeLine(m, err))
	}
	return out
}

func describeLine(m jsonrpc.Message, err error) string {
	var de *jsonrpc.DecodeError
	switch {
	case errors.As(err, &de):
		if bytes.Contains([]byte(de.Err.Message), []byte("message exceeds")) {
			return "too long"
		}
		return "error " + de.Err.Message
	case err != nil:
		return "fatal " + err.Error()
	}
	b, err := jsonrpc.Encode(m)
	if err != nil {
		return "unencodable " + err.Error()
	}
	return string(b)
}
