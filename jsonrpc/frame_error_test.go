package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"
)

// deepResult is a response whose result is nested n levels deep.
func deepResult(id string, n int) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
}

// Regression (issue 10): a call whose response arrived as an invalid
// frame waited for its whole deadline, then reported only that: the
// frame was answered with an error and forgotten. It must fail at once,
// with an error that names the frame, its position and the rule it broke.
func TestInvalidResponseFailsCallAtOnce(t *testing.T) {
	cases := []struct {
		name, frame, rule string
	}{
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"result":{}}`, `"jsonrpc" must be "2.0"`},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32000,"message":"no"}}`, "a response cannot carry both a result and an error"},
		{"error without a message", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000}}`, `"error" needs a "message"`},
		{"truncated", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06`, "not JSON: unterminated string"},
		{"nested 100,000 deep", deepResult("1", 100_000), "nesting deeper than 128 levels"},
		{"too large", `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("x", 300_000) + `"}`, "exceeds the limit of 262144 bytes"},
		{"id null", `{"jsonrpc":"2.0","id":null,"result":{}}`, `a result needs a non-null "id"`},
		{"no id", `{"jsonrpc":"2.0","result":{}}`, `a result needs an "id"`},
		{"string id", `{"jsonrpc":"2.0","id":"1","result":{}}`, ""}, // a valid response to no call: not this one's
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newFrameStream(Limits{MaxMessageSize: 256 << 10})
				c := NewConn(s, nil)
				defer c.Close()
				// A deadline only a failure reaches: in the bubble, it
				// passes at once if the call is left waiting.
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				errc := make(chan error, 1)
				go func() { errc <- c.Call(ctx, "initialize", nil, nil) }()
				s.recv(t)
				s.send(t, tc.frame)
				err := <-errc
				var fe *FrameError
				if tc.rule == "" {
					if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &fe) {
						t.Fatalf("got %v, want the deadline alone", err)
					}
					return
				}
				if !errors.As(err, &fe) || fe.Cause != nil {
					t.Fatalf("got %v, want a *FrameError for the response itself", err)
				}
				if fe.Method != "initialize" || fe.ID != Int64ID(1) || fe.N != 1 {
					t.Errorf("FrameError names %s id %s frame %d, want initialize id 1 frame 1", fe.Method, fe.ID, fe.N)
				}
				msg := err.Error()
				if !strings.Contains(msg, tc.rule) || !strings.Contains(msg, "the response to initialize (id 1)") || !strings.Contains(msg, "frame 1 from the peer") {
					t.Errorf("error %q does not name the rule %q, the call and the frame", msg, tc.rule)
				}
				if want := `"` + strings.ReplaceAll(tc.frame[:20], `"`, `\"`); !strings.Contains(msg, want) {
					t.Errorf("error %q does not quote the start of the frame (%s)", msg, want)
				}
				if len(msg) > 400 {
					t.Errorf("error of %d bytes: the frame must be cut", len(msg))
				}
				synctest.Wait()
				if n := len(s.out); n != 0 {
					t.Errorf("the invalid response was answered: %s", <-s.out)
				}
			})
		})
	}
}

// TestStrayFrameToleratedThenNamed checks the policy for a frame whose id
// cannot be read and that is not shaped as a response (a line that is
// not JSON, a log line): it is answered with an error as JSON-RPC asks;
// a call waiting when it arrived still gets its answer if it comes (a
// server that prints a banner on stdout works); a call that ends
// unanswered names the frame, whether its context ended or the
// connection.
func TestStrayFrameToleratedThenNamed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFrameStream(Limits{})
		c := NewConn(s, nil)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()

		// A banner, then the answer: the call succeeds.
		errc := make(chan error, 1)
		go func() { errc <- c.Call(ctx, "first", nil, nil) }()
		s.recv(t)
		s.send(t, "Server listening on stdio")
		if got := s.recv(t); !jsonEqual(t, got, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected character 'S'"}}`) && !strings.Contains(got, "-32700") {
			t.Errorf("the stray line was answered with %s", got)
		}
		s.send(t, `{"jsonrpc":"2.0","id":1,"result":"ok"}`)
		if err := <-errc; err != nil {
			t.Fatalf("a call answered after a stray line: %v", err)
		}

		// A line that is not JSON, then nothing: the call ends at its
		// deadline and names the line, quoted (control characters and
		// invalid UTF-8 escaped).
		go func() { errc <- c.Call(ctx, "second", nil, nil) }()
		s.recv(t)
		s.send(t, "\x1b[31mnot json\x1b[0m \xff")
		s.recv(t) // the parse error
		err := <-errc
		var fe *FrameError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &fe) {
			t.Fatalf("got %v, want the deadline and a *FrameError", err)
		}
		msg := err.Error()
		if fe.N != 3 || fe.Method != "second" || !strings.Contains(msg, "not JSON") || !strings.Contains(msg, `\x1b[31mnot json\x1b[0m \xff`) {
			t.Errorf("error %q does not name frame 3, escaped", msg)
		}
		if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\x1b\r\n") {
			t.Errorf("error %q holds the peer's raw bytes", msg)
		}

		// A response-shaped frame without a usable id while two calls
		// wait: neither can be told to be its target; both name it when
		// the connection ends.
		ctx2, cancel2 := context.WithCancel(context.Background())
		defer cancel2()
		errs := make(chan error, 2)
		go func() { errs <- c.Call(ctx2, "a", nil, nil) }()
		go func() { errs <- c.Call(ctx2, "b", nil, nil) }()
		s.recv(t)
		s.recv(t)
		s.send(t, `{"jsonrpc":"2.0","id":true,"result":{}}`)
		synctest.Wait()
		if len(errs) != 0 {
			t.Fatalf("a call failed on a frame that was not surely its answer: %v", <-errs)
		}
		close(s.in) // the peer goes away
		for range 2 {
			err := <-errs
			if !errors.Is(err, ErrClosed) || !errors.As(err, &fe) || fe.N != 4 {
				t.Errorf("got %v, want ErrClosed naming frame 4", err)
			}
		}
	})
}

// TestInvalidRequestAnsweredByItsID checks that a request that breaks a
// limit or the syntax is still refused by its id when the id can be read
// (the peer's call fails at once too), and by null otherwise.
func TestInvalidRequestAnsweredByItsID(t *testing.T) {
	s := newFrameStream(Limits{MaxMessageSize: 4096})
	c := NewConn(s, nil)
	defer c.Close()
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"m","params":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"m","params":["` + strings.Repeat("x", 5000) + `"]}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32600}}`},
		{`{"jsonrpc":"2.0","id":9,"method":"m","params":[}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32700}}`},
		{`{"jsonrpc":"2.0","method":"m","params":[},"id":10}`, `{"jsonrpc":"2.0","id":10,"error":{"code":-32700}}`}, // read leniently
		{`{"jsonrpc":"2.0","method":"m","id":11`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`},            // the id may be cut
	} {
		s.send(t, tc.in)
		if got := s.recv(t); normalize(t, got) != normalize(t, tc.want) {
			t.Errorf("in %.60s...\ngot  %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestPeek(t *testing.T) {
	for _, tc := range []struct {
		in       string
		id       ID
		method   bool
		response bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, Int64ID(1), false, true},
		{` { "id" : "a" , "method" : "x" } `, StringID("a"), true, false},
		{`{"result":[[["]"]]],"id":2}`, Int64ID(2), false, true},
		{`{"result":"\"}","id":3}`, Int64ID(3), false, true},
		{`{"jsonrpc":"2.0","id":4,"resu`, Int64ID(4), false, false},
		{`{"jsonrpc":"2.0","id":45`, ID{}, false, false},
		{`{"jsonrpc":"2.0","id":4.5,"result":1}`, ID{}, false, true},
		{`{"id":1,"id":2,"error":{}}`, Int64ID(1), false, true},
		{`{"method":"m","result":1,"id":5}`, Int64ID(5), true, false},
		{`{"error":` + strings.Repeat("[", 1<<20), ID{}, false, true},
		{`[{"id":1}]`, ID{}, false, false},
		{`hello`, ID{}, false, false},
		{``, ID{}, false, false},
		{`{"\u0069d":1,"result":1}`, ID{}, false, true},
	} {
		p := peek([]byte(tc.in))
		if p.id != tc.id || p.method != tc.method || p.response != tc.response {
			t.Errorf("peek(%.40s) = %+v, want id %s method %v response %v", tc.in, p, tc.id, tc.method, tc.response)
		}
	}
}

// FuzzPeek checks that peek never fails, and that it finds the id of
// every valid message whose "id" key is written plainly.
func FuzzPeek(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":"x","method":"m","params":[1,{"a":"]"}]}`, `{"id":`, `{"a":[[[`, `{"jsonrpc":"2.0","id":-12,"error":{"code":1,"message":"\""}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := peek(data)
		m, err := Decode(data, nil)
		if err != nil || strings.Contains(string(data), `\u`) {
			return
		}
		var id ID
		switch m := m.(type) {
		case *Request:
			id = m.ID
			if !p.method {
				t.Errorf("peek missed the method of %q", data)
			}
		case *Response:
			id = m.ID
		default:
			return
		}
		if p.id != id {
			t.Errorf("peek(%q) found id %s, want %s", data, p.id, id)
		}
	})
}

// Regression (issue 18): a peer that answered a call with a JSON array
// whose members are not messages ([1,"two",{"three":3}]) left the call to
// time out naming nothing, where a line that is not JSON is named: the
// batch was answered member by member and forgotten. Its invalid members
// are frames that are not valid messages, kept by the waiting calls as a
// stray line is; one meant as the call's response fails it at once, and
// is not answered (a response never is).
func TestBatchOfInvalidMembersNamedLikeAStrayLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFrameStream(Limits{})
		c := NewConn(s, nil)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()

		errc := make(chan error, 1)
		go func() { errc <- c.Call(ctx, "initialize", nil, nil) }()
		s.recv(t)
		const batch = `[1,"two",{"three":3}]`
		s.send(t, batch)
		if got := s.recv(t); strings.Count(got, "-32600") != 3 {
			t.Errorf("the batch was answered with %s, want three -32600 errors", got)
		}
		err := <-errc
		var fe *FrameError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &fe) {
			t.Fatalf("got %v, want the deadline and a *FrameError naming the batch", err)
		}
		msg := err.Error()
		if fe.N != 1 || fe.Method != "initialize" || !strings.Contains(msg, "a batch member must be an object") || !strings.Contains(msg, `21 bytes: "[1,\"two\",{\"three\":3}]"`) {
			t.Errorf("error %q does not name frame 1, its rule and its bytes", msg)
		}

		// A member meant as the call's response, broken: the call fails
		// at once, and the member is not answered.
		ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		go func() { errc <- c.Call(ctx, "tools/list", nil, nil) }()
		s.recv(t)
		s.send(t, `[{"jsonrpc":"1.0","id":2,"result":{}}]`)
		err = <-errc
		if !errors.As(err, &fe) || fe.Cause != nil || fe.ID != Int64ID(2) || !strings.Contains(err.Error(), `"jsonrpc" must be "2.0"`) {
			t.Fatalf("got %v, want a *FrameError for the response itself", err)
		}
		synctest.Wait()
		if n := len(s.out); n != 0 {
			t.Errorf("the invalid response was answered: %s", <-s.out)
		}
	})
}

// TestClientAnswersNoInvalidFrame checks the rule for answering frames
// that are not valid messages (issue 20, item 1): a server answers each,
// as JSON-RPC asks; a client (Options.Client) answers none, alone or in a
// batch, so that it cannot trade errors with a peer that replies to every
// line; it still answers the valid calls of the same batch.
func TestClientAnswersNoInvalidFrame(t *testing.T) {
	frames := []string{
		"you said: hello",                       // not JSON
		`{"echo":"hello"}`,                      // JSON, not a message
		`{"jsonrpc":"2.0","id":7,"method":1}`,   // a request broken, its id readable
		`[]`,                                    // an empty batch
		`["you said: hello",{"jsonrpc":"2.0"}]`, // a batch of invalid members only
	}
	for _, client := range []bool{false, true} {
		t.Run(fmt.Sprintf("client=%v", client), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newFrameStream(Limits{})
				c := NewConn(s, &Options{Client: client, Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
					return "pong", nil
				})})
				defer c.Close()
				for _, f := range frames {
					s.send(t, f)
					synctest.Wait()
					switch got := len(s.out); {
					case client && got != 0:
						t.Errorf("a client answered %s with %s", f, <-s.out)
					case !client && got != 1:
						t.Errorf("a server answered %s with %d frames, want 1", f, got)
					}
					for len(s.out) > 0 {
						<-s.out
					}
				}
				// A batch of a valid call and an invalid member: the call
				// is answered, alone for a client.
				s.send(t, `[{"jsonrpc":"2.0","id":1,"method":"ping"},"garbage"]`)
				want := `[{"jsonrpc":"2.0","id":1,"result":"pong"}]`
				if !client {
					want = `[{"jsonrpc":"2.0","id":1,"result":"pong"},{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}]`
				}
				if got := s.recv(t); normalize(t, got) != normalize(t, want) {
					t.Errorf("the batch was answered with\n%s\nwant %s", got, want)
				}
			})
		})
	}
}
