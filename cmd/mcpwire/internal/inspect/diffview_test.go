package inspect

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// TestReconnectDiffView: after a Reconnect to a server that changed (a
// new version: a tool added, one removed, one whose description and
// schema changed, new instructions), the page lists each change.
func TestReconnectDiffView(t *testing.T) {
	type lookup struct {
		Query string `json:"query" jsonschema:"what to look up"`
	}
	type lookupV2 struct {
		Query string `json:"query" jsonschema:"what to look up"`
		Limit int    `json:"limit,omitempty" jsonschema:"at most this many answers"`
	}
	noop := func(context.Context, *server.Request, lookup) (string, error) { return "", nil }
	noop2 := func(context.Context, *server.Request, lookupV2) (string, error) { return "", nil }
	v1 := server.New(mcp.Implementation{Name: "weather", Version: "1.4.0"}, &server.Options{Instructions: "Forecasts for Europe."})
	v2 := server.New(mcp.Implementation{Name: "weather", Version: "1.5.0"}, &server.Options{Instructions: "Forecasts for Europe and Africa."})
	for _, err := range []error{
		server.AddTool(v1, &mcp.Tool{Name: "forecast", Description: "The forecast of a city"}, noop),
		server.AddTool(v1, &mcp.Tool{Name: "radar", Description: "The radar image of a region"}, noop),
		server.AddTool(v1, &mcp.Tool{Name: "alerts", Description: "The weather alerts of a country"}, noop),
		server.AddTool(v2, &mcp.Tool{Name: "forecast", Description: "The forecast of a city, hour by hour"}, noop2),
		server.AddTool(v2, &mcp.Tool{Name: "alerts", Description: "The weather alerts of a country"}, noop),
		server.AddTool(v2, &mcp.Tool{Name: "air_quality", Description: "The air quality index of a city"}, noop),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := clitest.MemoryTarget(t, v1), clitest.MemoryTarget(t, v2)
	var n atomic.Int32
	in := inspect(t, func(ap *app.App) {
		ap.Connect = func(ctx context.Context, tg *app.Target, l *slog.Logger) (*app.Link, error) {
			if n.Add(1) == 1 {
				return a(ctx, tg, l)
			}
			return b(ctx, tg, l)
		}
	}, "--", "weather-server")
	p := openPage(t, in)
	p.wait(`document.querySelector('#list li[data-key="tool:radar"]')`)
	p.click("#reconnect")
	p.wait(`document.querySelector("#changes") && S.status === "connected" && S.server.info.version === "1.5.0"`)
	changes := p.str(`document.querySelector("#changes").innerText`)
	for _, want := range []string{"1.4.0", "1.5.0", "Forecasts for Europe and Africa.", "air_quality", "radar", "changed tool forecast: description, inputSchema"} {
		contains(t, "the changes", changes, want)
	}
	p.screenshot("inspect-diff.png")
}
