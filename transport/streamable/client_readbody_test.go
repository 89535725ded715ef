package streamable

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// eofReader records whether its end was read, as net/http's body must
// be for its connection to be reused.
type eofReader struct {
	r   io.Reader
	eof bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.eof = true
	}
	return n, err
}

// TestClientReadBody: a body of announced length is read whole and to its
// end; a shorter one is an error; one of unknown length or over the limit
// is read up to the limit and one byte more, as before.
func TestClientReadBody(t *testing.T) {
	const max = 10
	for _, tc := range []struct {
		body    string
		length  int64
		want    string
		wantErr error
	}{
		{`{"a":1}`, 7, `{"a":1}`, nil},
		{``, 0, ``, nil},
		{`{"a":1}`, -1, `{"a":1}`, nil},
		{`{"a":1}`, 9, `{"a":1}`, io.ErrUnexpectedEOF},                               // the body ended early
		{`{"a":"0123456789"}`, -1, `{"a":"01234`, nil},                               // over the limit: max+1 bytes
		{`{"a":"0123456789"}`, 18, `{"a":"01234`, nil},                               // announced over the limit
		{`{"a":1}xyz`, 7, `{"a":1}xyz`, nil},                                         // longer than announced (net/http prevents it)
		{strings.Repeat("x", 10), 10, strings.Repeat("x", 10), nil},                  // exactly max
		{strings.Repeat("x", 11), 11, strings.Repeat("x", 11), nil},                  // max+1 tells it is over
		{strings.Repeat("x", 12), -1, strings.Repeat("x", 11), nil},                  //
		{strings.Repeat("x", 12), 10, strings.Repeat("x", 11), nil},                  // longer than announced, over max
		{strings.Repeat("x", 5) + "yyyyy", 5, strings.Repeat("x", 5) + "yyyyy", nil}, // longer, within max
	} {
		r := &eofReader{r: strings.NewReader(tc.body)}
		b, err := clientReadBody(r, tc.length, max)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%q (length %d): error %v, want %v", tc.body, tc.length, err, tc.wantErr)
			continue
		}
		if err == nil && string(b) != tc.want {
			t.Errorf("%q (length %d): %q, want %q", tc.body, tc.length, b, tc.want)
		}
		if err == nil && tc.length >= 0 && int(tc.length) == len(tc.body) && tc.length <= max && !r.eof {
			t.Errorf("%q (length %d): the end of the body was not read", tc.body, tc.length)
		}
	}
}
