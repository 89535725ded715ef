package mcp

import (
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

func TestTaskStatusTransitions(t *testing.T) {
	all := []TaskStatus{TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled}
	allowed := map[TaskStatus][]TaskStatus{
		TaskWorking:       {TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled},
		TaskInputRequired: {TaskWorking, TaskCompleted, TaskFailed, TaskCancelled},
	}
	for _, from := range all {
		for _, to := range all {
			want := false
			for _, x := range allowed[from] {
				want = want || x == to
			}
			if got := from.CanMoveTo(to); got != want {
				t.Errorf("%s.CanMoveTo(%s) = %v, want %v", from, to, got, want)
			}
		}
		if got, want := from.IsTerminal(), allowed[from] == nil; got != want {
			t.Errorf("%s.IsTerminal() = %v", from, got)
		}
	}
	if TaskStatus("paused").CanMoveTo(TaskWorking) || TaskWorking.CanMoveTo("paused") {
		t.Error("unknown status allowed")
	}
}

// The examples of SEP-2663 (tasks extension).
func TestDetailedTaskExamples(t *testing.T) {
	examples := []string{
		`{"resultType":"task","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","statusMessage":"The operation is now in progress.","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,"pollIntervalMs":5000}`,
		`{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"input_required","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":3600000,"pollIntervalMs":5000,"inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}}`,
		`{"resultType":"task","taskId":"786512e2-9e0d-44bd-8f29-789f820fe840","status":"failed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":3600000,"statusMessage":"Tool execution failed: API rate limit exceeded","error":{"code":-32603,"message":"API rate limit exceeded"}}`,
		`{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":null,"pollIntervalMs":5000,"result":{"content":[{"type":"text","text":"Operation completed successfully."}],"isError":false}}`,
	}
	for _, ex := range examples {
		var task DetailedTask
		if err := json.Unmarshal([]byte(ex), &task); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		if canonical(t, out) != canonical(t, []byte(ex)) {
			t.Errorf("round trip:\n got %s\nwant %s", out, ex)
		}
		if task.Status == TaskFailed && (task.Error == nil || task.Error.Code != jsonrpc.CodeInternalError) {
			t.Errorf("failed task error = %+v", task.Error)
		}
	}
	var p ElicitParams
	var task DetailedTask
	json.Unmarshal([]byte(examples[1]), &task)
	if err := json.Unmarshal(task.InputRequests["name"].Params, &p); err != nil || p.Message != "Name?" {
		t.Errorf("input request params = %+v, %v", p, err)
	}
}

func TestTaskShapesConvert(t *testing.T) {
	ttl, poll := int64(60000), int64(5000)
	legacy := Task{TaskID: "t", Status: TaskWorking, CreatedAt: "c", LastUpdatedAt: "u", TTL: &ttl, PollInterval: &poll}
	modern := legacy.Detailed()
	modern.ResultType = ResultTypeTask
	out, _ := json.Marshal(modern)
	if string(out) != `{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u","ttlMs":60000,"pollIntervalMs":5000,"resultType":"task"}` {
		t.Errorf("modern = %s", out)
	}
	*modern.TTLMs = 1
	if back := modern.Task(); *back.TTL != 1 || *legacy.TTL != 60000 {
		t.Error("conversions share storage")
	}
	out, _ = json.Marshal(CreateTaskResult{Task: legacy})
	if string(out) != `{"task":{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u","ttl":60000,"pollInterval":5000}}` {
		t.Errorf("legacy = %s", out)
	}
	failed := DetailedTask{TaskID: "t", Status: TaskFailed, Error: &jsonrpc.Error{Message: "boom"}}
	out, _ = json.Marshal(failed)
	if string(out) != `{"taskId":"t","status":"failed","createdAt":"","lastUpdatedAt":"","ttlMs":null,"error":{"code":-32603,"message":"boom"}}` {
		t.Errorf("failed = %s", out)
	}
}

func TestInputResponses(t *testing.T) {
	r := InputResponses{}
	if err := r.Set("github_login", ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "octocat"}}); err != nil {
		t.Fatal(err)
	}
	var got ElicitResult
	if ok, err := r.Decode("github_login", &got); !ok || err != nil || got.Content["name"] != "octocat" {
		t.Errorf("decode = %+v, %v, %v", got, ok, err)
	}
	if ok, _ := r.Decode("other", &got); ok {
		t.Error("missing key found")
	}
	req, err := NewInputRequest(MethodListRoots, nil)
	if out, _ := json.Marshal(req); err != nil || string(out) != `{"method":"roots/list"}` {
		t.Errorf("roots input request = %s, %v", out, err)
	}
}
