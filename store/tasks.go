package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A Tasks store keeps the state of tasks: what tasks/get, tasks/result and
// tasks/list read, and what the task engine writes as a task runs. The
// handler of a task runs on the server instance that created it; the
// store is what may be shared (see the package documentation on tasks).
//
// Implementations must be safe for concurrent use, must bound what they
// keep (they decide what happens at the bound: Create fails with
// ErrTaskLimit), and must not return a task once its TTL has passed.
// Errors reaching a shared store wrap ErrUnavailable.
// Records passed in and returned are copies: neither side keeps or
// changes the other's.
type Tasks interface {
	// Create stores a new task. It fails with ErrTaskLimit when the store
	// holds as many tasks as it allows, in total or for t.Owner.
	Create(ctx context.Context, t *TaskRecord) error
	// Get returns the task id, or ErrTaskNotFound (also once it expired).
	Get(ctx context.Context, id string) (*TaskRecord, error)
	// Update applies u to the task id atomically and returns the task as
	// it now is. It fails with ErrTaskNotFound, with ErrTaskTerminal when
	// the task already reached a terminal status, and with
	// ErrTaskTransition when u.Status is not a move the task may make
	// (mcp.TaskStatus.CanMoveTo).
	Update(ctx context.Context, id string, u *TaskUpdate) (*TaskRecord, error)
	// List returns up to limit tasks of owner, oldest first, from the
	// position cursor designates ("" for the first), and the cursor of
	// the next page ("" after the last). A cursor it did not make fails
	// with ErrTaskCursor.
	List(ctx context.Context, owner, cursor string, limit int) ([]*TaskRecord, string, error)
	// Delete removes the task id; removing a missing task is not an error.
	Delete(ctx context.Context, id string) error
	// DeleteExpired removes every task whose TTL has passed at now and
	// returns how many it removed.
	DeleteExpired(ctx context.Context, now time.Time) (int, error)
}

// Errors of a Tasks store.
var (
	ErrTaskNotFound   = errors.New("store: no such task")
	ErrTaskTerminal   = errors.New("store: the task already reached a terminal status")
	ErrTaskTransition = errors.New("store: the task cannot move to that status")
	ErrTaskLimit      = errors.New("store: too many tasks")
	ErrTaskCursor     = errors.New("store: invalid task list cursor")
)

// A TaskRecord is the stored state of one task.
type TaskRecord struct {
	// ID is the task id: random, unguessable (the engine draws 128 bits).
	ID string
	// Owner is who may see the task: the principal of the request that
	// created it (Options.Principal), else a token of its legacy session,
	// else "" (modern requests without a principal: the id is the only
	// capability).
	Owner string
	// Modern marks a task of the 2026-07-28 tasks extension, whose results
	// carry resultType.
	Modern bool
	// Instance is the number of the server instance that runs the task's
	// handler (Store.NewInstance), where tasks/update and tasks/cancel
	// are forwarded; 0 for a server that shares no store.
	Instance      int64
	Status        mcp.TaskStatus
	StatusMessage string
	CreatedAt     time.Time
	LastUpdatedAt time.Time
	// TTL is how long the task is kept from CreatedAt; it runs at most
	// that long.
	TTL time.Duration
	// PollInterval is how often clients should poll.
	PollInterval time.Duration
	// InputRequests are the questions the task waits for while its status
	// is input_required (tasks extension).
	InputRequests mcp.InputRequests
	// Result is the final result of the request, as sent (completed).
	Result json.RawMessage
	// Error is the JSON-RPC error the request failed with (failed).
	Error *jsonrpc.Error
}

// ExpiresAt is when the task may be forgotten.
func (t *TaskRecord) ExpiresAt() time.Time { return t.CreatedAt.Add(t.TTL) }

// Clone returns a copy of t that shares only immutable data (the bytes of
// Result and of the input requests' params).
func (t *TaskRecord) Clone() *TaskRecord {
	c := *t
	c.InputRequests = maps.Clone(t.InputRequests)
	if t.Error != nil {
		e := *t.Error
		c.Error = &e
	}
	return &c
}

// A TaskUpdate changes a task; zero fields keep what the task has.
type TaskUpdate struct {
	// Status is the new status; "" keeps the status.
	Status mcp.TaskStatus
	// StatusMessage, if not nil, replaces the status message.
	StatusMessage *string
	// InputRequests replace the task's pending questions; the resulting
	// status must be input_required, and any other status clears them.
	InputRequests mcp.InputRequests
	// Result is stored with Status completed, Error with Status failed.
	Result json.RawMessage
	Error  *jsonrpc.Error
}

// Apply applies u to t at now, checking the transition: ErrTaskTerminal
// when t already ended, ErrTaskTransition when u.Status is not a move t
// may make. Implementations of Tasks use it, so that every store makes
// the same moves.
func (u *TaskUpdate) Apply(t *TaskRecord, now time.Time) error {
	if t.Status.IsTerminal() {
		return ErrTaskTerminal
	}
	if u.Status != "" && u.Status != t.Status {
		if !t.Status.CanMoveTo(u.Status) {
			return ErrTaskTransition
		}
		t.Status = u.Status
	}
	if u.StatusMessage != nil {
		t.StatusMessage = *u.StatusMessage
	}
	t.InputRequests = nil
	if t.Status == mcp.TaskInputRequired {
		t.InputRequests = maps.Clone(u.InputRequests)
	}
	switch t.Status {
	case mcp.TaskCompleted:
		t.Result = u.Result
	case mcp.TaskFailed:
		if u.Error != nil {
			e := *u.Error
			t.Error = &e
		}
	}
	t.LastUpdatedAt = now
	return nil
}

// Defaults of MemoryTasks.
const (
	DefaultMaxTasks         = 10000
	DefaultMaxTasksPerOwner = 100
)

// MemoryTasks is the default Tasks store: tasks in memory, bounded in
// total and per owner, forgotten once their TTL has passed (checked when
// read, and swept when a bound is reached). It suits a single server
// instance.
type MemoryTasks struct {
	max, maxPerOwner int

	mu      sync.Mutex
	seq     uint64
	tasks   map[string]*memTask
	byOwner map[string][]*memTask // each owner's tasks, by seq
}

type memTask struct {
	rec TaskRecord
	seq uint64
}

// NewMemoryTasks returns an in-memory store holding at most maxTasks
// tasks in all and maxPerOwner per owner (defaults DefaultMaxTasks and
// DefaultMaxTasksPerOwner when not positive).
func NewMemoryTasks(maxTasks, maxPerOwner int) *MemoryTasks {
	if maxTasks <= 0 {
		maxTasks = DefaultMaxTasks
	}
	if maxPerOwner <= 0 {
		maxPerOwner = DefaultMaxTasksPerOwner
	}
	return &MemoryTasks{
		max: maxTasks, maxPerOwner: maxPerOwner,
		tasks: make(map[string]*memTask), byOwner: make(map[string][]*memTask),
	}
}

// Create implements Tasks.
func (m *MemoryTasks) Create(ctx context.Context, t *TaskRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.tasks[t.ID]; dup {
		return errors.New("store: duplicate task id")
	}
	if len(m.tasks) >= m.max || len(m.byOwner[t.Owner]) >= m.maxPerOwner {
		m.sweepLocked(time.Now())
		if len(m.tasks) >= m.max || len(m.byOwner[t.Owner]) >= m.maxPerOwner {
			return ErrTaskLimit
		}
	}
	m.seq++
	mt := &memTask{rec: *t.Clone(), seq: m.seq}
	m.tasks[t.ID] = mt
	m.byOwner[t.Owner] = append(m.byOwner[t.Owner], mt)
	return nil
}

// getLocked returns the live task id, forgetting it if it expired.
func (m *MemoryTasks) getLocked(id string, now time.Time) *memTask {
	mt := m.tasks[id]
	if mt != nil && !now.Before(mt.rec.ExpiresAt()) {
		m.deleteLocked(mt)
		return nil
	}
	return mt
}

// Get implements Tasks.
func (m *MemoryTasks) Get(ctx context.Context, id string) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt := m.getLocked(id, time.Now())
	if mt == nil {
		return nil, ErrTaskNotFound
	}
	return mt.rec.Clone(), nil
}

// Update implements Tasks.
func (m *MemoryTasks) Update(ctx context.Context, id string, u *TaskUpdate) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	mt := m.getLocked(id, now)
	if mt == nil {
		return nil, ErrTaskNotFound
	}
	next := mt.rec
	if err := u.Apply(&next, now); err != nil {
		return nil, err
	}
	mt.rec = next
	return mt.rec.Clone(), nil
}

// List implements Tasks.
func (m *MemoryTasks) List(ctx context.Context, owner, cursor string, limit int) ([]*TaskRecord, string, error) {
	var after uint64
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) < 2 || b[0] != 't' {
			return nil, "", ErrTaskCursor
		}
		if after, err = strconv.ParseUint(string(b[1:]), 10, 64); err != nil {
			return nil, "", ErrTaskCursor
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	list := m.byOwner[owner]
	if limit <= 0 {
		limit = len(list)
	}
	i, _ := slices.BinarySearchFunc(list, after+1, func(mt *memTask, seq uint64) int {
		if mt.seq < seq {
			return -1
		}
		if mt.seq > seq {
			return 1
		}
		return 0
	})
	var out []*TaskRecord
	var last uint64
	for ; i < len(list) && len(out) < limit; i++ {
		if now.Before(list[i].rec.ExpiresAt()) {
			out = append(out, list[i].rec.Clone())
			last = list[i].seq
		}
	}
	if i >= len(list) {
		return out, "", nil
	}
	return out, base64.RawURLEncoding.EncodeToString([]byte("t" + strconv.FormatUint(last, 10))), nil
}

// Delete implements Tasks.
func (m *MemoryTasks) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mt := m.tasks[id]; mt != nil {
		m.deleteLocked(mt)
	}
	return nil
}

// DeleteExpired implements Tasks.
func (m *MemoryTasks) DeleteExpired(ctx context.Context, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sweepLocked(now), nil
}

// Len returns how many tasks the store holds, expired ones included until
// they are swept.
func (m *MemoryTasks) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tasks)
}

func (m *MemoryTasks) sweepLocked(now time.Time) int {
	n := 0
	for _, mt := range m.tasks {
		if !now.Before(mt.rec.ExpiresAt()) {
			m.deleteLocked(mt)
			n++
		}
	}
	return n
}

func (m *MemoryTasks) deleteLocked(mt *memTask) {
	delete(m.tasks, mt.rec.ID)
	owner := mt.rec.Owner
	list := m.byOwner[owner]
	if i := slices.Index(list, mt); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(m.byOwner, owner)
	} else {
		m.byOwner[owner] = list
	}
}

// The in-memory store is a Tasks store.
var _ Tasks = (*MemoryTasks)(nil)
