package server

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// The tasks/* methods of both eras, the questions of modern tasks, and
// the notifications of task changes.

// timeLayout writes task timestamps: ISO 8601, UTC, milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// legacyTask returns the task in the shape of 2025-11-25.
func legacyTask(t *TaskRecord) mcp.Task {
	ttl, poll := t.TTL.Milliseconds(), t.PollInterval.Milliseconds()
	return mcp.Task{
		TaskID: t.ID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt.UTC().Format(timeLayout), LastUpdatedAt: t.LastUpdatedAt.UTC().Format(timeLayout),
		TTL: &ttl, PollInterval: &poll,
	}
}

// detailedTask returns the task in the shape of the tasks extension, with
// what its status carries: questions, result or error.
func detailedTask(t *TaskRecord) mcp.DetailedTask {
	legacy := legacyTask(t)
	d := legacy.Detailed()
	switch t.Status {
	case mcp.TaskInputRequired:
		d.InputRequests = t.InputRequests
	case mcp.TaskCompleted:
		d.Result = t.Result
	case mcp.TaskFailed:
		d.Error = t.Error
		if d.Error == nil {
			d.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the task failed")
		}
	}
	return d
}

// tasksFor returns the engine for a tasks/* request, or the error the
// request gets: -32601 when tasks are off, -32021 when a modern request
// did not declare the extension.
func (s *Server) tasksFor(r *Request) (*taskEngine, error) {
	if s.tasks == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s (this server runs no tasks)", r.Method)
	}
	if r.IsModern() && !r.ClientCapabilities().HasExtension(mcp.ExtensionTasks) {
		return nil, missingTasksExtension()
	}
	return s.tasks, nil
}

// taskOf returns the engine and the task id for a tasks/* request that
// names a task, or the error the request gets (see tasksFor and lookup).
func (s *Server) taskOf(ctx context.Context, r *Request, id string) (*taskEngine, *TaskRecord, error) {
	e, err := s.tasksFor(r)
	if err != nil {
		return nil, nil, err
	}
	rec, err := e.lookup(ctx, r, id)
	if err != nil {
		return nil, nil, err
	}
	return e, rec, nil
}

// lookup returns the task id if r may see it; otherwise -32602, the same
// whether the task does not exist, expired or belongs to someone else.
func (e *taskEngine) lookup(ctx context.Context, r *Request, id string) (*TaskRecord, error) {
	if id == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: taskId is required")
	}
	rec, err := e.store.Get(ctx, id)
	if errors.Is(err, ErrTaskNotFound) || err == nil && rec.Owner != e.owner(ctx, r, false) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: no such task (unknown, expired, or not yours)")
	}
	if err != nil {
		return nil, taskError(err)
	}
	return rec, nil
}

// getTask answers tasks/get: the task, with its question, result or error
// in the modern era.
func (s *Server) getTask(ctx context.Context, r *Request, p *mcp.GetTaskParams) (any, error) {
	_, rec, err := s.taskOf(ctx, r, p.TaskID)
	if err != nil {
		return nil, err
	}
	if r.IsModern() {
		d := detailedTask(rec)
		d.ResultType, d.Meta = mcp.ResultTypeComplete, s.modernMeta
		return &d, nil
	}
	t := legacyTask(rec)
	return &t, nil
}

// taskResult answers tasks/result (2025-11-25): it waits for the task to
// end, then returns what the call would have returned, tagged with the
// related-task _meta entry.
func (s *Server) taskResult(ctx context.Context, r *Request, p *mcp.GetTaskPayloadParams) (any, error) {
	e, rec, err := s.taskOf(ctx, r, p.TaskID)
	if err != nil {
		return nil, err
	}
	for !rec.Status.IsTerminal() {
		if run := e.running(rec.ID); run != nil {
			select {
			case <-run.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		} else { // the task runs elsewhere, or is ending: poll the store
			t := time.NewTimer(min(max(rec.PollInterval, 10*time.Millisecond), 5*time.Second))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		if rec, err = e.lookup(ctx, r, p.TaskID); err != nil {
			return nil, err
		}
	}
	switch rec.Status {
	case mcp.TaskCompleted:
		tag, err := withRelatedTask(nil, rec.ID)
		if err != nil {
			return nil, err
		}
		res, err := mcp.AddDefaultMembers(rec.Result, tag)
		if err != nil {
			return nil, taskError(err)
		}
		return json.RawMessage(res), nil
	case mcp.TaskFailed:
		return nil, detailedTask(rec).Error
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeCancelled, "Request cancelled: the task was cancelled (%s)", rec.StatusMessage)
}

// listTasks answers tasks/list (2025-11-25): the requestor's own tasks.
func (s *Server) listTasks(ctx context.Context, r *Request, p *mcp.ListTasksParams) (any, error) {
	e, err := s.tasksFor(r)
	if err != nil {
		return nil, err
	}
	recs, next, err := e.store.List(ctx, e.owner(ctx, r, false), string(p.Cursor), s.opts.PageSize)
	if errors.Is(err, ErrTaskCursor) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: invalid cursor")
	}
	if err != nil {
		return nil, taskError(err)
	}
	res := &mcp.ListTasksResult{Tasks: make([]mcp.Task, len(recs)), NextCursor: mcp.Cursor(next)}
	for i, rec := range recs {
		res.Tasks[i] = legacyTask(rec)
	}
	return res, nil
}

// cancelTask answers tasks/cancel: the task is cancelled at once and its
// handler's context ends. The legacy era answers the task and refuses a
// terminal one (-32602); the modern era acknowledges, even a terminal
// task.
func (s *Server) cancelTask(ctx context.Context, r *Request, p *mcp.CancelTaskParams) (any, error) {
	e, rec, err := s.taskOf(ctx, r, p.TaskID)
	if err != nil {
		return nil, err
	}
	ended := rec.Status.IsTerminal()
	if !ended {
		run := e.running(rec.ID)
		msg := cancelMessage(errTaskCancelled)
		if run != nil {
			run.mu.Lock()
		}
		cancelled, err := e.store.Update(ctx, rec.ID, &TaskUpdate{Status: mcp.TaskCancelled, StatusMessage: &msg})
		if run != nil {
			run.mu.Unlock()
			run.cancel(errTaskCancelled)
		} else {
			e.forward(rec, &busMsg{Kind: busTaskCancel, Task: rec.ID}) // scale-out: (shared.go)
		}
		switch {
		case err == nil:
			e.notify(run, cancelled)
			rec = cancelled
		case errors.Is(err, ErrTaskTerminal): // it ended first
			ended = true
		default:
			return nil, taskError(err)
		}
	}
	if r.IsModern() {
		return &mcp.EmptyResult{ResultType: mcp.ResultTypeComplete, Meta: s.modernMeta}, nil
	}
	if ended {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: the task already ended")
	}
	t := legacyTask(rec)
	return &t, nil
}

// updateTask answers tasks/update (tasks extension): answers to the
// task's pending questions. Keys that are not pending are ignored; the
// task stays input_required until every question is answered.
func (s *Server) updateTask(ctx context.Context, r *Request, p *mcp.UpdateTaskParams) (any, error) {
	e, rec, err := s.taskOf(ctx, r, p.TaskID)
	if err != nil {
		return nil, err
	}
	if run := e.running(rec.ID); run != nil && !rec.Status.IsTerminal() {
		if err := run.answer(ctx, p.InputResponses); err != nil {
			return nil, err
		}
	} else if !rec.Status.IsTerminal() && len(p.InputResponses) > 0 {
		// scale-out: the task runs on another instance, which checks the
		// answers (shared.go)
		data, err := json.Marshal(p.InputResponses)
		if err != nil {
			return nil, taskError(err)
		}
		e.forward(rec, &busMsg{Kind: busTaskUpdate, Task: rec.ID, Data: data})
		e.awaitAnswered(ctx, rec, p.InputResponses)
	}
	return &mcp.EmptyResult{ResultType: mcp.ResultTypeComplete, Meta: s.modernMeta}, nil
}

// forwardedAnswerWait bounds how long tasks/update waits for the instance
// running a task to take answers forwarded to it.
const forwardedAnswerWait = 5 * time.Second

// awaitAnswered waits, within forwardedAnswerWait and ctx, until the
// shared record of a task running on another instance no longer lists as
// pending the questions that answers answer (or the task has moved on):
// so that a tasks/get the client sends next, to any instance, sees its
// answers taken. Without it, tasks/update returned as soon as the answers
// were published, and a tasks/get served elsewhere could still list an
// answered question.
func (e *taskEngine) awaitAnswered(ctx context.Context, rec *TaskRecord, answers mcp.InputResponses) {
	var keys []string
	for k := range answers {
		if _, ok := rec.InputRequests[k]; ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, forwardedAnswerWait)
	defer cancel()
	pause := time.Millisecond
	for {
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		cur, err := e.store.Get(ctx, rec.ID)
		if err != nil || cur.Status != rec.Status || !slices.ContainsFunc(keys, func(k string) bool {
			_, ok := cur.InputRequests[k]
			return ok
		}) {
			return
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// A pendingInput is a question of a modern task waiting for tasks/update.
type pendingInput struct {
	q   *Question
	req mcp.InputRequest
	w   *inputWaiter
}

// An inputWaiter is one Ask call of a task, waiting for all its answers.
type inputWaiter struct {
	left int
	ch   chan struct{} // closed when left reaches 0
}

// ask serves Request.Ask for a modern call that runs through the engine:
// the round's rule while synchronous (and a round that asks can no longer
// become a task), the task's rule once it is a task.
func (run *taskRun) ask(ctx context.Context, r *Request, questions []*Question) error {
	run.mu.Lock()
	if run.phase == phaseTask {
		run.mu.Unlock()
		return run.askTask(ctx, r, questions)
	}
	err := r.askModern(questions)
	if errors.Is(err, ErrInputRequired) && run.phase == phaseSync {
		run.phase = phaseEnded
	}
	run.mu.Unlock()
	return err
}

// askTask puts questions to the client through the task: the answers the
// call already has are used, the others make the task input_required
// until tasks/update answers them all.
func (run *taskRun) askTask(ctx context.Context, r *Request, questions []*Question) error {
	var missing []*Question
	for _, q := range questions {
		if rd := r.roundState(); rd != nil {
			if raw, ok := rd.answers[q.Key]; ok {
				if err := decodeAnswer(q, raw); err != nil {
					return err
				}
				continue
			}
		}
		missing = append(missing, q)
	}
	if len(missing) == 0 {
		return nil
	}
	w := &inputWaiter{left: len(missing), ch: make(chan struct{})}
	run.mu.Lock()
	for i, q := range missing {
		if run.keys[q.Key] || slices.ContainsFunc(missing[:i], func(o *Question) bool { return o.Key == q.Key }) {
			run.mu.Unlock()
			return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the question key %q is used twice in one task", q.Key)
		}
	}
	for _, q := range missing {
		ir, err := mcp.NewInputRequest(q.Method, q.Params)
		if err != nil {
			run.dropLocked(missing)
			run.mu.Unlock()
			return err
		}
		run.keys[q.Key] = true
		run.pending[q.Key] = &pendingInput{q: q, req: ir, w: w}
	}
	rec, err := run.storePendingLocked(ctx)
	if err != nil {
		run.dropLocked(missing)
		run.mu.Unlock()
		if cause := context.Cause(run.ctx); cause != nil {
			return cause
		}
		return taskError(err)
	}
	run.mu.Unlock()
	run.e.notify(run, rec)
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
	case <-run.ctx.Done():
	}
	run.mu.Lock()
	if w.left == 0 { // answered after all
		run.mu.Unlock()
		return nil
	}
	run.dropLocked(missing)
	rec, err = run.storePendingLocked(ctx)
	run.mu.Unlock()
	if err == nil {
		run.e.notify(run, rec)
	}
	if cause := context.Cause(run.ctx); cause != nil {
		return cause
	}
	return context.Cause(ctx)
}

// storePendingLocked records the pending questions in the store: the task
// is input_required while there are some, working otherwise.
func (run *taskRun) storePendingLocked(ctx context.Context) (*TaskRecord, error) {
	u := &TaskUpdate{Status: mcp.TaskWorking}
	if len(run.pending) > 0 {
		u = &TaskUpdate{Status: mcp.TaskInputRequired, InputRequests: run.inputRequestsLocked()}
	}
	return run.e.store.Update(context.WithoutCancel(ctx), run.id, u)
}

// dropLocked forgets the questions qs that are still pending.
func (run *taskRun) dropLocked(qs []*Question) {
	for _, q := range qs {
		if p := run.pending[q.Key]; p != nil && p.q == q {
			delete(run.pending, q.Key)
		}
	}
}

// inputRequestsLocked lists the pending questions.
func (run *taskRun) inputRequestsLocked() mcp.InputRequests {
	reqs := make(mcp.InputRequests, len(run.pending))
	for k, p := range run.pending {
		reqs[k] = p.req
	}
	return reqs
}

// answer takes the client's answers to pending questions. An answer that
// is not a valid result of its question fails the update (-32602) and
// changes nothing; keys that are not pending are ignored.
func (run *taskRun) answer(ctx context.Context, responses mcp.InputResponses) error {
	type answered struct {
		p     *pendingInput
		value reflect.Value
	}
	run.mu.Lock()
	var got []answered
	for k, raw := range responses {
		p := run.pending[k]
		if p == nil || len(raw) == 0 || string(raw) == "null" {
			continue
		}
		rv := reflect.ValueOf(p.q.Result)
		if rv.Kind() != reflect.Pointer || rv.IsNil() {
			run.mu.Unlock()
			return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: question %q has no result to fill", k)
		}
		fresh := reflect.New(rv.Type().Elem())
		tmp := *p.q
		tmp.Result = fresh.Interface()
		if err := decodeAnswer(&tmp, raw); err != nil {
			run.mu.Unlock()
			return err
		}
		got = append(got, answered{p, fresh.Elem()})
	}
	if len(got) == 0 {
		run.mu.Unlock()
		return nil
	}
	for _, a := range got {
		reflect.ValueOf(a.p.q.Result).Elem().Set(a.value)
		delete(run.pending, a.p.q.Key)
		if a.p.w.left--; a.p.w.left == 0 {
			close(a.p.w.ch)
		}
	}
	rec, err := run.storePendingLocked(ctx)
	run.mu.Unlock()
	if err == nil {
		run.e.notify(run, rec)
	}
	return nil
}

// notify tells who listens that a task changed: the legacy session that
// created it (notifications/tasks/status), the modern listeners that
// named it (notifications/tasks). It returns at once: each gets the
// latest state of the task when it can take it (notify.go).
func (e *taskEngine) notify(run *taskRun, rec *TaskRecord) {
	if rec.Modern {
		d := detailedTask(rec)
		e.notifyListeners(rec.ID, &d)
		if sh := e.s.shared; sh != nil { // scale-out: every instance's listeners (shared.go)
			if data, err := json.Marshal(&d); err == nil {
				sh.publish(notesTopic, &busMsg{Kind: busTask, Task: rec.ID, Data: data})
			}
		}
		return
	}
	if run == nil || run.sess == nil {
		return
	}
	key := "t" + rec.ID
	t := legacyTask(rec)
	n := note{method: mcp.NotificationTaskStatus, params: &t}
	e.s.post(run.sess, func(b *outbox) bool { return e.s.putNote(b, key, n) })
}

// notifyListeners tells the modern listeners of this instance that name
// the task id that it moved.
func (e *taskEngine) notifyListeners(id string, d *mcp.DetailedTask) {
	if e == nil {
		return
	}
	listeners := e.s.listenersWhere(func(f *mcp.SubscriptionFilter) bool {
		return slices.Contains(f.TaskIDs, id)
	})
	if len(listeners) == 0 {
		return
	}
	obj, meta, err := splitParams(d)
	if err != nil {
		e.s.log.Error("mcp server: task notification cannot be encoded", "task", id, "error", err)
		return
	}
	key := "t" + id
	n := note{method: mcp.NotificationTasks, params: &splitNote{obj, meta}}
	for _, l := range listeners {
		e.s.post(l, func(b *outbox) bool { return e.s.putNote(b, key, n) })
	}
}

// listenTaskIDs is the tasks hook of subscriptions/listen: of the task ids
// a listen asks for, it returns those the requestor may watch (its own,
// up to TaskOptions.MaxTasksPerOwner); -32021 when the request did not declare the
// extension.
func (s *Server) listenTaskIDs(ctx context.Context, r *Request, ids []string) ([]string, error) {
	if len(ids) == 0 || s.tasks == nil {
		return nil, nil
	}
	if !r.ClientCapabilities().HasExtension(mcp.ExtensionTasks) {
		return nil, missingTasksExtension()
	}
	e := s.tasks
	owner := e.owner(ctx, r, false)
	var out []string
	for _, id := range ids[:min(len(ids), e.noteLimit())] {
		if slices.Contains(out, id) {
			continue
		}
		if rec, err := e.store.Get(ctx, id); err == nil && rec.Owner == owner {
			out = append(out, id)
		}
	}
	return out, nil
}
