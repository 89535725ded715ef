package inspect

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/doctor"
	"github.com/mcpwire/mcpwire/mcp"
)

// The doctor, in the page: the checklist of the server of the session
// (or of the catalog's server the page names), as mcpwire doctor prints
// it; and the tasks of the 2025-11-25 form, which the client asks for
// (in the 2026-07-28 era the server decides, and a call follows its task
// by itself: the page shows it from the frames).

// doctorArgs name the server to examine: "" for the session's, or a
// server of the catalog (and the digest of its entry, as for Connect).
type doctorArgs struct {
	Name  string `json:"name,omitempty"`
	Trust string `json:"trust,omitempty"`
}

// runDoctor runs the doctor. The doctor starts the server it examines:
// a server of the catalog only if Connect would (catalogTarget).
func (in *Inspector) runDoctor(ctx context.Context, a *doctorArgs) (*outcome, error) {
	t := in.current()
	if a.Name != "" {
		var err error
		if t, err = in.catalogTarget(a.Name, a.Trust); err != nil {
			return nil, err
		}
	}
	if t == nil {
		return nil, errNoSession
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, in.opts.RequestTimeout)
	defer cancel()
	return &outcome{Result: doctor.Run(ctx, doctor.TargetOf(t), nil), MS: msSince(start)}, nil
}

// taskCallArgs are a tool call as a task (2025-11-25).
type taskCallArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// callAsTask calls a tool as a task, and returns the task at once; the
// inspector then follows it (followTask).
func (in *Inspector) callAsTask(ctx context.Context, a *taskCallArgs) (*outcome, error) {
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		t, err := s.CallToolAsTask(ctx, &mcp.CallToolParams{Name: a.Name, Arguments: a.Arguments}, 0)
		if err == nil {
			in.followTask(t)
		}
		return t, err
	})
}

// The bounds of the polling of a task (2025-11-25) the inspector follows.
const (
	minTaskPoll     = 200 * time.Millisecond
	maxTaskPoll     = 5 * time.Second
	defaultTaskPoll = time.Second
)

// followTask polls tasks/get for a task the page started, at the
// interval the server suggests (kept between minTaskPoll and
// maxTaskPoll), until it ends: its status goes to the Tasks view from
// the frames, live even from a server that sends no
// notifications/tasks/status (the status notifications are optional).
// Following counts as a request of the page (MaxRunning, the request
// timeout); a task the inspector cannot follow now is left to the page's
// buttons.
func (in *Inspector) followTask(t *mcp.Task) {
	ctx, sess, end, err := in.begin(in.base, "")
	if err != nil {
		in.note("task " + t.TaskID + " is not followed: " + err.Error())
		return
	}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		defer end()
		for !t.Status.IsTerminal() {
			wait := defaultTaskPoll
			if t.PollInterval != nil {
				wait = time.Duration(*t.PollInterval) * time.Millisecond
			}
			timer := time.NewTimer(min(max(wait, minTaskPoll), maxTaskPoll))
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-sess.Done():
				timer.Stop()
				return
			case <-timer.C:
			}
			next, err := sess.GetTask(ctx, t.TaskID)
			if err != nil {
				return // the task's end, or the session's, is in the frames
			}
			t = next
		}
	}()
}

// taskArgs name a task.
type taskArgs struct {
	TaskID string `json:"taskId"`
}

// taskResult waits for a task's result (2025-11-25).
func (in *Inspector) taskResult(ctx context.Context, a *taskArgs) (*outcome, error) {
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		return s.TaskResult(ctx, a.TaskID)
	})
}

// cancelTask cancels a task (2025-11-25).
func (in *Inspector) cancelTask(ctx context.Context, a *taskArgs) (*outcome, error) {
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		return s.CancelTask(ctx, a.TaskID)
	})
}

// getTask reads a task's state (2025-11-25).
func (in *Inspector) getTask(ctx context.Context, a *taskArgs) (*outcome, error) {
	return in.run(ctx, "", func(ctx context.Context, s *client.Session) (any, error) {
		return s.GetTask(ctx, a.TaskID)
	})
}
