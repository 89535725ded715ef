package inspect

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// floodServer is a server over stdio (the test binary, envTestServer
// "flood") with two tools that make it send many frames while they run:
// flood, 6,000 progress notifications of a few bytes; big, 300 of 64 KiB
// each (19 MiB).
func floodServer() {
	srv := server.New(mcp.Implementation{Name: "flood-server", Version: "1.0.0"}, nil)
	progress := func(n int, message string) func(context.Context, *server.Request, struct{}) (string, error) {
		return func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
			for i := range n {
				if err := r.Progress(ctx, float64(i+1), float64(n), message); err != nil {
					return "", err
				}
			}
			return "done", nil
		}
	}
	server.AddTool(srv, &mcp.Tool{Name: "flood", Description: "6,000 progress notifications"}, progress(6000, ""))
	server.AddTool(srv, &mcp.Tool{Name: "big", Description: "300 progress notifications of 64 KiB"}, progress(300, strings.Repeat("x", 64<<10)))
	srv.Run(context.Background(), stdio.New(nil))
	os.Exit(0)
}

// TestFrameListBounded: the page kept every frame of the session in its
// frame list (only the rows shown were cut at 5,000), the frame and its
// parsed message, so that a server sending frames without end grew the
// page without end. The list now keeps at most 5,000 frames and 16 MiB
// of them, the oldest dropped with their rows, and says above the list
// how many were dropped.
func TestFrameListBounded(t *testing.T) {
	t.Setenv(envTestServer, "flood")
	in := inspect(t, nil, "--", os.Args[0])
	p := openPage(t, in)
	type kept struct {
		Frames, Rows, Bytes int
		Note                string
	}
	measure := func() kept {
		var k kept
		p.js(`({frames: frameList.length, rows: document.querySelectorAll("#frames > li.frame").length,
			bytes: frameList.reduce((n, f) => n + f.size, 0), note: (document.querySelector("#frames-note") || {}).textContent || ""})`, &k)
		return k
	}
	call := func(tool string) {
		var last int
		p.js(`frameList.length ? frameList[frameList.length - 1].jid : 0`, &last)
		answered := fmt.Sprintf(`(() => { const f = frameList[frameList.length - 1]; return f && f.jid > %d && f.kind === "response" && f.rec.method === "tools/call"; })()`, last)
		p.open("tools", "tool:"+tool)
		p.click(`#wire-tabs [data-pane=messages]`) // the list of frames hidden: no layout for each frame
		p.click("#call")
		// The frames come on the event stream, the answer of the call last;
		// thousands of them take a while on a loaded machine.
		ctx, cancel := context.WithTimeout(p.ctx, 4*time.Minute)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](answered, chromedp.WithPollingTimeout(4*time.Minute), chromedp.WithPollingInterval(time.Second))); err != nil {
			p.fail("the answer of %s: %v", tool, err)
		}
	}
	call("flood")
	k := measure()
	t.Logf("after 6,000 progress notifications: %+v", k)
	if k.Frames > 5000 || k.Rows > 5000 || k.Frames < 4000 || !strings.Contains(k.Note, "dropped") {
		t.Errorf("after 6,000 progress notifications the page keeps %d frames and %d rows, and notes %q; want at most 5,000, and a note of those dropped", k.Frames, k.Rows, k.Note)
	}

	call("big")
	k = measure()
	t.Logf("after 19 MiB of progress notifications: frames %d, rows %d, %d bytes, %q", k.Frames, k.Rows, k.Bytes, k.Note)
	if k.Bytes > 16<<20 || k.Bytes < 8<<20 || !strings.Contains(k.Note, "dropped") {
		t.Errorf("after 19 MiB of progress notifications the page keeps %d bytes of frames; want at most 16 MiB", k.Bytes)
	}
}
