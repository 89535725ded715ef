package filesystem_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/filesystem"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// A filesystem server over one directory, called by a client in the same
// program.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("first\nsecond\nthird\n"), 0o644)

	fsys, err := filesystem.New([]string{dir}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()
	srv, err := fsys.Server(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	ctx := context.Background()
	ct, st := memory.NewPair(nil)
	if _, err := srv.Connect(ctx, st); err != nil {
		log.Fatal(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil).Connect(ctx, ct)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: []byte(`{"path": "notes.txt", "head": 2}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: []byte(`{"path": "../elsewhere.txt"}`)})
	fmt.Println(res.IsError)
	// Output:
	// first
	// second
	// true
}
