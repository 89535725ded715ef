package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"maps"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// TaskOptions enable and configure tasks. A zero field means its default.
//
// A task is a tool call that outlives its request: the client gets a task
// id at once and learns the outcome later, by polling (tasks/get) or from
// notifications. MCP has two kinds, and one engine serves both, for the
// tools that opt in with mcp.Tool.Execution.TaskSupport (optional or
// required; forbidden, the default, keeps a tool synchronous). Set
// Options.Tasks to enable them (without it TaskSupport is not enforced,
// and every call is synchronous):
//
//	srv := server.New(info, &server.Options{Tasks: &server.TaskOptions{}})
//	server.AddTool(srv, &mcp.Tool{Name: "render", Execution: &mcp.ToolExecution{
//		TaskSupport: mcp.TaskSupportOptional}}, render)
//
// The core, experimental tasks of 2025-11-25 are the client's choice: a
// tools/call with a task member creates a task at once (the server
// answers CreateTaskResult), and the client uses tasks/get, tasks/result
// (which blocks until the end and returns the tool's own result or
// error), tasks/list and tasks/cancel; the server sends
// notifications/tasks/status as the task moves. A required tool called
// without task is refused with -32601.
//
// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks,
// SEP-2663) is the server's choice, for requests that declare the
// extension in their capabilities. The handler runs in a goroutine of the
// engine; if it finishes within TaskOptions.Threshold the answer is the
// ordinary, synchronous one, otherwise the request answers a task
// (resultType "task") and the handler carries on with a context that no
// longer ends with the request, but with tasks/cancel, the TTL or
// the server's Shutdown or Close. Its progress and log notifications, which belong to the
// request, are dropped from then on. A handler may also ask to become a task
// at once with Request.RunAsTask; a required tool always answers with a
// task. The client polls tasks/get, answers the task's questions with
// tasks/update and may cancel it with tasks/cancel; listeners of
// subscriptions/listen that name the task get notifications/tasks.
// Requests without the extension get the synchronous answer of an
// optional tool and -32021 from a required tool and from the tasks/*
// methods.
//
// # Questions, re-entrancy and tasks
//
// Request.Ask (Elicit, Sample, ListRoots) works in every phase, but not
// in the same way:
//
//   - Legacy task: the questions are ordinary requests to the client,
//     tagged with _meta["io.modelcontextprotocol/related-task"]; the task
//     is input_required while they are out.
//   - Modern request, before it became a task: the usual multi round-trip
//     rule. An unanswered question ends the round with input_required; the
//     client retries with the answers and the handler runs again from the
//     start, so what precedes a question must be safe to do again. A round
//     that asked for input never becomes a task.
//   - Modern task: no round ends and nothing runs twice. Ask marks the
//     task input_required with the questions as inputRequests (every
//     question of one Ask call at once), blocks until tasks/update has
//     answered them all, then the task is working again. Answers gathered
//     by earlier rounds are used first, which is how a tool can ask up
//     front, synchronously, and then go on as a task (call RunAsTask after
//     the questions).
//
// So a handler that asks before RunAsTask must follow the re-entrancy
// rules of the package documentation; after it, it need not. Keys of the
// questions of one task must be unique over its lifetime.
//
// # Ownership, bounds and scale
//
// A task belongs to the principal of the request that created it
// (Options.Principal), else to its legacy session, else (modern requests
// without a principal) to whoever knows its id: ids carry 128 random bits.
// Others get -32602, as for an unknown id. A legacy session's own tasks
// end with it. Tasks are kept for their TTL from creation (the client's
// ttl, up to TaskOptions.MaxTTL, or DefaultTTL) and a handler that runs
// longer is cancelled and its task failed. The store bounds the number of
// tasks in all and per owner. Server.Shutdown lets running tasks finish
// within its context, then cancels those left (they fail with "The server
// closed") and waits for their handlers; Server.Close cancels them at once.
//
// The handler of a task runs on the instance that created it, so with
// several instances a load balancer must route tasks/update and
// tasks/cancel (HTTP: Mcp-Name carries the task id) to that instance; any
// instance sharing the TaskStore answers tasks/get.
type TaskOptions struct {
	// Store keeps the tasks. Default: a MemoryTaskStore bounded by
	// MaxTasks and MaxTasksPerOwner (which apply to it only).
	Store TaskStore
	// Threshold is how long a task-supporting call of the modern era runs
	// synchronously before the server answers with a task. Default
	// DefaultTaskThreshold; negative: never on time alone (only
	// Request.RunAsTask and required tools make tasks).
	Threshold time.Duration
	// DefaultTTL is how long a task is kept when the client asks for no
	// TTL; MaxTTL caps what it may ask (2025-11-25). Defaults
	// DefaultTaskTTL and DefaultMaxTaskTTL.
	DefaultTTL, MaxTTL time.Duration
	// PollInterval is the polling interval suggested to clients. Default
	// DefaultTaskPollInterval.
	PollInterval time.Duration
	// MaxTasks and MaxTasksPerOwner bound the default store. Defaults
	// DefaultMaxTasks and DefaultMaxTasksPerOwner. MaxTasksPerOwner also
	// bounds, with any store, the task ids one subscriptions/listen
	// watches (those beyond it are not acknowledged).
	MaxTasks, MaxTasksPerOwner int
}

// Defaults of TaskOptions.
const (
	DefaultTaskThreshold    = 100 * time.Millisecond
	DefaultTaskTTL          = time.Hour
	DefaultMaxTaskTTL       = 24 * time.Hour
	DefaultTaskPollInterval = 500 * time.Millisecond
)

// Bounds of the engine.
const (
	taskCloseWait  = 5 * time.Second // how long cancelled task handlers are waited for
	taskSweepEvery = time.Minute     // expired tasks are swept at most this often
)

// Causes of the end of a task's context.
var (
	errTaskCancelled  = errors.New("mcp server: the task was cancelled")
	errTaskExpired    = errors.New("mcp server: the task's TTL has passed")
	errSessionEnded   = errors.New("mcp server: the session that owns the task ended")
	errEngineStopping = jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the server is closing")
)

// taskEngine runs the tasks of a server.
type taskEngine struct {
	s                 *Server
	store             TaskStore
	threshold         time.Duration
	ttl, maxTTL, poll time.Duration
	maxPerOwner       int // TaskOptions.MaxTasksPerOwner, or its default

	mu        sync.Mutex
	stopping  bool                  // Shutdown is under way: no new handler starts
	live      map[*taskRun]struct{} // runs whose handler goroutine is alive
	byID      map[string]*taskRun   // runs that are tasks, by id
	sessions  map[*Session]string   // owner tokens of the legacy sessions that own tasks
	lastSweep time.Time
}

func newTaskEngine(s *Server, o *TaskOptions) *taskEngine {
	e := &taskEngine{
		s: s, store: o.Store, threshold: o.Threshold,
		ttl: o.DefaultTTL, maxTTL: o.MaxTTL, poll: o.PollInterval,
		live: make(map[*taskRun]struct{}), byID: make(map[string]*taskRun),
		sessions: make(map[*Session]string),
	}
	if e.store == nil && s.opts.Store != nil {
		e.store = s.opts.Store.Tasks() // scale-out: (shared.go)
	}
	if e.store == nil {
		e.store = NewMemoryTaskStore(o.MaxTasks, o.MaxTasksPerOwner)
	}
	e.maxPerOwner = orDefault(o.MaxTasksPerOwner, DefaultMaxTasksPerOwner)
	if e.threshold == 0 {
		e.threshold = DefaultTaskThreshold
	}
	if e.maxTTL <= 0 {
		e.maxTTL = DefaultMaxTaskTTL
	}
	if e.ttl <= 0 {
		e.ttl = DefaultTaskTTL
	}
	e.ttl = min(max(e.ttl, time.Millisecond), e.maxTTL)
	if e.poll <= 0 {
		e.poll = DefaultTaskPollInterval
	}
	e.poll = max(e.poll, time.Millisecond)
	return e
}

// noteLimit bounds the task notifications waiting for one client (see
// Server.putNote), and the tasks one listen may watch: the tasks a
// client may own.
func (e *taskEngine) noteLimit() int {
	if e == nil {
		return DefaultMaxTasksPerOwner
	}
	return e.maxPerOwner
}

// noOwner owns nothing: the owner of a legacy session that created no
// task yet.
const noOwner = "s:none"

// owner returns who the tasks of r belong to. A legacy session gets its
// owner token when it creates its first task (create).
func (e *taskEngine) owner(ctx context.Context, r *Request, create bool) string {
	if f := e.s.opts.Principal; f != nil {
		if p := f(ctx); p != "" {
			return "p:" + p
		}
	}
	if r.Session != nil {
		return e.sessionOwner(r.Session, create)
	}
	return ""
}

// sessionOwner returns the owner token of a legacy session; when the
// session ends, removeSession calls sessionEnded, which drops its tasks.
func (e *taskEngine) sessionOwner(sess *Session, create bool) string {
	if sess.shared { // the same on every instance (shared.go)
		return sharedOwner(sess.id)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if owner, ok := e.sessions[sess]; ok {
		return owner
	}
	if !create {
		return noOwner
	}
	owner := "s:" + rand.Text()
	e.sessions[sess] = owner
	return owner
}

// sessionEnded drops the tasks of a legacy session that ended, if it owns
// any.
func (e *taskEngine) sessionEnded(sess *Session) {
	if e == nil {
		return
	}
	e.mu.Lock()
	owner, ok := e.sessions[sess]
	delete(e.sessions, sess)
	e.mu.Unlock()
	if ok {
		e.dropSession(owner)
	}
}

// dropSession cancels and forgets the tasks of a legacy session that
// ended: nobody can reach them any more.
func (e *taskEngine) dropSession(owner string) {
	e.mu.Lock()
	var runs []*taskRun
	for _, run := range e.byID {
		if run.owner == owner {
			runs = append(runs, run)
		}
	}
	e.mu.Unlock()
	for _, run := range runs {
		run.cancel(errSessionEnded)
	}
	ctx, cancel := context.WithTimeout(context.Background(), taskCloseWait)
	defer cancel()
	for range maxPages { // bounded: the store bounds tasks per owner
		recs, _, err := e.store.List(ctx, owner, "", 100)
		if err != nil || len(recs) == 0 {
			return
		}
		for _, rec := range recs {
			if err := e.store.Delete(ctx, rec.ID); err != nil {
				e.s.log.Debug("mcp server: forgetting a task", "task", rec.ID, "error", err)
				return
			}
		}
	}
}

// maxPages bounds loops over pages of the store.
const maxPages = 10000

// start runs f in a goroutine owned by the engine, for run.
func (e *taskEngine) start(run *taskRun, f func()) error {
	e.mu.Lock()
	if e.stopping {
		e.mu.Unlock()
		return errEngineStopping
	}
	e.live[run] = struct{}{}
	e.mu.Unlock()
	go func() {
		defer func() {
			e.mu.Lock()
			delete(e.live, run)
			e.mu.Unlock()
			close(run.exited)
		}()
		f()
	}()
	return nil
}

// shutdown is the tasks' part of Server.Shutdown: it refuses new task
// handlers, lets the running ones finish until ctx ends, then cancels
// those left and waits for them (up to taskCloseWait).
func (e *taskEngine) shutdown(ctx context.Context) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.stopping = true
	runs := make([]*taskRun, 0, len(e.live))
	for run := range e.live {
		runs = append(runs, run)
	}
	e.mu.Unlock()
	left := runs[:0]
	for _, run := range runs {
		select {
		case <-run.exited:
		case <-ctx.Done():
			left = append(left, run)
		}
	}
	if len(left) == 0 {
		return
	}
	for _, run := range left {
		run.cancel(ErrServerClosed)
	}
	deadline := time.NewTimer(taskCloseWait)
	defer deadline.Stop()
	for _, run := range left {
		select {
		case <-run.exited:
		case <-deadline.C:
			e.s.log.Warn("mcp server: a task handler ignores its context; Shutdown stops waiting for it")
			return
		}
	}
}

// register makes run reachable by its task id.
func (e *taskEngine) register(run *taskRun) {
	e.mu.Lock()
	e.byID[run.id] = run
	e.mu.Unlock()
}

func (e *taskEngine) unregister(run *taskRun) {
	e.mu.Lock()
	if e.byID[run.id] == run {
		delete(e.byID, run.id)
	}
	e.mu.Unlock()
}

// running returns the run of the task id, if it runs here.
func (e *taskEngine) running(id string) *taskRun {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.byID[id]
}

// newRecord returns a new working task of owner.
func (e *taskEngine) newRecord(owner string, modern bool, ttl time.Duration) *TaskRecord {
	now := time.Now()
	return &TaskRecord{
		ID: rand.Text(), Owner: owner, Modern: modern, Status: mcp.TaskWorking,
		CreatedAt: now, LastUpdatedAt: now, TTL: ttl, PollInterval: e.poll,
	}
}

// create stores a new task, sweeping expired ones now and then. With a
// store, the task names this instance, which runs it.
func (e *taskEngine) create(ctx context.Context, rec *TaskRecord) error {
	if sh := e.s.shared; sh != nil {
		inst, err := sh.join(ctx)
		if err != nil {
			return err
		}
		rec.Instance = inst
	}
	now := time.Now()
	e.mu.Lock()
	sweep := now.Sub(e.lastSweep) >= taskSweepEvery
	if sweep {
		e.lastSweep = now
	}
	e.mu.Unlock()
	if sweep {
		if _, err := e.store.DeleteExpired(ctx, now); err != nil {
			e.s.log.Debug("mcp server: sweeping expired tasks", "error", err)
		}
	}
	return e.store.Create(ctx, rec)
}

// taskError turns an error of the engine or its store into the error a
// client gets.
func taskError(err error) error {
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		return je
	case errors.Is(err, ErrTaskLimit):
		return jsonrpc.NewError(jsonrpc.CodeOverloaded, "Too many tasks: wait for some to end, or cancel them")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: tasks: %v", err)
}

// addTaskCapabilities declares tasks, in both shapes, when they are
// enabled; capabilitiesFor keeps the shape of each era.
func (s *Server) addTaskCapabilities(c *mcp.ServerCapabilities) {
	if s.tasks == nil {
		return
	}
	c.Tasks = &mcp.ServerTasksCapability{
		List: &mcp.Supported{}, Cancel: &mcp.Supported{},
		Requests: &mcp.ServerTaskRequests{Tools: &mcp.ToolsTaskRequests{Call: &mcp.Supported{}}},
	}
	c.Extensions = maps.Clone(c.Extensions)
	if c.Extensions == nil {
		c.Extensions = make(map[string]json.RawMessage)
	}
	c.Extensions[mcp.ExtensionTasks] = json.RawMessage("{}")
}

// capabilitiesFor returns the capabilities as revision v declares them:
// the tasks extension in the modern era (never the core tasks
// capability), the core tasks capability in 2025-11-25.
func (s *Server) capabilitiesFor(v mcp.Version) mcp.ServerCapabilities {
	c := s.Capabilities()
	if s.tasks == nil {
		return c
	}
	if mcp.IsModern(v) {
		c.Tasks = nil
		return c
	}
	if !mcp.HasTasks(v) {
		c.Tasks = nil
	}
	c.Extensions = maps.Clone(c.Extensions)
	delete(c.Extensions, mcp.ExtensionTasks)
	if len(c.Extensions) == 0 {
		c.Extensions = nil
	}
	return c
}

// RunAsTask turns the call into a task now, if it can be one, and reports
// whether it is one: a legacy task-augmented call already is; a modern
// call of a task-supporting tool whose request declared the tasks
// extension becomes one (the request answers with the task, and the
// handler goes on); anything else stays synchronous and RunAsTask
// returns false. Once it returned true, questions (Ask) wait for
// tasks/update instead of ending a round: call it after the questions
// that should be answered up front, before the long work.
func (r *Request) RunAsTask(ctx context.Context) bool {
	run := r.taskRun()
	if run == nil {
		return false
	}
	run.mu.Lock()
	switch run.phase {
	case phaseTask:
		run.mu.Unlock()
		return true
	case phaseEnded:
		run.mu.Unlock()
		return false
	}
	run.escalateOnce.Do(func() { close(run.escalate) })
	run.mu.Unlock()
	select {
	case <-run.converted:
	case <-ctx.Done():
	case <-run.ctx.Done():
	}
	return run.isTask()
}

// TaskID returns the id of the task the call runs as, or "" while it is
// not a task.
func (r *Request) TaskID() string {
	run := r.taskRun()
	if run == nil {
		return ""
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.phase != phaseTask {
		return ""
	}
	return run.id
}
