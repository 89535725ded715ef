// Command apps is an MCP server with an App (the MCP Apps extension,
// SEP-1865): the tool roll_dice comes with an interactive interface, an
// HTML page a host renders in a sandbox next to the tool's result. The
// page shows the roll, and its button calls reroll, a tool only the App
// may call (it is hidden from the model), showing the server's answer.
//
// The page is built on the official App SDK, which the server inlines
// from the npm package (the sandbox lets the page load nothing):
//
//	npm install @modelcontextprotocol/ext-apps@2.0.4
//	export EXT_APPS=$PWD/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js
//	go run ./cmd/mcpwire inspect -- go run ./examples/apps
//
// In the inspector, call roll_dice: the App appears under the result.
// Over HTTP instead of stdio: go run ./examples/apps -http 127.0.0.1:8080.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

//go:embed app.html
var page string

// viewURI names the App's interface.
const viewURI = "ui://dice/view"

// RollArgs are the arguments of both tools.
type RollArgs struct {
	Sides int `json:"sides,omitempty" jsonschema:"the number of faces, 2 to 120 (default 6)"`
}

// Roll is the structured result of both tools: what the App shows.
type Roll struct {
	Value int `json:"value"`
	Sides int `json:"sides"`
}

// roll rolls a die: the text is for the model (and hosts without Apps),
// the structured content for the App.
func roll(_ context.Context, _ *server.Request, in RollArgs) (*mcp.CallToolResult, error) {
	sides := in.Sides
	if sides == 0 {
		sides = 6
	}
	if sides < 2 || sides > 120 {
		return nil, fmt.Errorf("sides must be 2 to 120, not %d", sides)
	}
	r := Roll{Value: 1 + rand.IntN(sides), Sides: sides}
	sc, _ := json.Marshal(r) // two ints always marshal
	return &mcp.CallToolResult{
		Content:           mcp.ContentList{&mcp.TextContent{Text: fmt.Sprintf("Rolled a %d on a d%d.", r.Value, r.Sides)}},
		StructuredContent: sc,
	}, nil
}

// newServer returns the server, its App built on the SDK bundle sdk (as
// sdkModule prepared it).
func newServer(sdk string) (*server.Server, error) {
	srv := server.New(mcp.Implementation{Name: "dice", Version: "1.0.0"}, &server.Options{
		Instructions: "Rolls dice. roll_dice shows an interactive die in hosts that render MCP Apps.",
	})
	border := true
	err := srv.AddApp(&server.App{
		URI: viewURI, Name: "dice-view", Title: "Dice",
		Description: "Shows a roll and rolls again",
		HTML:        strings.Replace(page, "{{SDK}}", sdk, 1),
		UI:          mcp.AppResourceMeta{PrefersBorder: &border}, // no CSP: the page reaches nothing
	})
	if err != nil {
		return nil, err
	}
	for _, t := range []struct {
		name, desc string
		vis        []mcp.AppVisibility
	}{
		{"roll_dice", "Rolls a die and shows it", nil},
		{"reroll", "Rolls again (for the App's button)", []mcp.AppVisibility{mcp.AppVisibilityApp}},
	} {
		tool := &mcp.Tool{Name: t.name, Description: t.desc}
		mcp.SetAppOfTool(tool, mcp.AppToolMeta{ResourceURI: viewURI, Visibility: t.vis})
		if err := server.AddTool(srv, tool, roll); err != nil {
			return nil, err
		}
	}
	return srv, nil
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("apps: ") // stderr only: stdout carries protocol messages
	sdkPath := flag.String("sdk", os.Getenv("EXT_APPS"), "the App SDK: app-with-deps.js of @modelcontextprotocol/ext-apps 2.0.x (default $EXT_APPS)")
	addr := flag.String("http", "", "serve Streamable HTTP on this address (such as 127.0.0.1:8080) instead of stdio")
	flag.Parse()
	sdk, err := readSDK(*sdkPath)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := newServer(sdk)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		if err := srv.Run(ctx, stdio.New(nil)); err != nil {
			log.Fatal(err)
		}
		return
	}
	hs := &http.Server{Addr: *addr, Handler: streamable.NewHandler(srv, nil), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	log.Printf("serving http://%s/", *addr)
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
