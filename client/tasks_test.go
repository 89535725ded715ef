package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// taskServer is a server whose tools run as tasks, counting the task
// methods it is sent.
type taskServer struct {
	*server.Server
	mu        sync.Mutex
	calls     map[string]int
	cancelled chan struct{} // closed when the "wait" tool's context ends
}

func (ts *taskServer) count(method string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.calls[method]
}

func newTaskServer(t *testing.T) *taskServer {
	t.Helper()
	ts := &taskServer{calls: map[string]int{}, cancelled: make(chan struct{})}
	counter := func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			ts.mu.Lock()
			ts.calls[req.Method]++
			ts.mu.Unlock()
			return next.Handle(ctx, req)
		})
	}
	ts.Server = server.New(mcp.Implementation{Name: "tasks", Version: "1"}, &server.Options{
		Tasks:      &server.TaskOptions{PollInterval: 10 * time.Millisecond},
		Middleware: []jsonrpc.Middleware{counter},
	})
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	required := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	var once sync.Once
	err := errors.Join(
		server.AddTool(ts.Server, &mcp.Tool{Name: "slow", Execution: optional},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				r.RunAsTask(ctx)
				time.Sleep(30 * time.Millisecond)
				return "done", nil
			}),
		server.AddTool(ts.Server, &mcp.Tool{Name: "ask", Execution: optional},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				r.RunAsTask(ctx)
				res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
				if err != nil {
					return "", err
				}
				return "hello " + res.Content["name"].(string), nil
			}),
		server.AddTool(ts.Server, &mcp.Tool{Name: "broken", Execution: required},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "broken on purpose")
			}),
		server.AddTool(ts.Server, &mcp.Tool{Name: "wait", Execution: optional},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				r.RunAsTask(ctx)
				<-ctx.Done()
				once.Do(func() { close(ts.cancelled) })
				return "", ctx.Err()
			}),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts
}

func dialTasks(t *testing.T, srv *server.Server, opts *client.Options) *client.Session {
	t.Helper()
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, opts).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close(); ss.Wait() })
	return cs
}

func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func TestCallToolFollowsModernTasks(t *testing.T) {
	ts := newTaskServer(t)
	cs := dialTasks(t, ts.Server, &client.Options{
		Tasks: true,
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	ctx := context.Background()
	if !cs.IsModern() {
		t.Fatal("not modern")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
	if err != nil || text(res) != "done" || ts.count(mcp.MethodGetTask) == 0 {
		t.Fatalf("slow: %v %v (%d polls)", res, err, ts.count(mcp.MethodGetTask))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
	if err != nil || text(res) != "hello Ada" || ts.count(mcp.MethodUpdateTask) != 1 {
		t.Fatalf("ask: %v %v (%d updates)", res, err, ts.count(mcp.MethodUpdateTask))
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "broken"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || je.Message != "broken on purpose" {
		t.Errorf("broken: %v", err)
	}
}

func TestCallToolCancelsItsTask(t *testing.T) {
	ts := newTaskServer(t)
	cs := dialTasks(t, ts.Server, &client.Options{Tasks: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CallTool: %v", err)
	}
	select {
	case <-ts.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the task was not cancelled")
	}
	if ts.count(mcp.MethodCancelTask) != 1 {
		t.Errorf("%d tasks/cancel", ts.count(mcp.MethodCancelTask))
	}
}

func TestCallToolWithoutTheTasksOption(t *testing.T) {
	ts := newTaskServer(t)
	cs := dialTasks(t, ts.Server, nil)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
	if err != nil || text(res) != "done" || ts.count(mcp.MethodGetTask) != 0 {
		t.Errorf("an optional tool runs synchronously: %v %v", res, err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "broken"})
	var d mcp.MissingCapabilityData
	if !mcp.DecodeErrorData(err, mcp.CodeMissingRequiredClientCapability, &d) || !d.RequiredCapabilities.HasExtension(mcp.ExtensionTasks) {
		t.Errorf("a required tool: %v", err)
	}
	if _, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "slow"}, 0); err == nil {
		t.Error("CallToolAsTask in the modern era")
	}
}

func TestLegacyTaskMethods(t *testing.T) {
	ts := newTaskServer(t)
	cs := dialTasks(t, ts.Server, &client.Options{Version: mcp.Version20251125})
	ctx := context.Background()
	if cs.ServerCapabilities().Tasks == nil {
		t.Fatal("no tasks capability")
	}
	task, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "slow"}, time.Minute)
	if err != nil || task.Status != mcp.TaskWorking || task.TTL == nil || *task.TTL != 60000 {
		t.Fatalf("CallToolAsTask: %+v %v", task, err)
	}
	if got, err := cs.GetTask(ctx, task.TaskID); err != nil || got.TaskID != task.TaskID {
		t.Errorf("GetTask: %+v %v", got, err)
	}
	res, err := cs.TaskResult(ctx, task.TaskID)
	if err != nil || text(res) != "done" {
		t.Errorf("TaskResult: %+v %v", res, err)
	}
	waiting, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "wait"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for task, err := range cs.Tasks(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.TaskID)
	}
	if len(ids) != 2 || ids[0] != task.TaskID || ids[1] != waiting.TaskID {
		t.Errorf("Tasks: %v", ids)
	}
	if got, err := cs.CancelTask(ctx, waiting.TaskID); err != nil || got.Status != mcp.TaskCancelled {
		t.Errorf("CancelTask: %+v %v", got, err)
	}
	if _, err := cs.CancelTask(ctx, task.TaskID); err == nil {
		t.Error("cancelling a completed task")
	}
	if _, err := cs.TaskResult(ctx, waiting.TaskID); err == nil {
		t.Error("the result of a cancelled task")
	}
}
