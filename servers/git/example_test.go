package git_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servers/git"
)

// The git tools added to a server of your own, next to its other tools.
func ExampleRepository_Register() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		log.Fatal(err)
	}
	repo, err := git.Open(context.Background(), dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	srv := server.New(mcp.Implementation{Name: "my-server", Version: "1.0.0"}, nil)
	if err := repo.Register(srv); err != nil {
		log.Fatal(err)
	}
	for _, t := range srv.Tools() {
		fmt.Println(t.Name, *t.Annotations.ReadOnlyHint)
	}
	// Output:
	// git_status true
	// git_diff_unstaged true
	// git_diff_staged true
	// git_diff true
	// git_commit false
	// git_add false
	// git_reset false
	// git_log true
	// git_create_branch false
	// git_checkout false
	// git_show true
	// git_branch true
	// git_fetch false
	// git_pull false
	// git_stash false
	// git_tag false
	// git_merge false
}
