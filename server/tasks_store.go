package server

import "github.com/mcpwire/mcpwire/store"

// The task store lives in package store, with everything else server
// instances may share; these names keep the server's API whole.

// A TaskStore keeps the state of tasks: what tasks/get, tasks/result and
// tasks/list read, and what the task engine writes as a task runs (see
// store.Tasks). Options.Store provides one shared by instances.
type TaskStore = store.Tasks

// A TaskRecord is the stored state of one task (see store.TaskRecord).
type TaskRecord = store.TaskRecord

// A TaskUpdate changes a task (see store.TaskUpdate).
type TaskUpdate = store.TaskUpdate

// MemoryTaskStore is the default TaskStore (see store.MemoryTasks).
type MemoryTaskStore = store.MemoryTasks

// Errors of a TaskStore.
var (
	ErrTaskNotFound   = store.ErrTaskNotFound
	ErrTaskTerminal   = store.ErrTaskTerminal
	ErrTaskTransition = store.ErrTaskTransition
	ErrTaskLimit      = store.ErrTaskLimit
	ErrTaskCursor     = store.ErrTaskCursor
)

// Defaults of the in-memory store.
const (
	DefaultMaxTasks         = store.DefaultMaxTasks
	DefaultMaxTasksPerOwner = store.DefaultMaxTasksPerOwner
)

// NewMemoryTaskStore returns an in-memory store holding at most maxTasks
// tasks in all and maxPerOwner per owner (defaults DefaultMaxTasks and
// DefaultMaxTasksPerOwner when not positive).
func NewMemoryTaskStore(maxTasks, maxPerOwner int) *MemoryTaskStore {
	return store.NewMemoryTasks(maxTasks, maxPerOwner)
}
