package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// Bounds of task polling.
const (
	defaultTaskPoll   = time.Second
	minTaskPoll       = 10 * time.Millisecond
	maxTaskPoll       = 30 * time.Second
	taskCancelTimeout = 5 * time.Second
	maxTaskInputs     = 1000 // questions answered for one task
)

// declareTasks adds the tasks extension to modern capabilities when the
// client follows tasks.
func (c *Client) declareTasks(caps *mcp.ClientCapabilities) {
	if !c.opts.Tasks || caps.HasExtension(mcp.ExtensionTasks) {
		return
	}
	caps.Extensions = maps.Clone(caps.Extensions)
	if caps.Extensions == nil {
		caps.Extensions = make(map[string]json.RawMessage, 1)
	}
	caps.Extensions[mcp.ExtensionTasks] = json.RawMessage("{}")
}

// awaitTask follows the task a modern request was turned into and decodes
// its final result.
func awaitTask[R any](ctx context.Context, s *Session, method string, raw json.RawMessage) (*R, error) {
	if method != mcp.MethodCallTool {
		return nil, fmt.Errorf("mcp client: the server answered %s with a task, which only tools/call may be", method)
	}
	var t mcp.DetailedTask
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("mcp client: decoding the task of %s: %w", method, err)
	}
	if t.TaskID == "" {
		return nil, fmt.Errorf("mcp client: the server answered %s with a task without taskId", method)
	}
	final, err := s.followTask(ctx, &t)
	if err != nil {
		return nil, err
	}
	r := new(R)
	env, err := mcp.ReadResultEnvelope(final)
	if err == nil {
		err = s.decodeModern(final, &env, r)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp client: decoding the result of task %s: %w", t.TaskID, err)
	}
	return r, nil
}

// followTask polls a modern task until it ends, answering its questions,
// and returns its result. It cancels the task when ctx ends or when a
// question cannot be answered.
func (s *Session) followTask(ctx context.Context, t *mcp.DetailedTask) (json.RawMessage, error) {
	id := t.TaskID
	answered := make(map[string]bool)
	// The task of the create result carries no result, error or
	// questions: poll at once if it already ended.
	created := true
	for {
		switch {
		case created && t.Status.IsTerminal():
			t.PollIntervalMs = new(int64) // poll now
		case t.Status == mcp.TaskCompleted:
			if len(t.Result) == 0 {
				return nil, fmt.Errorf("mcp client: task %s completed without a result", id)
			}
			return t.Result, nil
		case t.Status == mcp.TaskFailed:
			if t.Error != nil {
				return nil, t.Error
			}
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: task %s failed: %s", id, t.StatusMessage)
		case t.Status == mcp.TaskCancelled:
			return nil, jsonrpc.Errorf(jsonrpc.CodeCancelled, "Request cancelled: task %s was cancelled: %s", id, t.StatusMessage)
		case t.Status == mcp.TaskInputRequired:
			if err := s.answerTask(ctx, id, t.InputRequests, answered); err != nil {
				s.cancelTask(ctx, id)
				return nil, err
			}
		}
		created = false
		wait := defaultTaskPoll
		if t.PollIntervalMs != nil {
			wait = time.Duration(*t.PollIntervalMs) * time.Millisecond
		}
		timer := time.NewTimer(min(max(wait, minTaskPoll), maxTaskPoll))
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			s.cancelTask(ctx, id)
			return nil, ctx.Err()
		}
		p := &mcp.GetTaskParams{TaskID: id}
		next, err := call[mcp.DetailedTask](ctx, s, mcp.MethodGetTask, p, &p.Meta)
		if err != nil {
			if ctx.Err() != nil {
				s.cancelTask(ctx, id)
			}
			return nil, err
		}
		if next.TaskID != "" && next.TaskID != id {
			return nil, fmt.Errorf("mcp client: tasks/get for %s answered task %s", id, next.TaskID)
		}
		t = next
	}
}

// answerTask answers the questions of a task it has not answered yet,
// with the client's handlers, in one tasks/update.
func (s *Session) answerTask(ctx context.Context, id string, reqs mcp.InputRequests, answered map[string]bool) error {
	responses := make(mcp.InputResponses)
	for key, req := range reqs {
		if answered[key] {
			continue
		}
		if len(answered) >= maxTaskInputs {
			return fmt.Errorf("mcp client: task %s asked more than %d questions", id, maxTaskInputs)
		}
		res, err := s.client.answer(ctx, req)
		if err != nil {
			return err
		}
		if err := responses.Set(key, res); err != nil {
			return err
		}
		answered[key] = true
	}
	if len(responses) == 0 {
		return nil
	}
	p := &mcp.UpdateTaskParams{TaskID: id, InputResponses: responses}
	_, err := call[mcp.EmptyResult](ctx, s, mcp.MethodUpdateTask, p, &p.Meta)
	return err
}

// cancelTask sends tasks/cancel for a task the client gives up on, even
// though ctx may have ended.
func (s *Session) cancelTask(ctx context.Context, id string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), taskCancelTimeout)
	defer cancel()
	p := &mcp.CancelTaskParams{TaskID: id}
	if _, err := call[mcp.EmptyResult](cctx, s, mcp.MethodCancelTask, p, &p.Meta); err != nil {
		s.client.log.Debug("mcp client: cancelling a task", "task", id, "error", err)
	}
}

// errModernTasks is returned by the legacy task methods in the modern era.
var errModernTasks = errors.New("mcp client: in the modern era the server decides which calls are tasks, and CallTool follows them (Options.Tasks)")

// legacyTasks checks that the session speaks the core tasks of 2025-11-25.
func (s *Session) legacyTasks() error {
	if s.modern {
		return errModernTasks
	}
	if !mcp.HasTasks(s.version) {
		return fmt.Errorf("mcp client: revision %s has no tasks", s.version)
	}
	return nil
}

// CallToolAsTask calls a tool as a task (2025-11-25): the server creates
// the task and answers at once; follow it with GetTask, TaskResult and
// CancelTask. ttl asks how long the server keeps the task from its
// creation (0: the server's default). The tool must support tasks
// (mcp.Tool.Execution).
//
// # Tasks
//
// A server may run a tool call as a task: it answers with a task id at
// once, and the outcome comes later.
//
// In the modern era (2026-07-28) the server decides, for requests that
// declare the tasks extension, which a client does with Options.Tasks.
// CallTool hides the task: it polls tasks/get at the interval the server
// suggests (pollIntervalMs, kept between 10 ms and 30 s), answers the
// task's questions (input_required) with the client's Elicit, Sample and
// Roots handlers through tasks/update, and returns the task's final
// result, or its error as a *jsonrpc.Error (code -32006 for a task that
// was cancelled). When ctx ends first, it sends tasks/cancel. The
// questions of a task are answered once each; unlike those of a multi
// round-trip request, the call is not sent again.
//
// In the legacy era (2025-11-25, core and experimental) the client
// decides: CallToolAsTask asks for a task and returns it at once, and
// GetTask, TaskResult (which waits for the end), ListTasks, Tasks and
// CancelTask follow it. While the task runs, the server's questions are
// ordinary requests to the client, answered by the handlers as usual.
func (s *Session) CallToolAsTask(ctx context.Context, params *mcp.CallToolParams, ttl time.Duration) (*mcp.Task, error) {
	if err := s.legacyTasks(); err != nil {
		return nil, err
	}
	p := *params
	p.Task = &mcp.TaskMetadata{}
	if ttl > 0 {
		ms := ttl.Milliseconds()
		p.Task.TTL = &ms
	}
	res, err := call[mcp.CreateTaskResult](ctx, s, mcp.MethodCallTool, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	if res.Task.TaskID == "" {
		return nil, errors.New("mcp client: the server did not create a task")
	}
	return &res.Task, nil
}

// GetTask returns the state of a task (2025-11-25).
func (s *Session) GetTask(ctx context.Context, taskID string) (*mcp.Task, error) {
	if err := s.legacyTasks(); err != nil {
		return nil, err
	}
	p := &mcp.GetTaskParams{TaskID: taskID}
	return call[mcp.Task](ctx, s, mcp.MethodGetTask, p, &p.Meta)
}

// TaskResult waits for a tool-call task to end and returns the tool's
// result, or the error the call failed with (2025-11-25). The result's
// _meta names the task.
func (s *Session) TaskResult(ctx context.Context, taskID string) (*mcp.CallToolResult, error) {
	if err := s.legacyTasks(); err != nil {
		return nil, err
	}
	p := &mcp.GetTaskPayloadParams{TaskID: taskID}
	return call[mcp.CallToolResult](ctx, s, mcp.MethodGetTaskPayload, p, &p.Meta)
}

// ListTasks returns one page of the client's tasks (2025-11-25); see
// Tasks for all.
func (s *Session) ListTasks(ctx context.Context, params *mcp.ListTasksParams) (*mcp.ListTasksResult, error) {
	if err := s.legacyTasks(); err != nil {
		return nil, err
	}
	p := derefOr(params)
	return call[mcp.ListTasksResult](ctx, s, mcp.MethodListTasks, &p, &p.Meta)
}

// Tasks iterates over every task of the client (2025-11-25).
func (s *Session) Tasks(ctx context.Context) iter.Seq2[*mcp.Task, error] {
	return pages(func(c mcp.Cursor) ([]mcp.Task, mcp.Cursor, error) {
		r, err := s.ListTasks(ctx, &mcp.ListTasksParams{Cursor: c})
		if err != nil {
			return nil, "", err
		}
		return r.Tasks, r.NextCursor, nil
	})
}

// CancelTask cancels a task and returns it, cancelled (2025-11-25). A task
// that already ended cannot be cancelled: the server answers -32602.
func (s *Session) CancelTask(ctx context.Context, taskID string) (*mcp.Task, error) {
	if err := s.legacyTasks(); err != nil {
		return nil, err
	}
	p := &mcp.CancelTaskParams{TaskID: taskID}
	return call[mcp.Task](ctx, s, mcp.MethodCancelTask, p, &p.Meta)
}
