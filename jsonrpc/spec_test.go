package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// specHandler implements the methods used by the examples of the JSON-RPC
// 2.0 specification (§7).
func specHandler() Handler {
	return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "subtract":
			if len(req.Params) > 0 && req.Params[0] == '[' {
				var p [2]int
				if err := json.Unmarshal(req.Params, &p); err != nil {
					return nil, Errorf(CodeInvalidParams, "%v", err)
				}
				return p[0] - p[1], nil
			}
			var p struct{ Minuend, Subtrahend int }
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, Errorf(CodeInvalidParams, "%v", err)
			}
			return p.Minuend - p.Subtrahend, nil
		case "sum":
			var p []int
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, Errorf(CodeInvalidParams, "%v", err)
			}
			s := 0
			for _, v := range p {
				s += v
			}
			return s, nil
		case "get_data":
			return []any{"hello", 5}, nil
		case "ping":
			return "pong", nil
		case "update", "foobar", "notify_hello", "notify_sum":
			if req.IsCall() {
				break
			}
			return nil, nil
		}
		return nil, NewError(CodeMethodNotFound, "")
	})
}

// normalize decodes a frame and drops error messages, which the
// specification does not fix; arrays are sorted so order does not matter.
func normalize(t *testing.T, frame string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(frame), &v); err != nil {
		t.Fatalf("conn wrote invalid JSON %q: %v", frame, err)
	}
	strip := func(m any) string {
		if obj, ok := m.(map[string]any); ok {
			if e, ok := obj["error"].(map[string]any); ok {
				delete(e, "message")
			}
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	if arr, ok := v.([]any); ok {
		parts := make([]string, len(arr))
		for i, m := range arr {
			parts[i] = strip(m)
		}
		slices.Sort(parts)
		return "[" + strings.Join(parts, ",") + "]"
	}
	return strip(v)
}

func TestSpecExamples(t *testing.T) {
	// Each case is an example exchange of the specification; "" means the
	// server writes nothing back.
	cases := []struct {
		name, in, want string
	}{
		{"positional params", `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, `{"jsonrpc":"2.0","result":19,"id":1}`},
		{"positional params reversed", `{"jsonrpc":"2.0","method":"subtract","params":[23,42],"id":2}`, `{"jsonrpc":"2.0","result":-19,"id":2}`},
		{"named params", `{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":3}`, `{"jsonrpc":"2.0","result":19,"id":3}`},
		{"named params reordered", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":4}`, `{"jsonrpc":"2.0","result":19,"id":4}`},
		{"notification", `{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`, ``},
		{"notification without params", `{"jsonrpc":"2.0","method":"foobar"}`, ``},
		{"unknown method", `{"jsonrpc":"2.0","method":"foobar","id":"1"}`, `{"jsonrpc":"2.0","error":{"code":-32601},"id":"1"}`},
		{"invalid JSON", `{"jsonrpc":"2.0","method":"foobar, "params":"bar","baz]`, `{"jsonrpc":"2.0","error":{"code":-32700},"id":null}`},
		{"invalid request object", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, `{"jsonrpc":"2.0","error":{"code":-32600},"id":null}`},
		{"batch, invalid JSON", `[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method"]`, `{"jsonrpc":"2.0","error":{"code":-32700},"id":null}`},
		{"empty array", `[]`, `{"jsonrpc":"2.0","error":{"code":-32600},"id":null}`},
		{"invalid batch of one", `[1]`, `[{"jsonrpc":"2.0","error":{"code":-32600},"id":null}]`},
		{"invalid batch", `[1,2,3]`, `[{"jsonrpc":"2.0","error":{"code":-32600},"id":null},{"jsonrpc":"2.0","error":{"code":-32600},"id":null},{"jsonrpc":"2.0","error":{"code":-32600},"id":null}]`},
		{"mixed batch", `[
			{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},
			{"jsonrpc":"2.0","method":"notify_hello","params":[7]},
			{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"},
			{"foo":"boo"},
			{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"},
			{"jsonrpc":"2.0","method":"get_data","id":"9"}
		]`, `[
			{"jsonrpc":"2.0","result":7,"id":"1"},
			{"jsonrpc":"2.0","result":19,"id":"2"},
			{"jsonrpc":"2.0","error":{"code":-32600},"id":null},
			{"jsonrpc":"2.0","error":{"code":-32601},"id":"5"},
			{"jsonrpc":"2.0","result":["hello",5],"id":"9"}
		]`},
		{"batch of notifications", `[{"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]`, ``},
	}
	s := newFrameStream(Limits{})
	c := NewConn(s, &Options{Handler: specHandler()})
	defer func() {
		c.Close()
		if n := len(s.out); n > 0 {
			t.Errorf("%d unexpected frames, first: %s", n, <-s.out)
		}
	}()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.send(t, tc.in)
			// A call after each example proves that the connection still
			// works and, for examples that get no answer, that none came.
			probe := fmt.Sprintf(`{"jsonrpc":"2.0","method":"ping","id":"probe-%d"}`, i)
			s.send(t, probe)
			wantProbe := fmt.Sprintf(`{"jsonrpc":"2.0","id":"probe-%d","result":"pong"}`, i)
			want := []string{normalize(t, wantProbe)}
			got := []string{normalize(t, s.recv(t))}
			if tc.want != "" {
				// Calls run concurrently: the two answers may come in either order.
				want = append(want, normalize(t, tc.want))
				got = append(got, normalize(t, s.recv(t)))
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("in:   %s\ngot:  %s\nwant: %s", tc.in, got, want)
			}
		})
	}
}
