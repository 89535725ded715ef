package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/bench"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/bridge"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/catalog"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/check"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/diff"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/doctor"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/inspect"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/login"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/serve"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/skills"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/talk"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/wire"
)

// families are the verbs of mcpwire, one family per package, in the
// order of the help. A new family is a package with a Family function,
// and one line here.
func families() []app.Family {
	return []app.Family{
		talk.Family(),
		wire.Family(),
		inspect.Family(),
		doctor.Family(),
		diff.Family(),
		login.Family(),
		serve.Family(),
		skills.Family(),
		bridge.Family(),
		bench.Family(),
		check.Family(),
		catalog.Family(),
	}
}

// Main runs mcpwire with the command-line arguments args (without the
// program name) and returns the exit code. It is the whole of package
// main.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := app.New(stdin, stdout, stderr)
	tel, flush := startTelemetry(ctx, a.Stderr) // telemetry.go
	defer flush()
	a.Telemetry = tel
	return a.Execute(ctx, newRootCmd(a, families()...), args)
}

// newRootCmd returns the root command of mcpwire, with the commands of
// families.
func newRootCmd(a *app.App, families ...app.Family) *cobra.Command {
	root := a.NewRoot(families...)
	root.AddCommand(versionCmd(a, mcpwire.ReadBuild()))
	root.Short = "Talk to any MCP server from the command line"
	root.Long = rootLong
	root.Example = rootExample
	return root
}

const rootLong = `mcpwire talks to any Model Context Protocol (MCP) server: it lists and
calls its tools, reads its resources and renders its prompts.

Name the server after --: mcpwire starts that command and speaks MCP over
its standard input and output. Or give its URL with --url: mcpwire speaks
Streamable HTTP, or the older HTTP+SSE transport to a server that offers
only that. Either way it agrees on a protocol revision with the server
(the stateless 2026-07-28 first, then the legacy handshake), unless
--protocol forces one.

Or name a server that Claude Desktop, Cursor, VS Code or Claude Code is
configured with: mcpwire tools @github (or --server github) starts or
reaches it as that host would, with its arguments, environment and
headers. mcpwire servers lists them, and says which files it reads.

mcpwire inspect shows a server in a web page instead, on 127.0.0.1: its
tools as forms, every frame on the wire, its questions answered there.

mcpwire serve runs servers of its own: mcpwire serve filesystem DIR...,
serve git --repository DIR and serve sqlite --db FILE give a host (Claude
Desktop, VS Code) the tools of the official filesystem, git and SQLite
servers, over stdio or Streamable HTTP; serve skills DIR... offers folders
of Agent Skills, which mcpwire skills lists and loads, verified.

A server that requires OAuth authorization needs a login first:
mcpwire login --url URL authorizes mcpwire in your browser and keeps the
token, which the other commands then send to that server.

Exit codes:
  0  success
  1  failure: an error from the server, a timeout, an I/O error
  2  usage: the command line is wrong
  3  the tool ran and reported an error (a result with isError)
  4  the server could not be started or connected, or needs a login`

const rootExample = `  mcpwire tools -- go run ./examples/hello
  mcpwire call echo --args '{"text": "hi"}' -- ./my-server --flag
  mcpwire read file:///notes.txt --json -- npx -y my-mcp-server
  mcpwire tools --url http://localhost:3000/mcp --header 'X-Api-Key=secret'
  mcpwire call search @github --args '{"query": "mcp"}'
  mcpwire inspect -- npx -y @modelcontextprotocol/server-everything
  mcpwire login --url https://mcp.example.com/mcp`
