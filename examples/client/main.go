// Command client starts an MCP server as a subprocess, lists its tools and
// calls one:
//
//	go run ./examples/client -- go run ./examples/hello
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/command"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("client: ")
	tool := flag.String("tool", "greet", "tool to call")
	args := flag.String("args", `{"name":"world"}`, "tool arguments (a JSON object)")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: client [-tool NAME] [-args JSON] -- SERVER-COMMAND [ARGS...]")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	c := client.New(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	sess, err := c.Connect(ctx, command.New(cmd, nil))
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	fmt.Printf("connected to %s %s (protocol %s)\n", sess.ServerInfo().Name, sess.ServerInfo().Version, sess.ProtocolVersion())

	for t, err := range sess.Tools(ctx) {
		var dropped *client.DroppedToolError
		if errors.As(err, &dropped) { // listed, but unusable: say so and go on
			log.Print(dropped)
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("tool %s: %s\n", t.Name, t.Description)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: *tool, Arguments: json.RawMessage(*args)})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			fmt.Println(t.Text)
		}
	}
	if res.IsError {
		os.Exit(1)
	}
}
