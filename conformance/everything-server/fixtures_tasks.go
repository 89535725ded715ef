package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The fixtures of the 10 tasks-* scenarios (the tasks extension
// io.modelcontextprotocol/tasks, SEP-2663; docs/notes/conformance.md
// §5.8). The scenarios run on the stateless wire; the tools also work in
// a 2025-11-25 session, where a client makes them tasks with the task
// member of tools/call.
//
// The server decides what becomes a task. The fixtures do not rely on
// the time threshold (TaskOptions.Threshold): those that the scenarios
// poll call Request.RunAsTask before their work, which makes the call a
// task whenever the request declared the extension, and leaves it
// synchronous otherwise. A required tool (failing_job,
// test_tool_with_task) always answers with a task, or -32021 to a request
// without the extension.

// taskOptions are the task settings of the everything server, for
// server.Options.Tasks: without them the fixtures below are ordinary,
// synchronous tools.
func taskOptions() *server.TaskOptions {
	return &server.TaskOptions{PollInterval: 200 * time.Millisecond} // the scenarios' own polling rate
}

// Bounds and timings of the task fixtures.
const (
	maxComputeSeconds = 300                    // slow_compute works at most this long
	failingJobDelay   = time.Second            // failing_job works this long, then fails
	protocolJobDelay  = 200 * time.Millisecond // protocol_error_job works this long
	taskWorkDelay     = 100 * time.Millisecond // test_tool_with_task works this long as a task
	keyConfirmDelete  = "confirm_delete"       // confirm_delete's question
)

var confirmDeleteSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"confirm":{"type":"boolean","title":"Confirm","description":"Delete the file"}},"required":["confirm"]}`)

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type computeArgs struct {
	Seconds float64 `json:"seconds" jsonschema:"how long to work, 0 to 300 seconds"`
	Label   string  `json:"label,omitempty" jsonschema:"a name for the result"`
}

type deleteArgs struct {
	Filename string `json:"filename" jsonschema:"the file to delete"`
}

// registerTaskFixtures adds the tools of the tasks-* scenarios to srv,
// which must have been created with server.Options.Tasks (taskOptions).
func registerTaskFixtures(srv *server.Server) error {
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	required := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	return errors.Join(
		server.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone, synchronously (never a task)"},
			func(ctx context.Context, r *server.Request, in greetArgs) (string, error) {
				return "Hello, " + in.Name + "!", nil
			}),
		server.AddTool(srv, &mcp.Tool{Name: "slow_compute", Description: "Works for the given number of seconds; runs as a task unless it is 0", Execution: optional},
			slowCompute),
		server.AddTool(srv, &mcp.Tool{Name: "failing_job", Description: "A task that fails as a tool (isError) after a second", Execution: required},
			func(ctx context.Context, r *server.Request, in noArgs) (string, error) {
				if err := pause(ctx, failingJobDelay); err != nil {
					return "", err
				}
				return "", errors.New("the job failed")
			}),
		server.AddTool(srv, &mcp.Tool{Name: "protocol_error_job", Description: "A task that fails with a JSON-RPC error", Execution: optional},
			func(ctx context.Context, r *server.Request, in noArgs) (string, error) {
				r.RunAsTask(ctx)
				if err := pause(ctx, protocolJobDelay); err != nil {
					return "", err
				}
				return "", jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the job failed at the protocol level")
			}),
		server.AddTool(srv, &mcp.Tool{Name: "confirm_delete", Description: "A task that asks the user to confirm a deletion", Execution: optional},
			confirmDelete),
		server.AddTool(srv, &mcp.Tool{Name: "multi_input", Description: "A task that asks two questions at once", Execution: optional},
			multiInput),
		server.AddTool(srv, &mcp.Tool{Name: "test_tool_with_task", Description: "Asks the user's name up front, then runs as a task", Execution: required},
			func(ctx context.Context, r *server.Request, in noArgs) (string, error) {
				var name mcp.ElicitResult
				if err := r.Ask(ctx, nameQuestion(&name)); err != nil { // before the task: a multi round-trip round
					return "", err
				}
				r.RunAsTask(ctx)
				if err := pause(ctx, taskWorkDelay); err != nil {
					return "", err
				}
				return greeting(&name), nil
			}),
	)
}

// slowCompute works for in.Seconds, as a task when it is not 0.
func slowCompute(ctx context.Context, r *server.Request, in computeArgs) (*mcp.CallToolResult, error) {
	if in.Seconds < 0 || in.Seconds > maxComputeSeconds {
		return server.ErrorResult(fmt.Sprintf("seconds must be between 0 and %d", maxComputeSeconds)), nil
	}
	if in.Seconds > 0 {
		r.RunAsTask(ctx)
	}
	if err := pause(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
		return nil, err
	}
	label := in.Label
	if label == "" {
		label = "the result"
	}
	return server.TextResult(fmt.Sprintf("Computed %s in %g seconds", label, in.Seconds)), nil
}

// confirmDelete parks in input_required until the user confirms.
func confirmDelete(ctx context.Context, r *server.Request, in deleteArgs) (string, error) {
	r.RunAsTask(ctx)
	var res mcp.ElicitResult
	q := elicitQuestion(keyConfirmDelete, "Delete "+in.Filename+"?", confirmDeleteSchema, &res)
	if err := r.Ask(ctx, q); err != nil {
		return "", err
	}
	if res.Action == mcp.ElicitAccept && res.Content["confirm"] == true {
		return "Deleted " + in.Filename, nil
	}
	return "Kept " + in.Filename + " (" + describeElicit(&res) + ")", nil
}

// multiInput asks two questions at once, so that a task has two pending
// keys.
func multiInput(ctx context.Context, r *server.Request, in noArgs) (string, error) {
	r.RunAsTask(ctx)
	var name, color mcp.ElicitResult
	err := r.Ask(ctx, nameQuestion(&name),
		elicitQuestion(keyColor, "What is your favorite color?", colorSchema, &color))
	if err != nil {
		return "", err
	}
	c, ok := field(&color, "color")
	if !ok {
		c = "unknown"
	}
	return greeting(&name) + " Favorite color: " + c + ".", nil
}
