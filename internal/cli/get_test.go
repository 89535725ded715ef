package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/mcp"
)

func TestGetParse(t *testing.T) {
	var got *getOptions
	cmds := func(a *app) []*cobra.Command {
		return []*cobra.Command{newGetCmd(a, func(_ context.Context, o *getOptions) error { got = o; return nil })}
	}
	e := newTestEnv(t, testServerOptions{})
	e.app.stdin = strings.NewReader(`{"who": "Ada", "mood": "grumpy"}`)
	if code := e.executeWith(cmds, "get", "greet", "--args", "-", "--", "srv"); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	if got.Prompt != "greet" || len(got.Arguments) != 2 || got.Arguments["who"] != "Ada" || got.Arguments["mood"] != "grumpy" {
		t.Errorf("options %+v", got)
	}

	got = nil
	e = newTestEnv(t, testServerOptions{})
	if code := e.executeWith(cmds, "get", "greet", "--args", `{"who": "Ada", "n": 5}`, "--", "srv"); code != exitUsage || got != nil {
		t.Errorf("a number argument: exit %d, options %+v", code, got)
	}
	checkOutput(t, "stderr", e.stderr.String(), "mcpwire: --args: prompt arguments are strings, but \"n\" is a number (quote it)\n")
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
				e := newTestEnv(t, testServerOptions{})
				e.app.global.Protocol = v
				if err := runGet(context.Background(), e.app, &getOptions{Prompt: tt.prompt, Arguments: tt.args}); err != nil {
					t.Fatal(err)
				}
				checkOutput(t, "stdout", e.stdout.String(), tt.want)
			})
		}
	}
}

func TestRunGetJSON(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	e.app.global.JSON = true
	if err := runGet(context.Background(), e.app, &getOptions{Prompt: "greet", Arguments: map[string]string{"who": "Ada"}}); err != nil {
		t.Fatal(err)
	}
	var res mcp.GetPromptResult
	if err := json.Unmarshal(e.stdout.Bytes(), &res); err != nil || len(res.Messages) != 2 || res.Messages[1].Role != mcp.RoleAssistant {
		t.Errorf("%v: %s", err, e.stdout.String())
	}
}

func TestGetMissingArgument(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	code := e.execute("get", "greet", "--", "srv")
	if code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	checkOutput(t, "stderr", e.stderr.String(), "mcpwire: server error: Invalid params: prompt \"greet\" needs the argument \"who\" (code -32602)\n")
}
