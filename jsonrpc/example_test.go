package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// chanStream is a Stream over channels of encoded frames, for examples.
type chanStream struct {
	in, out chan []byte
	once    *sync.Once // shared by both ends
	done    chan struct{}
}

func pair() (*chanStream, *chanStream) {
	ab, ba, done, once := make(chan []byte, 8), make(chan []byte, 8), make(chan struct{}), new(sync.Once)
	return &chanStream{in: ba, out: ab, done: done, once: once}, &chanStream{in: ab, out: ba, done: done, once: once}
}

func (s *chanStream) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case f := <-s.in:
		return jsonrpc.Decode(f, nil)
	case <-s.done:
		return nil, io.EOF
	}
}

func (s *chanStream) Write(ctx context.Context, m jsonrpc.Message) error {
	b, err := jsonrpc.Encode(m)
	if err != nil {
		return err
	}
	select {
	case s.out <- b:
		return nil
	case <-s.done:
		return jsonrpc.ErrClosed
	}
}

func (s *chanStream) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

// Two connections talk to each other: the handler returns a result or an
// error, and the engine writes the response.
func ExampleNewConn() {
	a, b := pair()
	server := jsonrpc.NewConn(b, &jsonrpc.Options{Handler: jsonrpc.HandlerFunc(
		func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != "add" {
				return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "")
			}
			var args [2]int
			if err := json.Unmarshal(req.Params, &args); err != nil {
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "want [a, b]: %v", err)
			}
			return args[0] + args[1], nil
		})})
	defer server.Close()
	client := jsonrpc.NewConn(a, nil)
	defer client.Close()

	var sum int
	err := client.Call(context.Background(), "add", []int{40, 2}, &sum)
	fmt.Println(sum, err)
	err = client.Call(context.Background(), "mul", []int{6, 7}, nil)
	fmt.Println(jsonrpc.ErrorCode(err))
	// Output:
	// 42 <nil>
	// Method not found
}

// Decode is strict: a frame that breaks a rule of the specification is
// answered with the right error, and the id when it could be read.
func ExampleDecode() {
	for _, frame := range []string{
		`{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":7}`,
		`{"jsonrpc":"2.0","Method":"sum","id":8}`,
		`{"jsonrpc":"2.0","method":"sum","id":9,"id":10}`,
		`{"jsonrpc":"2.0","method":"sum"`,
	} {
		m, err := jsonrpc.Decode([]byte(frame), nil)
		if err != nil {
			resp, _ := jsonrpc.Encode(err.(*jsonrpc.DecodeError).Response())
			fmt.Println(string(resp))
			continue
		}
		fmt.Printf("%T %s\n", m, m.(*jsonrpc.Request).Method)
	}
	// Output:
	// *jsonrpc.Request sum
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: unknown member \"Method\""}}
	// {"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid Request: duplicate key \"id\""}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unterminated object"}}
}
