package memory_test

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// Two JSON-RPC connections in one program; either may call the other.
func Example() {
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	cs, _ := ct.Connect(ctx)
	ss, _ := st.Connect(ctx)

	greet := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return "hello from the server", nil
	})
	server := jsonrpc.NewConn(ss, &jsonrpc.Options{Handler: greet})
	client := jsonrpc.NewConn(cs, nil)

	var reply string
	if err := client.Call(ctx, "greet", nil, &reply); err != nil {
		fmt.Println(err)
	}
	fmt.Println(reply)

	client.Close() // the server reads the end of the input and shuts down
	<-server.Done()
	// Output: hello from the server
}
