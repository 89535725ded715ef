package inspect

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// TestServerEnds: a server process that dies is reported in the page (its
// exit status and last stderr line), its stderr is in Messages, the page
// stays to look at what happened, and calls are refused.
func TestServerEnds(t *testing.T) {
	t.Setenv(envTestServer, "1")
	in := inspect(t, nil, "--", os.Args[0], "-chatty")
	p := openPage(t, in)
	p.click(`#wire-tabs [data-pane="messages"]`)
	p.wait(`document.querySelector("#messages").innerText.includes("testserver: ready on stdio")`)
	p.open("tools", "tool:crash")
	p.click("#call")
	p.wait(`!document.querySelector("#ended").hidden`)
	contains(t, "the banner", p.str(`document.querySelector("#ended").textContent`), "the server exited with status 7: testserver: crashing on purpose")
	if got := p.str(`document.querySelector("#status").className`); got != "dot ended" {
		t.Errorf("the status dot: %q", got)
	}
	p.wait(`document.querySelector("#messages").innerText.includes("testserver: crashing on purpose")`)
	if status, text := p.result(); status != "bad" {
		t.Errorf("the call that crashed the server: %s %q", status, text)
	}
	p.open("tools", "tool:echo")
	_, text := p.call()
	contains(t, "a call after the end", text, "the session with the server has ended")
	contains(t, "inspect's stderr", in.stderr.String(), "the page stays until you interrupt mcpwire")
}

// TestServerEndsSlowly: a server that closes its output, then exits with
// a failure a moment later than the command transport waits for it (1s)
// is reported by its exit status too: the session had ended before
// mcpwire closed it, so the exit is the server's. (It was reported as
// "the server closed the connection" when the exit came after the end of
// the output.)
func TestServerEndsSlowly(t *testing.T) {
	t.Setenv(envTestServer, "slow-exit")
	in := inspect(t, nil, "--", os.Args[0])
	p := openPage(t, in)
	p.open("tools", "tool:crash_slowly")
	p.click("#call")
	p.wait(`!document.querySelector("#ended").hidden`)
	contains(t, "the banner", p.str(`document.querySelector("#ended").textContent`), "the server exited with status 7: slow-exit: exiting in 1.5s")
}

// slowExitServer is the server of TestServerEndsSlowly: its tool
// crash_slowly closes the server's output, and exits with status 7 1.5s
// later.
func slowExitServer() {
	srv := server.New(mcp.Implementation{Name: "slow-exit", Version: "1"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "crash_slowly"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		os.Stdout.Close()
		fmt.Fprintln(os.Stderr, "slow-exit: exiting in 1.5s")
		time.Sleep(1500 * time.Millisecond) // longer than the command transport waits after the output ends
		os.Exit(7)
		return "", nil
	})
	srv.Run(context.Background(), stdio.New(nil))
	os.Exit(0)
}
