package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The task fixtures through the mcpwire client, which follows tasks the
// way the suite does (polling tasks/get, answering with tasks/update).
// The wire shapes the tasks-* checks look at are tested in package
// server (tasks_test.go), on the same fixture behaviour.

func newTaskFixtureServer(t *testing.T) *server.Server {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: serverName, Version: serverVersion}, &server.Options{Tasks: taskOptions()})
	if err := registerTaskFixtures(srv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// answerAll accepts every elicitation with the answers the fixtures ask
// for.
func answerAll(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada", "color": "blue", "confirm": true}}, nil
}

func TestTaskFixtures(t *testing.T) {
	t.Parallel()
	srv := newTaskFixtureServer(t)
	cs := connect(t, srv, eras[0], &client.Options{Tasks: true, Elicit: answerAll})
	ctx := testCtx(t)
	for _, c := range []struct{ tool, args, want string }{
		{"greet", `{"name":"World"}`, "Hello, World!"},
		{"slow_compute", `{"seconds":0.3,"label":"pi"}`, "Computed pi in 0.3 seconds"},
		{"confirm_delete", `{"filename":"a.txt"}`, "Deleted a.txt"},
		{"multi_input", `{}`, "Hello, Ada! Favorite color: blue."},
		{"test_tool_with_task", `{}`, "Hello, Ada!"},
	} {
		if got := onlyText(t, callTool(t, ctx, cs, c.tool, c.args)); got != c.want {
			t.Errorf("%s: %q, want %q", c.tool, got, c.want)
		}
	}
	if res := callTool(t, ctx, cs, "failing_job", `{}`); !res.IsError {
		t.Errorf("failing_job: %+v", res)
	}
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "protocol_error_job"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError {
		t.Errorf("protocol_error_job: %v", err)
	}
}

// Without the extension the optional fixtures are synchronous and the
// required ones refused.
func TestTaskFixturesWithoutTheExtension(t *testing.T) {
	t.Parallel()
	srv := newTaskFixtureServer(t)
	cs := connect(t, srv, eras[0], &client.Options{Elicit: answerAll})
	ctx := testCtx(t)
	if got := onlyText(t, callTool(t, ctx, cs, "confirm_delete", `{"filename":"b"}`)); got != "Deleted b" {
		t.Errorf("confirm_delete by multi round-trip: %q", got)
	}
	if got := onlyText(t, callTool(t, ctx, cs, "slow_compute", `{"seconds":0}`)); !strings.HasPrefix(got, "Computed") {
		t.Errorf("slow_compute: %q", got)
	}
	for _, tool := range []string{"failing_job", "test_tool_with_task"} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
		if !mcp.DecodeErrorData(err, mcp.CodeMissingRequiredClientCapability, &mcp.MissingCapabilityData{}) {
			t.Errorf("%s without the extension: %v", tool, err)
		}
	}
}

// In a 2025-11-25 session the client makes the fixtures tasks.
func TestTaskFixturesLegacy(t *testing.T) {
	t.Parallel()
	srv := newTaskFixtureServer(t)
	cs := connect(t, srv, eras[1], &client.Options{Elicit: answerAll})
	ctx := testCtx(t)
	for _, c := range []struct{ tool, args, want string }{
		{"confirm_delete", `{"filename":"c"}`, "Deleted c"},
		{"test_tool_with_task", `{}`, "Hello, Ada!"},
	} {
		task, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: []byte(c.args)}, time.Minute)
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		res, err := cs.TaskResult(ctx, task.TaskID)
		if err != nil || onlyText(t, res) != c.want {
			t.Errorf("%s: %+v %v", c.tool, res, err)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "failing_job"}); err == nil {
		t.Error("failing_job without task")
	}
}
