package mcp

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Tasks come in two shapes. The core, experimental tasks of
// schema/2025-11-25 use Task (ttl, pollInterval, nested in
// CreateTaskResult). The 2026-07-28 extension io.modelcontextprotocol/tasks
// (SEP-2663) uses DetailedTask (ttlMs, pollIntervalMs, flat results marked
// resultType "task", inline inputRequests, result and error). TaskStatus
// and its transitions are shared. Both count time in milliseconds, and
// Task.Detailed and DetailedTask.Task convert between them.

// TaskStatus is the state of a task.
type TaskStatus string

// The task states. Completed, failed and cancelled are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// IsTerminal reports whether s is final: completed, failed or cancelled.
func (s TaskStatus) IsTerminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// CanMoveTo reports whether a task may go from s to next. Working and
// input_required may move to each other and to any terminal state;
// terminal states never change. Staying in the same state is not a move
// (a task may still update its statusMessage without moving).
func (s TaskStatus) CanMoveTo(next TaskStatus) bool {
	switch s {
	case TaskWorking:
		return next == TaskInputRequired || next.IsTerminal()
	case TaskInputRequired:
		return next == TaskWorking || next.IsTerminal()
	}
	return false
}

// TaskMetadata asks for task-augmented execution (2025-11-25): the task
// member of CallToolParams, CreateMessageParams and ElicitParams.
type TaskMetadata struct {
	// TTL is the requested retention from creation, in milliseconds.
	TTL *int64 `json:"ttl,omitempty"`
}

// Task is the state of a 2025-11-25 task. It is also the result of
// tasks/get and tasks/cancel and the params of notifications/tasks/status,
// hence Meta.
type Task struct {
	TaskID string     `json:"taskId"`
	Status TaskStatus `json:"status"`
	// StatusMessage explains the state (why it failed, ...).
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps, kept as sent.
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is the retention from creation in milliseconds; nil means
	// unlimited and is written as null (the member is required).
	TTL *int64 `json:"ttl"`
	// PollInterval suggests how often to poll, in milliseconds.
	PollInterval *int64 `json:"pollInterval,omitempty"`
	Meta         Meta   `json:"_meta,omitempty"`
}

// TaskStatusNotificationParams are the params of
// notifications/tasks/status (2025-11-25): the whole task.
type TaskStatusNotificationParams = Task

// CreateTaskResult answers a task-augmented request (2025-11-25).
type CreateTaskResult struct {
	Task       Task       `json:"task"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// GetTaskParams are the params of tasks/get (both shapes).
type GetTaskParams struct {
	TaskID string      `json:"taskId"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// GetTaskPayloadParams are the params of tasks/result (2025-11-25), whose
// result is exactly what the original request would have returned, with
// _meta[MetaKeyRelatedTask].
type GetTaskPayloadParams struct {
	TaskID string      `json:"taskId"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// CancelTaskParams are the params of tasks/cancel (both shapes).
type CancelTaskParams struct {
	TaskID string      `json:"taskId"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// ListTasksParams are the params of tasks/list (2025-11-25).
type ListTasksParams struct {
	Cursor Cursor      `json:"cursor,omitempty"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// ListTasksResult answers tasks/list (2025-11-25).
type ListTasksResult struct {
	Tasks      []Task     `json:"tasks"`
	NextCursor Cursor     `json:"nextCursor,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing tasks as [] when empty.
func (r ListTasksResult) MarshalJSON() ([]byte, error) {
	type plain ListTasksResult
	if r.Tasks == nil {
		r.Tasks = []Task{}
	}
	return json.Marshal(plain(r))
}

// DetailedTask is the state of a task of the 2026-07-28 tasks extension.
// The same type serves as:
//   - the result of a request the server turned into a task
//     (CreateTaskResult; ResultType ResultTypeTask);
//   - the result of tasks/get (ResultType ResultTypeComplete);
//   - the params of notifications/tasks (no ResultType).
type DetailedTask struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     string     `json:"createdAt"`
	LastUpdatedAt string     `json:"lastUpdatedAt"`
	// TTLMs is the retention from creation in milliseconds; nil means
	// unlimited and is written as null (the member is required).
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs suggests how often to poll, in milliseconds.
	PollIntervalMs *int64 `json:"pollIntervalMs,omitempty"`
	// InputRequests lists what the task waits for (status input_required);
	// the client answers with tasks/update.
	InputRequests InputRequests `json:"inputRequests,omitempty"`
	// Result is the final result of the original request, verbatim
	// (status completed, including tool results with isError).
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error the request failed with (status failed).
	Error      *jsonrpc.Error `json:"-"`
	Meta       Meta           `json:"_meta,omitempty"`
	ResultType ResultType     `json:"resultType,omitempty"`
}

// wireError is the JSON shape of a JSON-RPC error object.
type wireError struct {
	Code    jsonrpc.Code    `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (t DetailedTask) MarshalJSON() ([]byte, error) {
	type plain DetailedTask
	w := struct {
		plain
		Error *wireError `json:"error,omitempty"`
	}{plain: plain(t)}
	if t.Error != nil {
		code := t.Error.Code
		if code == 0 {
			code = jsonrpc.CodeInternalError
		}
		w.Error = &wireError{Code: code, Message: t.Error.Message, Data: t.Error.Data}
	}
	return json.Marshal(w)
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *DetailedTask) UnmarshalJSON(data []byte) error {
	type plain DetailedTask
	var w struct {
		plain
		Error *wireError `json:"error"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = DetailedTask(w.plain)
	if w.Error != nil {
		t.Error = &jsonrpc.Error{Code: w.Error.Code, Message: w.Error.Message, Data: w.Error.Data}
	}
	return nil
}

// UpdateTaskParams are the params of tasks/update (tasks extension): the
// client's answers to a task's inputRequests.
type UpdateTaskParams struct {
	TaskID         string         `json:"taskId"`
	InputResponses InputResponses `json:"inputResponses"`
	Meta           RequestMeta    `json:"_meta,omitzero"`
}

// MarshalJSON implements json.Marshaler, writing inputResponses as {} when
// empty.
func (p UpdateTaskParams) MarshalJSON() ([]byte, error) {
	type plain UpdateTaskParams
	if p.InputResponses == nil {
		p.InputResponses = InputResponses{}
	}
	return json.Marshal(plain(p))
}

// Detailed returns t in the shape of the tasks extension, without Meta
// (results and notifications carry their own).
func (t *Task) Detailed() DetailedTask {
	return DetailedTask{
		TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt,
		TTLMs: cloneInt(t.TTL), PollIntervalMs: cloneInt(t.PollInterval),
	}
}

// Task returns t in the 2025-11-25 shape, dropping what that shape cannot
// hold (input requests, result, error, Meta, ResultType).
func (t *DetailedTask) Task() Task {
	return Task{
		TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt,
		TTL: cloneInt(t.TTLMs), PollInterval: cloneInt(t.PollIntervalMs),
	}
}

func cloneInt(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
