package transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// A line connection reads one message per line, answers nothing by
// itself, and reports bad lines without ending the stream.
func ExampleNewLineConn() {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		"\n" + // blank lines are skipped
		`{"jsonrpc":"2.0","id":2,"method":"ping",}` + "\r\n" + // not JSON, but its id can be read
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	conn := transport.NewLineConn(in, os.Stdout, nil, nil)
	defer conn.Close()

	ctx := context.Background()
	for {
		m, err := conn.Read(ctx)
		var de *jsonrpc.DecodeError
		switch {
		case errors.Is(err, io.EOF):
			return
		case errors.As(err, &de):
			// A jsonrpc.Conn answers a bad line with this error response.
			conn.Write(ctx, de.Response())
		case err != nil:
			fmt.Println("read:", err)
			return
		default:
			req := m.(*jsonrpc.Request)
			if req.IsCall() {
				conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: []byte(`{}`)})
			} else {
				fmt.Println("notification", req.Method)
			}
		}
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32700,"message":"Parse error: expected a string key at offset 40"}}
	// notification notifications/initialized
}
