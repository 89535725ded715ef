package talk

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
)

func TestGetParse(t *testing.T) {
	var got *getOptions
	cmds := func(a *app.App) []*cobra.Command {
		return []*cobra.Command{newGetCmd(a, func(_ context.Context, o *getOptions) error { got = o; return nil })}
	}
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Stdin = strings.NewReader(`{"who": "Ada", "mood": "grumpy"}`)
	if code := e.ExecuteWith(cmds, "get", "greet", "--args", "-", "--", "srv"); code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, e.Stderr.String())
	}
	if got.Prompt != "greet" || len(got.Arguments) != 2 || got.Arguments["who"] != "Ada" || got.Arguments["mood"] != "grumpy" {
		t.Errorf("options %+v", got)
	}

	got = nil
	e = newTestEnv(t, clitest.ServerOptions{})
	if code := e.ExecuteWith(cmds, "get", "greet", "--args", `{"who": "Ada", "n": 5}`, "--", "srv"); code != app.ExitUsage || got != nil {
		t.Errorf("a number argument: exit %d, options %+v", code, got)
	}
	clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: --args: prompt arguments are strings, but \"n\" is a number (quote it)\n")
}

func TestRunGet(t *testing.T) {
	tests := []struct {
		prompt string
		args   map[string]string
		want   string
	}{
		{"greet", map[string]string{"who": "Ada"}, "A greeting\n\n[user]\nGreet Ada.\n\n[assistant]\nHello, Ada!\n"},
		{"greet", map[string]string{"who": "Bob", "mood": "grumpy"}, "A greeting\n\n[user]\nGreet Bob.\n\n[assistant]\nOh, it's you, Bob!\n"},
		{"plain", nil, "[user]\n[resource test://readme]\nHello from the test server.\n"},
	}
	for _, v := range eras {
		for _, tt := range tests {
			t.Run(string(v)+"/"+tt.prompt, func(t *testing.T) {
				e := newTestEnv(t, clitest.ServerOptions{})
				e.App.Global.Protocol = v
				if err := runGet(context.Background(), e.App, &getOptions{Prompt: tt.prompt, Arguments: tt.args}); err != nil {
					t.Fatal(err)
				}
				clitest.CheckOutput(t, "stdout", e.Stdout.String(), tt.want)
			})
		}
	}
}

func TestRunGetJSON(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Global.JSON = true
	if err := runGet(context.Background(), e.App, &getOptions{Prompt: "greet", Arguments: map[string]string{"who": "Ada"}}); err != nil {
		t.Fatal(err)
	}
	var res mcp.GetPromptResult
	if err := json.Unmarshal(e.Stdout.Bytes(), &res); err != nil || len(res.Messages) != 2 || res.Messages[1].Role != mcp.RoleAssistant {
		t.Errorf("%v: %s", err, e.Stdout.String())
	}
}

func TestGetMissingArgument(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	code := e.Execute("get", "greet", "--", "srv")
	if code != app.ExitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: server error: Invalid params: prompt \"greet\" needs the argument \"who\" (code -32602)\n")
}
