// Command floor is the benchmark's floor: a bare JSON-RPC loop on
// encoding/json doing the least work an MCP echo server can do (package
// floor). See package harness for the command line; the HTTP endpoint
// serves both eras (a request whose _meta names a protocol version is
// stateless).
package main

import (
	"net/http"

	"github.com/mcpwire/mcpwire/bench/internal/floor"
	"github.com/mcpwire/mcpwire/bench/internal/harness"
)

func main() {
	harness.Main("floor", harness.Server{
		Stdio: floor.ServeStdio,
		HTTP:  func(harness.Config) http.Handler { return floor.NewHTTPHandler() },
	})
}
