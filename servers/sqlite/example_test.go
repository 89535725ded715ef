package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servers/sqlite"
)

// The SQLite tools added, read-only, to a server of your own.
func ExampleDatabase_Register() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "shop.db")
	rw, err := sqlite.Open(context.Background(), path, nil) // creates the file
	if err != nil {
		log.Fatal(err)
	}
	rw.Close()

	db, err := sqlite.Open(context.Background(), path, &sqlite.Options{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	srv := server.New(mcp.Implementation{Name: "my-server", Version: "1.0.0"}, nil)
	if err := db.Register(srv); err != nil {
		log.Fatal(err)
	}
	for _, t := range srv.Tools() {
		fmt.Println(t.Name, *t.Annotations.ReadOnlyHint)
	}
	// Output:
	// read_query true
	// list_tables true
	// describe_table true
	// append_insight false
}
