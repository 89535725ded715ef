package stdio_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// A server reads requests from stdin and answers on stdout; here stdin is
// replaced by a string, as in a test. (An MCP server does this loop for
// you, through package jsonrpc.)
func Example() {
	t := stdio.New(&stdio.Options{
		Stdin:  strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"),
		Stdout: os.Stdout,
	})
	ctx := context.Background()
	conn, err := t.Connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	for {
		m, err := conn.Read(ctx)
		if err != nil {
			return // io.EOF: the client closed stdin
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.Method == "ping" {
			conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: []byte(`{}`)})
		}
	}
	// Output: {"jsonrpc":"2.0","id":1,"result":{}}
}
