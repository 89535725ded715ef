package main

import (
	"os"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
