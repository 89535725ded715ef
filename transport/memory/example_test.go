package memory_test

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
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

// Every frame that crosses the pair, as the client end sees it: here
// printed as it goes, with the method of the request each response
// answers. transport.LogFrames does the same into a *slog.Logger.
func ExampleOptions_observer() {
	show := transport.ObserverFunc(func(f *transport.Frame) {
		fmt.Printf("%-8s %-5s %s\n", f.Direction, f.Method, f.Raw)
	})
	ct, st := memory.NewPair(&memory.Options{Observer: show})
	ctx := context.Background()
	cs, _ := ct.Connect(ctx)
	ss, _ := st.Connect(ctx)
	server := jsonrpc.NewConn(ss, &jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return "pong", nil
	})})
	client := jsonrpc.NewConn(cs, nil)
	client.Call(ctx, "ping", nil, nil)
	client.Close()
	<-server.Done()
	// Output:
	// sent     ping  {"jsonrpc":"2.0","id":1,"method":"ping"}
	// received ping  {"jsonrpc":"2.0","id":1,"result":"pong"}
}
