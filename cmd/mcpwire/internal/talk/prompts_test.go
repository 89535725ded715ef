package talk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
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
			e := newTestEnv(t, clitest.ServerOptions{})
			e.App.Global.Protocol = v
			if err := runPrompts(context.Background(), e.App, &promptsOptions{}); err != nil {
				t.Fatal(err)
			}
			clitest.CheckOutput(t, "stdout", e.Stdout.String(), wantPrompts)
		})
	}
}

func TestRunPromptsJSON(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Global.JSON = true
	if err := runPrompts(context.Background(), e.App, &promptsOptions{}); err != nil {
		t.Fatal(err)
	}
	var res mcp.ListPromptsResult
	if err := json.Unmarshal(e.Stdout.Bytes(), &res); err != nil || len(res.Prompts) != 2 || len(res.Prompts[0].Arguments) != 2 {
		t.Errorf("%v: %s", err, e.Stdout.String())
	}
}

func TestRunPromptsNone(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Connect = clitest.MemoryTarget(t, server.New(mcp.Implementation{Name: "empty", Version: "1"}, nil))
	if err := runPrompts(context.Background(), e.App, &promptsOptions{}); err != nil {
		t.Fatal(err)
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), "(no prompts)\n")
}
