package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// The core tasks of 2025-11-25, and the rules of the engine: ownership,
// expiry, bounds, the end of sessions and of the server.

// initialize opens a legacy session in revision v.
func (p *peer) initialize(v mcp.Version) obj {
	p.t.Helper()
	res, err := p.call(mcp.MethodInitialize, obj{
		"protocolVersion": v,
		"capabilities":    obj{"elicitation": obj{}},
		"clientInfo":      obj{"name": "legacy", "version": "1"},
	})
	if err != nil {
		p.t.Fatalf("initialize: %v", err)
	}
	if err := p.conn.Notify(context.Background(), mcp.NotificationInitialized, obj{}); err != nil {
		p.t.Fatal(err)
	}
	return res
}

// mustCall is call for a request that must succeed.
func (p *peer) mustCall(method string, params obj) obj {
	p.t.Helper()
	res, err := p.call(method, params)
	if err != nil {
		p.t.Fatalf("%s %v: error %d %s", method, params, err.Code, err.Message)
	}
	return res
}

// createTask makes a task-augmented tools/call and returns the task.
func (p *peer) createTask(name string, args obj, ttl int) obj {
	p.t.Helper()
	res := p.mustCall(mcp.MethodCallTool, obj{"name": name, "arguments": args, "task": obj{"ttl": ttl}})
	task, _ := res["task"].(obj)
	if task == nil || task["taskId"] == nil {
		p.t.Fatalf("no task: %v", res)
	}
	return task
}

type principalKey struct{}

// dialAs connects a session whose requests come from principal.
func dialAs(t *testing.T, srv *server.Server, principal string) *peer {
	t.Helper()
	ct, st := memory.NewPair(nil)
	ctx := context.WithValue(context.Background(), principalKey{}, principal)
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

func principalOf(ctx context.Context) string {
	s, _ := ctx.Value(principalKey{}).(string)
	return s
}

func TestLegacyTaskFlow(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	init := p.initialize(mcp.Version20251125)
	caps, _ := init["capabilities"].(obj)
	tasks, _ := caps["tasks"].(obj)
	req, _ := tasks["requests"].(obj)
	tools, _ := req["tools"].(obj)
	if tasks["list"] == nil || tasks["cancel"] == nil || tools["call"] == nil {
		t.Errorf("tasks capability: %v", caps)
	}
	if ext, _ := caps["extensions"].(obj); ext[mcp.ExtensionTasks] != nil {
		t.Errorf("a legacy session is offered the extension: %v", caps)
	}

	task := p.createTask("slow_compute", obj{"seconds": 0.3, "label": "x"}, 60000)
	id := task["taskId"].(string)
	if task["status"] != "working" || task["ttl"] != 60000.0 || task["pollInterval"] != 20.0 || !isTimestamp(task["createdAt"]) {
		t.Errorf("created: %v", task)
	}
	got := p.mustCall(mcp.MethodGetTask, obj{"taskId": id})
	if got["taskId"] != id || got["status"] != "working" || !isTimestamp(got["lastUpdatedAt"]) {
		t.Errorf("tasks/get: %v", got)
	}
	list := p.mustCall(mcp.MethodListTasks, obj{})
	if l, _ := list["tasks"].([]any); len(l) != 1 || l[0].(obj)["taskId"] != id {
		t.Errorf("tasks/list: %v", list)
	}
	res := p.mustCall(mcp.MethodGetTaskPayload, obj{"taskId": id}) // blocks until the end
	meta, _ := res["_meta"].(obj)
	related, _ := meta[mcp.MetaKeyRelatedTask].(obj)
	if firstText(res) != `computed "x" in 0.3s` || related["taskId"] != id || res["resultType"] != nil {
		t.Errorf("tasks/result: %v", res)
	}
	n := p.waitNote(mcp.NotificationTaskStatus, func(n obj) bool { return n["taskId"] == id && n["status"] == "completed" })
	if !isTimestamp(n["createdAt"]) || n["ttl"] != 60000.0 {
		t.Errorf("status notification: %v", n)
	}
	if got := p.mustCall(mcp.MethodGetTask, obj{"taskId": id}); got["status"] != "completed" {
		t.Errorf("after the end: %v", got)
	}
	if _, err := p.call(mcp.MethodCancelTask, obj{"taskId": id}); err == nil || err.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("cancelling a completed task: %v", err)
	}
}

func TestLegacyTaskErrors(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	p.initialize(mcp.Version20251125)
	for _, c := range []struct {
		method string
		params obj
		code   jsonrpc.Code
	}{
		{mcp.MethodCallTool, obj{"name": "failing_job"}, jsonrpc.CodeMethodNotFound},                    // required, called without task
		{mcp.MethodCallTool, obj{"name": "greet", "task": obj{}}, jsonrpc.CodeMethodNotFound},           // forbidden, called as a task
		{mcp.MethodGetTask, obj{"taskId": "nope"}, jsonrpc.CodeInvalidParams},                           // unknown
		{mcp.MethodGetTask, obj{}, jsonrpc.CodeInvalidParams},                                           // no id
		{mcp.MethodUpdateTask, obj{"taskId": "x", "inputResponses": obj{}}, jsonrpc.CodeMethodNotFound}, // extension only
		{mcp.MethodListTasks, obj{"cursor": "bogus"}, jsonrpc.CodeInvalidParams},
	} {
		if _, err := p.call(c.method, c.params); err == nil || err.Code != c.code {
			t.Errorf("%s %v: %v, want %d", c.method, c.params, err, c.code)
		}
	}
	tool := p.createTask("failing_job", obj{}, 0)
	res := p.mustCall(mcp.MethodGetTaskPayload, obj{"taskId": tool["taskId"]})
	if res["isError"] != true {
		t.Errorf("a tool error is the task's result: %v", res)
	}
	proto := p.createTask("protocol_error_job", obj{}, 0)
	_, err := p.call(mcp.MethodGetTaskPayload, obj{"taskId": proto["taskId"]})
	if err == nil || err.Code != jsonrpc.CodeInternalError || err.Message != "the job broke the protocol" {
		t.Errorf("a protocol error is the task's error: %v", err)
	}
	if got := p.mustCall(mcp.MethodGetTask, obj{"taskId": proto["taskId"]}); got["status"] != "failed" {
		t.Errorf("status: %v", got)
	}
}

func TestLegacyTaskCancel(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	p.initialize(mcp.Version20251125)
	id := p.createTask("slow_compute", obj{"seconds": 60}, 0)["taskId"]
	res := p.mustCall(mcp.MethodCancelTask, obj{"taskId": id})
	if res["taskId"] != id || res["status"] != "cancelled" {
		t.Errorf("tasks/cancel: %v", res)
	}
	if _, err := p.call(mcp.MethodGetTaskPayload, obj{"taskId": id}); err == nil || err.Code != jsonrpc.CodeCancelled {
		t.Errorf("tasks/result of a cancelled task: %v", err)
	}
	if _, err := p.call(mcp.MethodCancelTask, obj{"taskId": id}); err == nil || err.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("cancelling twice: %v", err)
	}
	p.waitNote(mcp.NotificationTaskStatus, func(n obj) bool { return n["taskId"] == id && n["status"] == "cancelled" })
}

// A legacy task asks with ordinary requests to the client, tagged with the
// task, and is input_required while they are out.
func TestLegacyTaskQuestions(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	release := make(chan struct{})
	p.answer = func(method string, params obj) (any, error) {
		<-release
		return obj{"action": "accept", "content": obj{"confirm": true}}, nil
	}
	p.initialize(mcp.Version20251125)
	id := p.createTask("confirm_delete", obj{"filename": "c"}, 0)["taskId"]
	p.waitNote(mcp.NotificationTaskStatus, func(n obj) bool { return n["status"] == "input_required" })
	if got := p.mustCall(mcp.MethodGetTask, obj{"taskId": id}); got["status"] != "input_required" {
		t.Errorf("while asking: %v", got)
	}
	close(release)
	res := p.mustCall(mcp.MethodGetTaskPayload, obj{"taskId": id})
	if firstText(res) != "deleted c" {
		t.Errorf("result: %v", res)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.asks) != 1 || p.asks[0].method != mcp.MethodElicit {
		t.Fatalf("requests to the client: %v", p.asks)
	}
	meta, _ := p.asks[0].params["_meta"].(obj)
	if related, _ := meta[mcp.MetaKeyRelatedTask].(obj); related["taskId"] != id {
		t.Errorf("elicitation without related-task: %v", p.asks[0].params)
	}
}

// Before 2025-11-25 there are no tasks: the task member is ignored.
func TestLegacyOlderRevisionHasNoTasks(t *testing.T) {
	t.Parallel()
	p := dial(t, newTaskServer(t, nil))
	init := p.initialize(mcp.Version20250618)
	if caps, _ := init["capabilities"].(obj); caps["tasks"] != nil || caps["extensions"] != nil {
		t.Errorf("capabilities: %v", caps)
	}
	res := p.mustCall(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0}, "task": obj{}})
	if res["task"] != nil || firstText(res) == "" {
		t.Errorf("tools/call: %v", res)
	}
	if _, err := p.call(mcp.MethodGetTask, obj{"taskId": "x"}); err == nil || err.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("tasks/get: %v", err)
	}
}

// Another session or principal cannot see a task: it gets -32602, as for
// an unknown one.
func TestTaskOwnerIsolation(t *testing.T) {
	t.Parallel()
	t.Run("sessions", func(t *testing.T) {
		srv := newTaskServer(t, nil)
		a, b := dial(t, srv), dial(t, srv)
		a.initialize(mcp.Version20251125)
		b.initialize(mcp.Version20251125)
		id := a.createTask("slow_compute", obj{"seconds": 60}, 0)["taskId"]
		for _, m := range []string{mcp.MethodGetTask, mcp.MethodCancelTask, mcp.MethodGetTaskPayload} {
			if _, err := b.call(m, obj{"taskId": id}); err == nil || err.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("%s by another session: %v", m, err)
			}
		}
		if l := b.mustCall(mcp.MethodListTasks, obj{}); len(l["tasks"].([]any)) != 0 {
			t.Errorf("tasks/list of another session: %v", l)
		}
		if _, err := a.modern(mcp.MethodGetTask, obj{"taskId": id}, capsTasks); err == nil || err.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("a modern request without principal sees a session's task: %v", err)
		}
		a.mustCall(mcp.MethodGetTask, obj{"taskId": id})
	})
	t.Run("principals", func(t *testing.T) {
		srv := newTaskServer(t, &server.Options{Principal: principalOf})
		alice, bob := dialAs(t, srv, "alice"), dialAs(t, srv, "bob")
		id := alice.mustModern(mcp.MethodCallTool, obj{"name": "confirm_delete", "arguments": obj{"filename": "d"}}, capsTasks)["taskId"]
		for _, m := range []string{mcp.MethodGetTask, mcp.MethodCancelTask, mcp.MethodUpdateTask} {
			if _, err := bob.modern(m, obj{"taskId": id, "inputResponses": obj{}}, capsTasks); err == nil || err.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("%s by another principal: %v", m, err)
			}
		}
		meta := obj{mcp.MetaKeyProtocolVersion: "2026-07-28", mcp.MetaKeyClientCapabilities: capsTasks}
		listen, err := bob.conn.Start(context.Background(), mcp.MethodSubscriptionsListen, obj{"notifications": obj{"taskIds": []any{id}}, "_meta": meta})
		if err != nil {
			t.Fatal(err)
		}
		defer bob.conn.Notify(context.Background(), mcp.NotificationCancelled, obj{"requestId": listen.ID()})
		bob.waitNote(mcp.NotificationSubscriptionsAcknowledged, func(n obj) bool {
			f, _ := n["notifications"].(obj)
			return f["taskIds"] == nil
		})
		// The same principal reaches its task from a legacy session too.
		alice.initialize(mcp.Version20251125)
		if got := alice.mustCall(mcp.MethodGetTask, obj{"taskId": id}); got["taskId"] != id {
			t.Errorf("alice's legacy session: %v", got)
		}
		alice.mustModern(mcp.MethodCancelTask, obj{"taskId": id}, capsTasks)
	})
}

func TestTaskExpiry(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testTaskExpiry) // the TTLs pass on synctest's clock
}

func testTaskExpiry(t *testing.T) {
	store := server.NewMemoryTaskStore(0, 0)
	p := dial(t, newTaskServer(t, &server.Options{Tasks: &server.TaskOptions{Store: store, PollInterval: 10 * time.Millisecond}}))
	p.initialize(mcp.Version20251125)
	// A task kept 300 ms, done in 0: gettable, then gone.
	done := p.createTask("slow_compute", obj{"seconds": 0}, 300)["taskId"]
	p.mustCall(mcp.MethodGetTaskPayload, obj{"taskId": done})
	// A task kept 100 ms that would run a minute: failed at its TTL.
	long := p.createTask("slow_compute", obj{"seconds": 60}, 100)["taskId"]
	if _, err := p.call(mcp.MethodGetTaskPayload, obj{"taskId": long}); err == nil {
		t.Errorf("a task past its TTL has a result")
	}
	time.Sleep(350 * time.Millisecond)
	for _, id := range []any{done, long} {
		if _, err := p.call(mcp.MethodGetTask, obj{"taskId": id}); err == nil || err.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("task %v past its TTL: %v", id, err)
		}
	}
	if n, _ := store.DeleteExpired(context.Background(), time.Now()); n != 0 || store.Len() != 0 {
		t.Errorf("expired tasks kept: swept %d, %d left", n, store.Len())
	}
}

func TestTaskBounds(t *testing.T) {
	t.Parallel()
	srv := newTaskServer(t, &server.Options{Tasks: &server.TaskOptions{MaxTasksPerOwner: 2}})
	legacy := dial(t, srv)
	legacy.initialize(mcp.Version20251125)
	legacy.createTask("slow_compute", obj{"seconds": 60}, 0)
	legacy.createTask("slow_compute", obj{"seconds": 60}, 0)
	if _, err := legacy.call(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 60}, "task": obj{}}); err == nil || err.Code != jsonrpc.CodeOverloaded {
		t.Errorf("a third task: %v", err)
	}
	modern := dial(t, srv)
	for range 2 {
		if res := modern.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 60}}, capsTasks); res["taskId"] == nil {
			t.Fatalf("not a task: %v", res)
		}
	}
	// The store is full for this owner: an optional tool stays synchronous,
	// a required one fails.
	res := modern.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0.3}}, capsTasks)
	if res["taskId"] != nil || firstText(res) == "" {
		t.Errorf("optional tool with a full store: %v", res)
	}
	if _, err := modern.modern(mcp.MethodCallTool, obj{"name": "failing_job", "arguments": obj{}}, capsTasks); err == nil || err.Code != jsonrpc.CodeOverloaded {
		t.Errorf("required tool with a full store: %v", err)
	}
}

// The tasks of a legacy session end with it.
func TestTasksEndWithTheirSession(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testTasksEndWithTheirSession)
}

func testTasksEndWithTheirSession(t *testing.T) {
	store := server.NewMemoryTaskStore(0, 0)
	srv := newTaskServer(t, &server.Options{Tasks: &server.TaskOptions{Store: store}})
	ct, st := memory.NewPair(nil)
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ct.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{t: t}
	p.conn = jsonrpc.NewConn(c, &jsonrpc.Options{Handler: jsonrpc.HandlerFunc(p.handle)})
	p.initialize(mcp.Version20251125)
	p.createTask("slow_compute", obj{"seconds": 60}, 0)
	if store.Len() != 1 {
		t.Fatalf("%d tasks", store.Len())
	}
	p.conn.Close()
	ss.Wait()
	synctest.Wait() // the server has finished with the session
	if store.Len() != 0 {
		t.Errorf("%d tasks left after their session ended", store.Len())
	}
}

// Close cancels running tasks at once and waits for their handlers; the
// store keeps their end, which another instance sharing it answers.
func TestServerCloseEndsTasks(t *testing.T) {
	t.Parallel()
	store := server.NewMemoryTaskStore(0, 0)
	srv := newTaskServer(t, &server.Options{Tasks: &server.TaskOptions{Store: store}})
	p := dial(t, srv)
	id := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 60}}, capsTasks)["taskId"]
	start := time.Now()
	srv.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
	other := newTaskServer(t, &server.Options{Tasks: &server.TaskOptions{Store: store}})
	res := dial(t, other).mustModern(mcp.MethodGetTask, obj{"taskId": id}, capsTasks)
	if res["status"] != "cancelled" || res["statusMessage"] != "The server closed" {
		t.Errorf("after Close: %v", res)
	}
}

// More rules of the modern era.
func TestModernTaskRules(t *testing.T) {
	t.Parallel()
	t.Run("no threshold", func(t *testing.T) {
		p := dial(t, newTaskServer(t, &server.Options{Tasks: &server.TaskOptions{Threshold: -1}}))
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "slow_compute", "arguments": obj{"seconds": 0.3}}, capsTasks)
		if res["taskId"] != nil || firstText(res) == "" {
			t.Errorf("with no threshold the call stays synchronous: %v", res)
		}
	})
	p := dial(t, newTaskServer(t, nil))
	t.Run("RunAsTask without the extension", func(t *testing.T) {
		res := p.mustModern(mcp.MethodCallTool, obj{"name": "confirm_delete", "arguments": obj{"filename": "e"}}, obj{"elicitation": obj{}})
		if res["resultType"] != "input_required" || res["taskId"] != nil {
			t.Errorf("confirm_delete without the extension asks by MRTR: %v", res)
		}
	})
	t.Run("invalid answer", func(t *testing.T) {
		id := p.mustModern(mcp.MethodCallTool, obj{"name": "multi_input", "arguments": obj{}}, capsTasks)["taskId"]
		p.waitTask(id.(string), capsTasks, 5*time.Second, is("input_required"))
		_, err := p.modern(mcp.MethodUpdateTask, obj{"taskId": id, "inputResponses": obj{"first": obj{"action": "maybe"}, "second": obj{"action": "accept"}}}, capsTasks)
		if err == nil || err.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("an invalid answer: %v", err)
		}
		res := p.mustModern(mcp.MethodGetTask, obj{"taskId": id}, capsTasks)
		if reqs, _ := res["inputRequests"].(obj); len(reqs) != 2 {
			t.Errorf("an invalid update changed the task: %v", res)
		}
	})
	t.Run("cancel while waiting for input", func(t *testing.T) {
		id := p.mustModern(mcp.MethodCallTool, obj{"name": "confirm_delete", "arguments": obj{"filename": "f"}}, capsTasks)["taskId"].(string)
		p.waitTask(id, capsTasks, 5*time.Second, is("input_required"))
		p.mustModern(mcp.MethodCancelTask, obj{"taskId": id}, capsTasks)
		if res := p.waitTask(id, capsTasks, time.Second, terminal); res["status"] != "cancelled" {
			t.Errorf("after cancel: %v", res)
		}
		// Answers to a cancelled task are acknowledged and ignored.
		p.mustModern(mcp.MethodUpdateTask, obj{"taskId": id, "inputResponses": obj{"k": obj{}}}, capsTasks)
	})
}

func TestMemoryTaskStore(t *testing.T) {
	ctx := context.Background()
	m := server.NewMemoryTaskStore(3, 2)
	now := time.Now()
	add := func(id, owner string) error {
		return m.Create(ctx, &server.TaskRecord{ID: id, Owner: owner, Status: mcp.TaskWorking, CreatedAt: now, LastUpdatedAt: now, TTL: time.Hour})
	}
	if err := errors.Join(add("a1", "a"), add("a2", "a"), add("b1", "b")); err != nil {
		t.Fatal(err)
	}
	if err := add("a3", "a"); !errors.Is(err, server.ErrTaskLimit) {
		t.Errorf("per-owner bound: %v", err)
	}
	if err := add("c1", "c"); !errors.Is(err, server.ErrTaskLimit) {
		t.Errorf("total bound: %v", err)
	}
	page, next, err := m.List(ctx, "a", "", 1)
	if err != nil || len(page) != 1 || page[0].ID != "a1" || next == "" {
		t.Fatalf("page 1: %v %q %v", page, next, err)
	}
	page, next, err = m.List(ctx, "a", next, 1)
	if err != nil || len(page) != 1 || page[0].ID != "a2" || next != "" {
		t.Fatalf("page 2: %v %q %v", page, next, err)
	}
	if _, _, err := m.List(ctx, "a", "nope", 1); !errors.Is(err, server.ErrTaskCursor) {
		t.Errorf("bad cursor: %v", err)
	}
	msg := "waiting"
	if rec, err := m.Update(ctx, "a1", &server.TaskUpdate{Status: mcp.TaskInputRequired, StatusMessage: &msg,
		InputRequests: mcp.InputRequests{"k": {Method: mcp.MethodElicit}}}); err != nil || rec.StatusMessage != msg || len(rec.InputRequests) != 1 {
		t.Errorf("to input_required: %v %v", rec, err)
	}
	if rec, err := m.Update(ctx, "a1", &server.TaskUpdate{Status: mcp.TaskCompleted, Result: json.RawMessage(`{}`)}); err != nil || rec.InputRequests != nil {
		t.Errorf("to completed: %v %v", rec, err)
	}
	if _, err := m.Update(ctx, "a1", &server.TaskUpdate{Status: mcp.TaskWorking}); !errors.Is(err, server.ErrTaskTerminal) {
		t.Errorf("out of a terminal state: %v", err)
	}
	if _, err := m.Update(ctx, "missing", &server.TaskUpdate{}); !errors.Is(err, server.ErrTaskNotFound) {
		t.Errorf("missing: %v", err)
	}
	if n, _ := m.DeleteExpired(ctx, now.Add(2*time.Hour)); n != 3 || m.Len() != 0 {
		t.Errorf("swept %d, %d left", n, m.Len())
	}
	if err := add("c1", "c"); err != nil {
		t.Errorf("room again after the sweep: %v", err)
	}
}
