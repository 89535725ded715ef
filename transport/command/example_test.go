package command_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/command"
)

// Start a server and shut it down; its stderr goes to a logger.
func ExampleNew() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cmd := exec.Command("npx", "-y", "@modelcontextprotocol/server-everything")
	t := command.New(cmd, &command.Options{Logger: logger})

	ctx := context.Background()
	conn, err := t.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	// An MCP client would run over conn; this one only reads.
	c := jsonrpc.NewConn(conn, nil)
	<-c.Done()
	if err := conn.ExitError(); err != nil {
		fmt.Println(err) // command: npx (pid 4242) exited with status 1; ...
	}
}

// A command-line tool reports a server that died.
func ExampleConn_ExitError() {
	t := command.New(exec.Command("my-mcp-server"), nil)
	conn, err := t.Start(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	for {
		_, err := conn.Read(context.Background())
		if errors.Is(err, io.EOF) {
			if err := conn.ExitError(); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			return
		}
	}
}
