package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// The tests of this file express every check of the 10 tasks-* scenarios
// of the conformance suite (docs/notes/conformance.md §5.8), over the
// memory transport with the frames the suite sends; tasks_legacy_test.go
// covers the core tasks of 2025-11-25 and the engine's own rules.

type obj = map[string]any

// Client capabilities the scenarios declare.
var (
	capsTasks   = obj{"elicitation": obj{}, "sampling": obj{}, "extensions": obj{mcp.ExtensionTasks: obj{}}}
	capsExtOnly = obj{"extensions": obj{mcp.ExtensionTasks: obj{}}}
	capsNone    = obj{}
)

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)

// addTaskFixtures registers the tools of §5.8.
func addTaskFixtures(t *testing.T, srv *server.Server) {
	t.Helper()
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	required := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	type greetArgs struct {
		Name string `json:"name"`
	}
	type computeArgs struct {
		Seconds float64 `json:"seconds"`
		Label   string  `json:"label,omitempty"`
	}
	type fileArgs struct {
		Filename string `json:"filename"`
	}
	err := errors.Join(
		server.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets, synchronously"},
			func(ctx context.Context, r *server.Request, in greetArgs) (string, error) {
				return "Hello, " + in.Name + "!", nil
			}),
		server.AddTool(srv, &mcp.Tool{Name: "slow_compute", Description: "Sleeps", Execution: optional},
			func(ctx context.Context, r *server.Request, in computeArgs) (string, error) {
				if err := sleepCtx(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
					return "", err
				}
				return fmt.Sprintf("computed %q in %gs", in.Label, in.Seconds), nil
			}),
		server.AddTool(srv, &mcp.Tool{Name: "failing_job", Description: "Fails as a tool", Execution: required},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				if err := sleepCtx(ctx, time.Second); err != nil {
					return "", err
				}
				return "", errors.New("the job failed")
			}),
		server.AddTool(srv, &mcp.Tool{Name: "protocol_error_job", Description: "Fails with a protocol error", Execution: optional},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				if err := sleepCtx(ctx, 300*time.Millisecond); err != nil {
					return "", err
				}
				return "", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the job broke the protocol"}
			}),
		server.AddTool(srv, &mcp.Tool{Name: "confirm_delete", Description: "Asks before deleting", Execution: optional},
			func(ctx context.Context, r *server.Request, in fileArgs) (string, error) {
				r.RunAsTask(ctx)
				res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Delete " + in.Filename + "?", RequestedSchema: confirmSchema})
				if err != nil {
					return "", err
				}
				if res.Action == mcp.ElicitAccept && res.Content["confirm"] == true {
					return "deleted " + in.Filename, nil
				}
				return "kept " + in.Filename, nil
			}),
		server.AddTool(srv, &mcp.Tool{Name: "multi_input", Description: "Asks two things at once", Execution: optional},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				r.RunAsTask(ctx)
				var a, b mcp.ElicitResult
				err := r.Ask(ctx,
					&server.Question{Key: "first", Method: mcp.MethodElicit, Params: &mcp.ElicitParams{Message: "First?", RequestedSchema: confirmSchema}, Result: &a},
					&server.Question{Key: "second", Method: mcp.MethodElicit, Params: &mcp.ElicitParams{Message: "Second?", RequestedSchema: confirmSchema}, Result: &b})
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("first=%s second=%s", a.Action, b.Action), nil
			}),
		server.AddTool(srv, &mcp.Tool{Name: "test_tool_with_task", Description: "Asks up front, then runs as a task", Execution: required},
			func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
				var res mcp.ElicitResult
				err := r.Ask(ctx, &server.Question{Key: "user_name", Method: mcp.MethodElicit, Result: &res,
					Params: &mcp.ElicitParams{Message: "Your name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}})
				if err != nil {
					return "", err
				}
				r.RunAsTask(ctx)
				if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
					return "", err
				}
				name, _ := res.Content["name"].(string)
				return "Hello, " + name + "!", nil
			}),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// newTaskServer returns a server with tasks enabled (a short poll
// interval unless opts says otherwise) and the §5.8 fixtures; it is
// closed when the test ends.
func newTaskServer(t *testing.T, opts *server.Options) *server.Server {
	t.Helper()
	if opts == nil {
		opts = &server.Options{}
	}
	if opts.Tasks == nil {
		opts.Tasks = &server.TaskOptions{PollInterval: 20 * time.Millisecond}
	}
	srv := server.New(mcp.Implementation{Name: "tasks", Version: "1.0.0"}, opts)
	addTaskFixtures(t, srv)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// A peer is a raw JSON-RPC client of a server session over the memory
// transport: it sends the frames of the conformance suite, records the
// server's notifications and answers its requests.
type peer struct {
	t    *testing.T
	conn *jsonrpc.Conn

	mu     sync.Mutex
	notes  []note
	noted  chan struct{} // closed and replaced when a notification comes
	asks   []note
	answer func(method string, params obj) (any, error)
}

type note struct {
	method string
	params obj
}

func dial(t *testing.T, srv *server.Server) *peer {
	t.Helper()
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{t: t}
	p.conn = jsonrpc.NewConn(c, &jsonrpc.Options{Handler: jsonrpc.HandlerFunc(p.handle)})
	t.Cleanup(func() { p.conn.Close(); ss.Close(); ss.Wait() })
	return p
}

func (p *peer) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var params obj
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return nil, err
		}
	}
	p.mu.Lock()
	answer := p.answer
	if req.IsCall() {
		p.asks = append(p.asks, note{req.Method, params})
	} else {
		p.notes = append(p.notes, note{req.Method, params})
		if p.noted != nil {
			close(p.noted)
			p.noted = nil
		}
	}
	p.mu.Unlock()
	if !req.IsCall() {
		return nil, nil
	}
	if answer == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no answer")
	}
	return answer(req.Method, params)
}

// call sends a request and returns its result, or its error response.
func (p *peer) call(method string, params any) (obj, *jsonrpc.Error) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := p.conn.CallRaw(ctx, method, params)
	if err != nil {
		var e *jsonrpc.Error
		if errors.As(err, &e) {
			return nil, e
		}
		p.t.Fatalf("%s: %v", method, err)
	}
	var res obj
	if err := json.Unmarshal(raw, &res); err != nil {
		p.t.Fatalf("%s: result %s: %v", method, raw, err)
	}
	return res, nil
}

// modern sends a stateless request with the suite's _meta and caps.
func (p *peer) modern(method string, params obj, caps obj) (obj, *jsonrpc.Error) {
	p.t.Helper()
	out := obj{}
	for k, v := range params {
		out[k] = v
	}
	meta := obj{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientInfo:         obj{"name": "conformance-test-client", "version": "1.0.0"},
		mcp.MetaKeyClientCapabilities: caps,
	}
	if m, ok := params["_meta"].(obj); ok {
		for k, v := range m {
			meta[k] = v
		}
	}
	out["_meta"] = meta
	return p.call(method, out)
}

// mustModern is modern for a request that must succeed.
func (p *peer) mustModern(method string, params obj, caps obj) obj {
	p.t.Helper()
	res, err := p.modern(method, params, caps)
	if err != nil {
		p.t.Fatalf("%s %v: error %d %s", method, params, err.Code, err.Message)
	}
	return res
}

// waitTask polls tasks/get, as a client does, at the poll interval the
// server suggests, until want accepts the task's status or limit passes.
func (p *peer) waitTask(id string, caps obj, limit time.Duration, want func(string) bool) obj {
	p.t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		res := p.mustModern(mcp.MethodGetTask, obj{"taskId": id}, caps)
		if s, _ := res["status"].(string); want(s) {
			return res
		}
		poll, _ := res["pollIntervalMs"].(float64)
		next := time.NewTimer(time.Duration(max(poll, 1)) * time.Millisecond)
		select {
		case <-next.C:
		case <-deadline.C:
			next.Stop()
			p.t.Fatalf("task %s still %v after %v: %v", id, res["status"], limit, res)
		}
	}
}

func terminal(s string) bool { return mcp.TaskStatus(s).IsTerminal() }

func is(want string) func(string) bool { return func(s string) bool { return s == want } }

// noKeys fails for each of keys present in m.
func noKeys(t *testing.T, what string, m obj, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; ok {
			t.Errorf("%s has %q: %v", what, k, m)
		}
	}
}

// firstText returns the text of the first content block of a result.
func firstText(res obj) string {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	block, _ := content[0].(obj)
	s, _ := block["text"].(string)
	return s
}

// isTimestamp reports whether v is an ISO 8601 timestamp.
func isTimestamp(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// tasks-lifecycle.
func TestTasksLifecycle(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))

	t.Run("tasks-sync-tool-call", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "greet", "arguments": obj{"name": "World"}}, capsTasks)
		if res["resultType"] == "task" || res["taskId"] != nil || firstText(res) != "Hello, World!" {
			t.Errorf("greet: %v", res)
		}
	})
	var id string
	t.Run("sep-2663-result-type-task-on-create", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 2, "label": "x"}}, capsTasks)
		id, _ = res["taskId"].(string)
		if res["resultType"] != "task" || id == "" || res["status"] == nil {
			t.Fatalf("not a flat task: %v", res)
		}
		if !isTimestamp(res["createdAt"]) || !isTimestamp(res["lastUpdatedAt"]) {
			t.Errorf("timestamps: %v", res)
		}
		noKeys(t, "CreateTaskResult", res, "task", "result", "error", "inputRequests")
	})
	t.Run("sep-2663-tasks-get-status-working", func(t *testing.T) {
		res := p.mustModern(mcp.MethodGetTask, obj{"taskId": id}, capsTasks)
		if res["taskId"] != id || res["status"] == nil {
			t.Errorf("tasks/get: %v", res)
		}
	})
	t.Run("sep-2663-tasks-get-status-completed", func(t *testing.T) {
		res := p.waitTask(id, capsTasks, 10*time.Second, terminal)
		result, _ := res["result"].(obj)
		if res["status"] != "completed" || firstText(result) == "" {
			t.Errorf("terminal: %v", res)
		}
	})
	t.Run("sep-2663-tool-error-uses-completed-status", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "failing_job", "arguments": obj{}}, capsTasks)
		res = p.waitTask(res["taskId"].(string), capsTasks, 10*time.Second, terminal)
		result, _ := res["result"].(obj)
		if res["status"] != "completed" || result["isError"] != true {
			t.Errorf("failing_job: %v", res)
		}
	})
	t.Run("sep-2663-tasks-get-status-failed", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "protocol_error_job", "arguments": obj{}}, capsTasks)
		res = p.waitTask(res["taskId"].(string), capsTasks, 10*time.Second, terminal)
		e, _ := res["error"].(obj)
		_, isCode := e["code"].(float64)
		_, isMsg := e["message"].(string)
		if res["status"] != "failed" || !isCode || !isMsg {
			t.Errorf("protocol_error_job: %v", res)
		}
		noKeys(t, "failed task", res, "result")
	})
	t.Run("sep-2663-cancel-ack-empty-result", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 60}}, capsTasks)
		long := res["taskId"].(string)
		ack := p.mustModern(mcp.MethodCancelTask, obj{"taskId": long}, capsTasks)
		if ack["resultType"] != "complete" {
			t.Errorf("ack: %v", ack)
		}
		noKeys(t, "cancel ack", ack, "taskId", "status", "result", "error", "inputRequests")
		start := time.Now()
		res = p.waitTask(long, capsTasks, 10*time.Second, terminal)
		if res["status"] != "cancelled" || time.Since(start) > time.Second {
			t.Errorf("after cancel, %v in %v", res["status"], time.Since(start))
		}
	})
	t.Run("tasks-cancel-terminal-idempotent-ack", func(t *testing.T) {
		ack, err := p.modern(mcp.MethodCancelTask, obj{"taskId": id}, capsTasks)
		if err != nil || ack["resultType"] != "complete" {
			t.Errorf("cancelling a completed task: %v %v", ack, err)
		}
		noKeys(t, "cancel ack", ack, "taskId", "status", "result", "error")
	})
}

// tasks-capability-negotiation.
func TestTasksCapabilityNegotiation(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	t.Run("tasks-extension-advertised", func(t *testing.T) {
		res := p.mustModern(mcp.MethodDiscover, nil, capsTasks)
		caps, _ := res["capabilities"].(obj)
		ext, _ := caps["extensions"].(obj)
		if _, ok := ext[mcp.ExtensionTasks]; !ok {
			t.Errorf("no tasks extension: %v", caps)
		}
		noKeys(t, "modern capabilities", caps, "tasks")
	})
	t.Run("sep-2663-tasks-methods-non-declaring", func(t *testing.T) {
		for _, m := range []string{mcp.MethodGetTask, mcp.MethodUpdateTask, mcp.MethodCancelTask} {
			_, err := p.modern(m, obj{"taskId": "gate-test", "inputResponses": obj{}}, capsNone)
			if err == nil || err.Code != mcp.CodeMissingRequiredClientCapability {
				t.Errorf("%s without the extension: %v", m, err)
			}
		}
	})
	t.Run("sep-2663-server-rejects-undeclared-client", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0}}, capsNone)
		noKeys(t, "synchronous result", res, "taskId", "task")
		if res["content"] == nil {
			t.Errorf("no content: %v", res)
		}
	})
	t.Run("tasks-per-request-meta-opt-in", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 1}}, capsExtOnly)
		if res["resultType"] != "task" || res["taskId"] == nil {
			t.Errorf("opt-in on one request: %v", res)
		}
	})
}

// tasks-wire-fields and tasks-request-state-removal.
func TestTasksWireFields(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	// Well past the threshold (100 ms): a call whose outcome is ready
	// when the threshold's timer is read may be answered at once, and a
	// loaded machine (-race, 2 cores) delays that read by hundreds of ms.
	created := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 1.5}}, capsTasks)
	id, _ := created["taskId"].(string)
	if id == "" {
		t.Fatalf("no task: %v", created)
	}
	got := p.mustModern(mcp.MethodGetTask, obj{"taskId": id}, capsTasks)
	t.Run("tasks-wire-field-renames", func(t *testing.T) {
		for what, m := range map[string]obj{"create result": created, "tasks/get": got} {
			ttl, present := m["ttlMs"]
			if n, ok := ttl.(float64); !present || ttl != nil && (!ok || n <= 0 || n != float64(int64(n))) {
				t.Errorf("%s: ttlMs %v", what, ttl)
			}
			if poll, ok := m["pollIntervalMs"]; ok {
				if n, isNum := poll.(float64); !isNum || n <= 0 || n != float64(int64(n)) {
					t.Errorf("%s: pollIntervalMs %v", what, poll)
				}
			}
			noKeys(t, what, m, "ttl", "pollInterval")
		}
	})
	t.Run("tasks-create-result-no-request-state", func(t *testing.T) {
		noKeys(t, "create result", created, "requestState")
	})
	t.Run("tasks-get-detailed-no-request-state", func(t *testing.T) {
		noKeys(t, "tasks/get", got, "requestState")
	})
	done := p.waitTask(id, capsTasks, 10*time.Second, terminal)
	t.Run("tasks-no-related-task-meta-on-inlined-result", func(t *testing.T) {
		result, _ := done["result"].(obj)
		meta, _ := result["_meta"].(obj)
		if result == nil || meta[mcp.MetaKeyRelatedTask] != nil {
			t.Errorf("inlined result: %v", result)
		}
	})
}

// tasks-no-early-ttl-expiry: a finished task stays for its TTL, which
// runs from its creation. The clock is synctest's.
func TestTasksNoEarlyTTLExpiry(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := dial(t, newTaskServer(t, nil))
		created := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0.3}}, capsTasks)
		id, _ := created["taskId"].(string)
		ttl, _ := created["ttlMs"].(float64)
		at, _ := created["createdAt"].(string)
		t0, err := time.Parse(time.RFC3339Nano, at)
		if id == "" || ttl <= 1000 || err != nil {
			t.Fatalf("no task, or a TTL too short to test: %v (%v)", created, err)
		}
		p.waitTask(id, capsTasks, 10*time.Second, terminal)
		time.Sleep(500 * time.Millisecond)
		if _, err := p.modern(mcp.MethodGetTask, obj{"taskId": id}, capsTasks); err != nil {
			t.Errorf("gone 500 ms after the end: %v", err)
		}
		expiry := t0.Add(time.Duration(ttl) * time.Millisecond)
		time.Sleep(time.Until(expiry) - time.Millisecond)
		if _, err := p.modern(mcp.MethodGetTask, obj{"taskId": id}, capsTasks); err != nil {
			t.Errorf("gone 1 ms before its TTL: %v", err)
		}
		time.Sleep(2 * time.Millisecond)
		if _, err := p.modern(mcp.MethodGetTask, obj{"taskId": id}, capsTasks); err == nil {
			t.Error("still there 1 ms after its TTL")
		}
	})
}

// tasks-mrtr-input.
func TestTasksMRTRInput(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	var id, key string
	t.Run("sep-2663-tasks-get-status-input-required", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "confirm_delete", "arguments": obj{"filename": "a.txt"}}, capsTasks)
		id, _ = res["taskId"].(string)
		if id == "" {
			t.Fatalf("no task: %v", res)
		}
		res = p.waitTask(id, capsTasks, 5*time.Second, is("input_required"))
		reqs, _ := res["inputRequests"].(obj)
		for k, v := range reqs {
			key = k
			if r, _ := v.(obj); r["method"] != mcp.MethodElicit {
				t.Errorf("input request %s: %v", k, v)
			}
		}
		if len(reqs) != 1 {
			t.Errorf("inputRequests: %v", res)
		}
	})
	t.Run("tasks-mrtr-tasks-update-resumes", func(t *testing.T) {
		ack := p.mustModern(mcp.MethodUpdateTask, obj{"taskId": id, "inputResponses": obj{key: obj{"action": "accept", "content": obj{"confirm": true}}}}, capsTasks)
		if ack["resultType"] != "complete" || len(ack) > 2 {
			t.Errorf("ack: %v", ack)
		}
		res := p.waitTask(id, capsTasks, 10*time.Second, terminal)
		result, _ := res["result"].(obj)
		if res["status"] != "completed" || firstText(result) != "deleted a.txt" {
			t.Errorf("after the answer: %v", res)
		}
	})
	t.Run("tasks-mrtr-partial-fulfillment", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "multi_input", "arguments": obj{}}, capsTasks)
		multi := res["taskId"].(string)
		res = p.waitTask(multi, capsTasks, 5*time.Second, is("input_required"))
		reqs, _ := res["inputRequests"].(obj)
		if len(reqs) < 2 {
			t.Fatalf("want 2 pending keys: %v", res)
		}
		ack := p.mustModern(mcp.MethodUpdateTask, obj{"taskId": multi, "inputResponses": obj{"first": obj{"action": "accept", "content": obj{"confirm": true}}}}, capsTasks)
		if ack["resultType"] != "complete" {
			t.Errorf("ack: %v", ack)
		}
		res = p.mustModern(mcp.MethodGetTask, obj{"taskId": multi}, capsTasks)
		reqs, _ = res["inputRequests"].(obj)
		if res["status"] != "input_required" || reqs["first"] != nil || reqs["second"] == nil {
			t.Errorf("after one answer: %v", res)
		}
		p.mustModern(mcp.MethodUpdateTask, obj{"taskId": multi, "inputResponses": obj{"second": obj{"action": "decline"}}}, capsTasks)
		res = p.waitTask(multi, capsTasks, 10*time.Second, terminal)
		result, _ := res["result"].(obj)
		if res["status"] != "completed" || firstText(result) != "first=accept second=decline" {
			t.Errorf("after both answers: %v", res)
		}
	})
}

// tasks-request-headers: what does not depend on HTTP. The -32020 checks
// (tasks-headers-reject-mismatched-method,
// sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get) are the
// transport's, which validates Mcp-Name against mcp.NameHeaderParam.
func TestTasksRequestHeaders(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	t.Run("tasks-headers-tolerate-mcp-method-on-tools-call", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "greet", "arguments": obj{"name": "sep-2243"}}, capsTasks)
		if res["resultType"] != "complete" || firstText(res) != "Hello, sep-2243!" {
			t.Errorf("greet: %v", res)
		}
	})
	t.Run("sep-2663-routing-headers-accepted-on-tasks-get", func(t *testing.T) {
		for _, m := range []string{mcp.MethodGetTask, mcp.MethodUpdateTask, mcp.MethodCancelTask} {
			if mcp.NameHeaderParam(m) != "taskId" {
				t.Errorf("Mcp-Name of %s mirrors %q", m, mcp.NameHeaderParam(m))
			}
		}
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0.2}}, capsTasks)
		p.mustModern(mcp.MethodGetTask, obj{"taskId": res["taskId"]}, capsTasks)
	})
}

// tasks-dispatch-and-envelope.
func TestTasksDispatchAndEnvelope(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	t.Run("sep-2663-tasks-result-removed-method-not-found", func(t *testing.T) {
		if _, err := p.modern(mcp.MethodGetTaskPayload, obj{"taskId": "x"}, capsTasks); err == nil || err.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("tasks/result: %v", err)
		}
	})
	t.Run("tasks-removed-tasks-list", func(t *testing.T) {
		if _, err := p.modern(mcp.MethodListTasks, obj{}, capsTasks); err == nil || err.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("tasks/list: %v", err)
		}
	})
	t.Run("tasks-server-directed-creation-no-hint", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "failing_job", "arguments": obj{}}, capsTasks)
		if res["resultType"] != "task" || res["taskId"] == nil {
			t.Errorf("failing_job: %v", res)
		}
	})
	t.Run("sep-2663-legacy-task-param-ignored", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "greet", "arguments": obj{"name": "x"}, "task": obj{"ttl": 60000, "pollInterval": 1000}}, capsTasks)
		if res["resultType"] == "task" || res["taskId"] != nil || res["task"] != nil {
			t.Errorf("greet with task: %v", res)
		}
	})
	t.Run("tasks-immediate-result-shortcut", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0}}, capsTasks)
		if res["resultType"] != "task" && res["content"] == nil {
			t.Errorf("slow_compute 0: %v", res)
		}
	})
	t.Run("tasks-result-type-complete-on-non-task-responses", func(t *testing.T) {
		sync := p.mustModern(mcp.MethodCallTool, obj{"name": "greet", "arguments": obj{"name": "x"}}, capsTasks)
		task := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0.5}}, capsTasks)
		get := p.mustModern(mcp.MethodGetTask, obj{"taskId": task["taskId"]}, capsTasks)
		update := p.mustModern(mcp.MethodUpdateTask, obj{"taskId": task["taskId"], "inputResponses": obj{"unknown-key": obj{"ignored": true}}}, capsTasks)
		cancel := p.mustModern(mcp.MethodCancelTask, obj{"taskId": task["taskId"]}, capsTasks)
		for what, m := range map[string]obj{"tools/call": sync, "tasks/get": get, "tasks/update": update, "tasks/cancel": cancel} {
			if m["resultType"] != "complete" {
				t.Errorf("%s: resultType %v", what, m["resultType"])
			}
		}
	})
	t.Run("sep-2663-durable-create-strong-consistency", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0.5}}, capsTasks)
		if _, err := p.modern(mcp.MethodGetTask, obj{"taskId": res["taskId"]}, capsTasks); err != nil {
			t.Errorf("tasks/get right after creation: %v", err)
		}
	})
	t.Run("sep-2663-tasks-get-invalid-task-id-32602", func(t *testing.T) {
		if _, err := p.modern(mcp.MethodGetTask, obj{"taskId": "no-such-task"}, capsTasks); err == nil || err.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("unknown task: %v", err)
		}
	})
}

// tasks-status-notifications is skipped by the suite; the server sends
// notifications/tasks to the listens that name the task.
func TestTasksStatusNotifications(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	res := p.mustModern(mcp.MethodCallTool, obj{"name": "confirm_delete", "arguments": obj{"filename": "b"}}, capsTasks)
	id := res["taskId"].(string)
	if _, err := p.modern(mcp.MethodSubscriptionsListen, obj{"notifications": obj{"taskIds": []string{id}}}, capsNone); err == nil || err.Code != mcp.CodeMissingRequiredClientCapability {
		t.Errorf("listening to tasks without the extension: %v", err)
	}
	meta := obj{mcp.MetaKeyProtocolVersion: "2026-07-28", mcp.MetaKeyClientCapabilities: capsTasks}
	listen, err := p.conn.Start(context.Background(), mcp.MethodSubscriptionsListen,
		obj{"notifications": obj{"taskIds": []string{id, "not-mine"}}, "_meta": meta})
	if err != nil {
		t.Fatal(err)
	}
	defer p.conn.Notify(context.Background(), mcp.NotificationCancelled, obj{"requestId": listen.ID()})
	p.waitNote(mcp.NotificationSubscriptionsAcknowledged, func(n obj) bool {
		f, _ := n["notifications"].(obj)
		ids, _ := f["taskIds"].([]any)
		return len(ids) == 1 && ids[0] == id
	})
	waiting := p.waitTask(id, capsTasks, 5*time.Second, is("input_required"))
	answers := obj{}
	for k := range waiting["inputRequests"].(obj) {
		answers[k] = obj{"action": "accept", "content": obj{"confirm": false}}
	}
	p.mustModern(mcp.MethodUpdateTask, obj{"taskId": id, "inputResponses": answers}, capsTasks)
	n := p.waitNote(mcp.NotificationTasks, func(n obj) bool { return n["taskId"] == id && n["status"] == "completed" })
	result, _ := n["result"].(obj)
	m, _ := n["_meta"].(obj)
	if firstText(result) != "kept b" || m[mcp.MetaKeySubscriptionID] == nil {
		t.Errorf("notification: %v", n)
	}
}

// waitNote waits for a notification method whose params match, within a
// deadline that only a failure reaches.
func (p *peer) waitNote(method string, match func(obj) bool) obj {
	p.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for seen := 0; ; {
		p.mu.Lock()
		for _, n := range p.notes[seen:] {
			if n.method == method && match(n.params) {
				p.mu.Unlock()
				return n.params
			}
		}
		seen = len(p.notes)
		if p.noted == nil {
			p.noted = make(chan struct{})
		}
		noted := p.noted
		p.mu.Unlock()
		select {
		case <-noted:
		case <-deadline.C:
			p.mu.Lock()
			defer p.mu.Unlock()
			p.t.Fatalf("no %s within 10s; got %v", method, p.notes)
			return nil
		}
	}
}

// tasks-required-task-error.
func TestTasksRequiredTaskError(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	_, err := p.modern(mcp.MethodCallTool, obj{"name": "failing_job", "arguments": obj{}}, capsNone)
	t.Run("sep-2663-server-returns-missing-capability-when-required", func(t *testing.T) {
		if err == nil || err.Code != mcp.CodeMissingRequiredClientCapability {
			t.Fatalf("failing_job without the extension: %v", err)
		}
	})
	t.Run("sep-2663-server-returns-missing-capability-data-shape", func(t *testing.T) {
		var d mcp.MissingCapabilityData
		if !mcp.DecodeErrorData(err, mcp.CodeMissingRequiredClientCapability, &d) || !d.RequiredCapabilities.HasExtension(mcp.ExtensionTasks) {
			t.Errorf("data: %s", err.Data)
		}
	})
}

// tasks-mrtr-composition.
func TestTasksMRTRComposition(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	caps := obj{"elicitation": obj{}, "extensions": obj{mcp.ExtensionTasks: obj{}}}
	r1 := p.mustModern(mcp.MethodCallTool, obj{"name": "test_tool_with_task", "arguments": obj{}}, caps)
	reqs, _ := r1["inputRequests"].(obj)
	if r1["resultType"] != "input_required" || r1["taskId"] != nil || len(reqs) == 0 {
		t.Fatalf("round 1: %v", r1)
	}
	var key string
	for key = range reqs {
	}
	r2 := p.mustModern(mcp.MethodCallTool, obj{"name": "test_tool_with_task", "arguments": obj{},
		"inputResponses": obj{key: obj{"action": "accept", "content": obj{"name": "Alice"}}},
		"requestState":   r1["requestState"]}, caps)
	if r2["resultType"] != "task" || r2["taskId"] == nil {
		t.Fatalf("round 2: %v", r2)
	}
	noKeys(t, "round 2", r2, "requestState", "inputRequests")
	done := p.waitTask(r2["taskId"].(string), caps, 10*time.Second, terminal)
	result, _ := done["result"].(obj)
	if done["status"] != "completed" || !strings.Contains(firstText(result), "Alice") {
		t.Errorf("task: %v", done)
	}
}
