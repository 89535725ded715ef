package cli

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

const wantPrompts = `greet (Greeting)
  Greets someone.
  Arguments:
    who   required  who to greet
    mood  optional  cheerful or grumpy

plain
  No arguments.
`

func TestRunPrompts(t *testing.T) {
	for _, v := range eras {
		t.Run(string(v), func(t *testing.T) {
			e := newTestEnv(t, testServerOptions{})
			e.app.global.Protocol = v
			if err := runPrompts(context.Background(), e.app, &promptsOptions{}); err != nil {
				t.Fatal(err)
			}
			checkOutput(t, "stdout", e.stdout.String(), wantPrompts)
		})
	}
}

func TestRunPromptsJSON(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	e.app.global.JSON = true
	if err := runPrompts(context.Background(), e.app, &promptsOptions{}); err != nil {
		t.Fatal(err)
	}
	var res mcp.ListPromptsResult
	if err := json.Unmarshal(e.stdout.Bytes(), &res); err != nil || len(res.Prompts) != 2 || len(res.Prompts[0].Arguments) != 2 {
		t.Errorf("%v: %s", err, e.stdout.String())
	}
}

func TestRunPromptsNone(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	e.app.connectTarget = memoryTarget(t, server.New(mcp.Implementation{Name: "empty", Version: "1"}, nil))
	if err := runPrompts(context.Background(), e.app, &promptsOptions{}); err != nil {
		t.Fatal(err)
	}
	checkOutput(t, "stdout", e.stdout.String(), "(no prompts)\n")
}
