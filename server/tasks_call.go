package server

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// How a tools/call becomes a task: the phases of a taskRun.
//
// A legacy task-augmented call is a task from the start (phaseTask). A
// modern call of a task-supporting tool starts synchronous (phaseSync):
// the request waits for the handler's outcome. It ends in phaseEnded when
// the outcome comes first, or when the handler asks a question that ends
// the round (then it can no longer become a task); it moves to phaseTask
// when the threshold passes or the handler calls RunAsTask first. Every
// phase change happens under taskRun.mu, which is what settles the race
// between the request's timer and the handler.
type taskPhase int

const (
	phaseSync taskPhase = iota
	phaseEnded
	phaseTask
)

// A taskRun is one call of a task-supporting tool handled by the engine:
// the handler's goroutine, and once it is a task, its id and pending
// questions.
type taskRun struct {
	e      *taskEngine
	r      *Request
	owner  string
	modern bool
	sess   *Session      // the legacy session that created it, for notifications
	out    *taskOutbound // modern: the request's outbound until it is a task

	ctx    context.Context // the handler's; outlives the request
	cancel context.CancelCauseFunc

	outcome      chan toolOutcome // the handler's outcome while synchronous (cap 1)
	escalate     chan struct{}    // closed by RunAsTask
	escalateOnce sync.Once
	converted    chan struct{} // closed once the request decided whether it is a task
	decideOnce   sync.Once
	done         chan struct{} // closed when the task reached its final state
	exited       chan struct{} // closed when the handler goroutine ended
	expire       *time.Timer   // cancels the handler when the TTL passes

	mu      sync.Mutex
	phase   taskPhase
	id      string                   // the task id (phaseTask)
	pending map[string]*pendingInput // questions waiting for tasks/update
	keys    map[string]bool          // every question key of the task
	asking  int                      // legacy: requests to the client in flight
}

// toolOutcome is what a tool handler returned.
type toolOutcome struct {
	res *mcp.CallToolResult
	err error
}

func (e *taskEngine) newRun(ctx context.Context, r *Request, owner string, modern bool) *taskRun {
	run := &taskRun{
		e: e, r: r, owner: owner, modern: modern,
		outcome:  make(chan toolOutcome, 1),
		escalate: make(chan struct{}), converted: make(chan struct{}),
		done: make(chan struct{}), exited: make(chan struct{}),
		pending: make(map[string]*pendingInput), keys: make(map[string]bool),
	}
	run.ctx, run.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	return run
}

// taskRun returns the run of a call the task engine serves, or nil: the
// engine marks such a call by the outbound it gives the request.
func (r *Request) taskRun() *taskRun {
	switch o := r.out.(type) {
	case *taskOutbound:
		return o.run
	case *relatedOutbound:
		return o.run
	}
	return nil
}

func (run *taskRun) isTask() bool {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.phase == phaseTask
}

// decided wakes RunAsTask: the request has decided whether it is a task.
func (run *taskRun) decided() { run.decideOnce.Do(func() { close(run.converted) }) }

// callToolTask is the tasks hook of callTool. It serves the calls the
// engine owns (handled true): tools that support tasks, called as tasks
// in the legacy era or with the tasks extension in the modern era. It
// also refuses the calls the task rules forbid.
func (s *Server) callToolTask(ctx context.Context, r *Request, p *mcp.CallToolParams, e *toolEntry) (res any, handled bool, err error) {
	te := s.tasks
	if te == nil {
		return nil, false, nil
	}
	support := mcp.TaskSupportForbidden
	if x := e.tool.Execution; x != nil && x.TaskSupport != "" {
		support = x.TaskSupport
	}
	required := support == mcp.TaskSupportRequired
	if r.IsModern() { // the legacy task member is ignored: the server decides
		switch {
		case support == mcp.TaskSupportForbidden:
			return nil, false, nil
		case !r.ClientCapabilities().HasExtension(mcp.ExtensionTasks):
			if required {
				return nil, true, missingTasksExtension()
			}
			return nil, false, nil
		}
		res, err := te.callModern(ctx, r, p, e, required)
		return res, true, err
	}
	asTask := p.Task != nil && mcp.HasTasks(r.Version) // earlier revisions have no task member
	switch {
	case !asTask && required:
		return nil, true, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: tool %q must be called as a task", p.Name)
	case !asTask:
		return nil, false, nil
	case support == mcp.TaskSupportForbidden:
		return nil, true, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: tool %q cannot be called as a task", p.Name)
	}
	res, err = te.callLegacy(ctx, r, p, e)
	return res, true, err
}

// missingTasksExtension is -32021 naming the tasks extension.
func missingTasksExtension() *jsonrpc.Error {
	return mcp.MissingCapabilityError(mcp.ClientCapabilities{
		Extensions: map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage("{}")},
	})
}

// runTool runs a tool's handler in a goroutine of the engine, turning a
// panic into an internal error as the connection does for its handlers.
func (s *Server) runTool(ctx context.Context, r *Request, p *mcp.CallToolParams, e *toolEntry) (res *mcp.CallToolResult, err error) {
	defer func() {
		if x := recover(); x != nil {
			s.log.Error("mcp server: tool handler panicked", "tool", p.Name, "panic", x, "stack", string(debug.Stack()))
			res, err = nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the handler of tool %q failed", p.Name)
		}
	}()
	return s.invokeTool(ctx, r, p, e)
}

// callModern serves a modern call that may become a task: it runs the
// handler in the engine and waits for its outcome, the threshold or
// RunAsTask, whichever comes first.
func (te *taskEngine) callModern(ctx context.Context, r *Request, p *mcp.CallToolParams, e *toolEntry, required bool) (any, error) {
	run := te.newRun(ctx, r, te.owner(ctx, r, true), true)
	run.out = &taskOutbound{inner: r.out, run: run}
	r.out = run.out
	// Before it is a task, the handler ends with the request.
	stop := context.AfterFunc(ctx, func() {
		if !run.isTask() {
			run.cancel(context.Cause(ctx))
		}
	})
	defer stop()
	defer run.decided()
	if err := te.start(run, func() { run.finish(te.s.runTool(run.ctx, r, p, e)) }); err != nil {
		run.cancel(err)
		return nil, err
	}
	var threshold <-chan time.Time
	if te.threshold > 0 {
		t := time.NewTimer(te.threshold)
		defer t.Stop()
		threshold = t.C
	}
	select {
	case o := <-run.outcome:
		return te.syncResult(ctx, run, o, required)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-threshold:
	case <-run.escalate:
	}
	if ctx.Err() != nil { // nobody would learn of the task
		return nil, ctx.Err()
	}
	rec, err := te.convert(ctx, run)
	switch {
	case rec != nil:
		return te.createResult(rec), nil
	case err != nil && (required || !errors.Is(err, ErrTaskLimit)):
		run.cancel(err)
		return nil, taskError(err)
	}
	run.decided() // no task (the store is full, or the outcome came first)
	select {
	case o := <-run.outcome:
		return te.syncResult(ctx, run, o, required)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// convert makes a synchronous modern call a task, unless its outcome came
// first (then it returns no record and no error).
func (te *taskEngine) convert(ctx context.Context, run *taskRun) (*TaskRecord, error) {
	rec := te.newRecord(run.owner, true, te.ttl)
	if err := te.create(ctx, rec); err != nil {
		return nil, err
	}
	run.mu.Lock()
	if run.phase != phaseSync {
		run.mu.Unlock()
		if err := te.store.Delete(ctx, rec.ID); err != nil {
			te.s.log.Debug("mcp server: forgetting an unused task", "task", rec.ID, "error", err)
		}
		return nil, nil
	}
	run.phase, run.id = phaseTask, rec.ID
	run.out.detach()
	te.register(run)
	run.expire = time.AfterFunc(rec.TTL, func() { run.cancel(errTaskExpired) })
	run.mu.Unlock()
	run.decided()
	return rec, nil
}

// syncResult answers a modern call whose handler finished before it
// became a task: with the outcome itself, or for a required tool with a
// task that is already over. A round that asked for input ends as usual.
func (te *taskEngine) syncResult(ctx context.Context, run *taskRun, o toolOutcome, required bool) (any, error) {
	if o.err != nil && (!required || errors.Is(o.err, ErrInputRequired)) {
		return nil, o.err
	}
	if !required {
		c := *o.res
		run.r.complete(&c.ResultType, &c.Meta)
		return &c, nil
	}
	if ctx.Err() != nil { // nobody would learn of the task
		return nil, ctx.Err()
	}
	rec := te.newRecord(run.owner, true, te.ttl)
	if err := te.create(ctx, rec); err != nil {
		return nil, taskError(err)
	}
	final, err := te.store.Update(ctx, rec.ID, run.outcomeUpdate(o, nil))
	if err != nil {
		return nil, taskError(err)
	}
	return te.createResult(final), nil
}

// createResult is the answer of a modern call that became a task: the
// task, flat, marked resultType "task", without what tasks/get adds.
func (te *taskEngine) createResult(rec *TaskRecord) *mcp.DetailedTask {
	d := detailedTask(rec)
	d.InputRequests, d.Result, d.Error = nil, nil, nil
	d.ResultType = mcp.ResultTypeTask
	d.Meta = te.s.modernMeta
	return &d
}

// callLegacy serves a task-augmented call of 2025-11-25: the task exists
// before the answer, which is the task itself.
func (te *taskEngine) callLegacy(ctx context.Context, r *Request, p *mcp.CallToolParams, e *toolEntry) (any, error) {
	owner := te.owner(ctx, r, true)
	ttl := te.ttl
	if ms := p.Task.TTL; ms != nil && *ms > 0 {
		ttl = te.maxTTL
		if *ms < te.maxTTL.Milliseconds() {
			ttl = time.Duration(*ms) * time.Millisecond
		}
	}
	rec := te.newRecord(owner, false, ttl)
	if err := te.create(ctx, rec); err != nil {
		return nil, taskError(err)
	}
	run := te.newRun(ctx, r, owner, false)
	run.sess = r.Session
	r.out = &relatedOutbound{inner: r.out, run: run}
	run.phase, run.id = phaseTask, rec.ID
	te.register(run)
	run.expire = time.AfterFunc(ttl, func() { run.cancel(errTaskExpired) })
	if err := te.start(run, func() { run.finish(te.s.runTool(run.ctx, r, p, e)) }); err != nil {
		run.expire.Stop()
		te.unregister(run)
		run.cancel(err)
		if derr := te.store.Delete(ctx, rec.ID); derr != nil {
			te.s.log.Debug("mcp server: forgetting an unused task", "task", rec.ID, "error", derr)
		}
		return nil, err
	}
	return &mcp.CreateTaskResult{Task: legacyTask(rec)}, nil
}

// finish takes the handler's outcome: the request's answer while the call
// is synchronous, the task's final state once it is a task.
func (run *taskRun) finish(res *mcp.CallToolResult, err error) {
	run.mu.Lock()
	phase := run.phase
	if phase == phaseSync {
		run.phase = phaseEnded
	}
	run.mu.Unlock()
	if phase != phaseTask {
		run.cancel(nil)
		run.outcome <- toolOutcome{res, err}
		return
	}
	run.settle(toolOutcome{res, err})
}

// settle records the final state of a task whose handler returned.
func (run *taskRun) settle(o toolOutcome) {
	e := run.e
	if run.expire != nil {
		run.expire.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), taskCloseWait)
	defer cancel()
	run.mu.Lock()
	rec, err := e.store.Update(ctx, run.id, run.outcomeUpdate(o, context.Cause(run.ctx)))
	run.mu.Unlock()
	if err == nil {
		e.notify(run, rec)
	} else if !errors.Is(err, ErrTaskTerminal) && !errors.Is(err, ErrTaskNotFound) {
		e.s.log.Error("mcp server: recording the end of a task", "task", run.id, "error", err)
	}
	run.cancel(nil)
	close(run.done)
	e.unregister(run)
}

// outcomeUpdate is the final state of a task given its handler's outcome
// and, if the handler's context ended, why.
func (run *taskRun) outcomeUpdate(o toolOutcome, cause error) *TaskUpdate {
	msg := func(s string) *string { return &s }
	switch {
	case errors.Is(cause, errTaskExpired):
		return &TaskUpdate{Status: mcp.TaskFailed, StatusMessage: msg("The task's TTL passed before it finished"),
			Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the task's TTL passed before it finished")}
	case cause != nil:
		return &TaskUpdate{Status: mcp.TaskCancelled, StatusMessage: msg(cancelMessage(cause))}
	case o.err == nil:
		c := *o.res
		run.r.complete(&c.ResultType, &c.Meta)
		raw, err := json.Marshal(&c)
		if err == nil {
			return &TaskUpdate{Status: mcp.TaskCompleted, Result: raw}
		}
		o.err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the result cannot be encoded: %v", err)
	}
	var je *jsonrpc.Error
	if !errors.As(o.err, &je) {
		je = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %v", o.err)
	}
	if run.modern {
		je = mcp.AdaptError(run.r.Version, je)
	}
	return &TaskUpdate{Status: mcp.TaskFailed, StatusMessage: &je.Message, Error: je}
}

// cancelMessage is the status message of a task cancelled for cause.
func cancelMessage(cause error) string {
	switch {
	case errors.Is(cause, ErrServerClosed):
		return "The server closed"
	case errors.Is(cause, errSessionEnded):
		return "The session ended"
	}
	return "Cancelled by the client"
}

// A taskOutbound carries the notifications of a modern call while it is
// synchronous, and drops them once it is a task: the request they belong
// to has been answered.
type taskOutbound struct {
	run      *taskRun
	mu       sync.Mutex
	inner    outbound
	detached bool
}

func (o *taskOutbound) detach() {
	o.mu.Lock()
	o.detached = true
	o.mu.Unlock()
}

func (o *taskOutbound) Notify(ctx context.Context, method string, params any) error {
	o.mu.Lock()
	inner, detached := o.inner, o.detached
	o.mu.Unlock()
	if detached {
		return nil
	}
	return inner.Notify(ctx, method, params)
}

func (o *taskOutbound) Call(ctx context.Context, method string, params, result any) error {
	return o.inner.Call(ctx, method, params, result)
}

// A relatedOutbound tags what a legacy task sends the client with
// _meta["io.modelcontextprotocol/related-task"], and keeps the task
// input_required while a question to the client is out.
type relatedOutbound struct {
	inner outbound
	run   *taskRun
}

func (o *relatedOutbound) Notify(ctx context.Context, method string, params any) error {
	p, err := withRelatedTask(params, o.run.id)
	if err != nil {
		return err
	}
	return o.inner.Notify(ctx, method, p)
}

func (o *relatedOutbound) Call(ctx context.Context, method string, params, result any) error {
	p, err := withRelatedTask(params, o.run.id)
	if err != nil {
		return err
	}
	o.run.asked(ctx, +1)
	defer o.run.asked(ctx, -1)
	return o.inner.Call(ctx, method, p, result)
}

// asked counts the legacy task's questions in flight and moves the task
// to input_required while there is one, back to working after.
func (run *taskRun) asked(ctx context.Context, delta int) {
	run.mu.Lock()
	run.asking += delta
	var u *TaskUpdate
	switch {
	case delta > 0 && run.asking == 1:
		u = &TaskUpdate{Status: mcp.TaskInputRequired}
	case delta < 0 && run.asking == 0:
		u = &TaskUpdate{Status: mcp.TaskWorking}
	}
	var rec *TaskRecord
	if u != nil {
		rec, _ = run.e.store.Update(context.WithoutCancel(ctx), run.id, u) // fails only once terminal
	}
	run.mu.Unlock()
	if rec != nil {
		run.e.notify(run, rec)
	}
}

// withRelatedTask returns params with the related-task entry in _meta.
func withRelatedTask(params any, id string) (json.RawMessage, error) {
	tag, err := json.Marshal(map[string]map[string]mcp.RelatedTaskMetadata{
		"_meta": {mcp.MetaKeyRelatedTask: {TaskID: id}},
	})
	if err != nil {
		return nil, err
	}
	if params == nil {
		return tag, nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if string(raw) == "null" {
		return tag, nil
	}
	return mcp.AddDefaultMembers(raw, tag)
}
