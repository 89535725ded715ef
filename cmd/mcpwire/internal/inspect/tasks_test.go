package inspect

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// quietTasks is a transport whose connection drops the server's
// notifications/tasks/status: a server that sends none (they are
// optional in 2025-11-25).
// It notes when the client reads that the task ended (a result of
// tasks/get or of the call with the task completed).
type quietTasks struct {
	transport.Transport
	ended *ended
}

// ended is closed once a task has ended.
type ended struct {
	once sync.Once
	c    chan struct{}
}

func (q quietTasks) Connect(ctx context.Context) (transport.Conn, error) {
	c, err := q.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return quietConn{c, q.ended}, nil
}

type quietConn struct {
	transport.Conn
	ended *ended
}

func (q quietConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, err := q.Conn.Read(ctx)
		if n, ok := m.(*jsonrpc.Request); ok && !n.IsCall() && n.Method == mcp.NotificationTaskStatus {
			continue
		}
		if r, ok := m.(*jsonrpc.Response); ok {
			var t mcp.Task
			if json.Unmarshal(r.Result, &t) == nil && t.TaskID != "" && t.Status == mcp.TaskCompleted {
				q.ended.once.Do(func() { close(q.ended.c) })
			}
		}
		return m, err
	}
}

// TestFollowedTaskWithoutNotifications: a task started from the page
// (2025-11-25, "Call as task") is followed by the inspector with
// tasks/get until it ends, so that the Tasks view shows it live from a
// server that sends no status notifications. (It stayed "working" until
// the page asked for its result.)
func TestFollowedTaskWithoutNotifications(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "tasks", Version: "1"}, &server.Options{Tasks: &server.TaskOptions{PollInterval: 100 * time.Millisecond}})
	err := server.AddTool(srv, &mcp.Tool{Name: "work", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
			r.RunAsTask(ctx)
			select {
			case <-time.After(300 * time.Millisecond):
				return "done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	done := &ended{c: make(chan struct{})}
	in := inspect(t, func(a *app.App) {
		a.Connect = func(ctx context.Context, _ *app.Target, _ *slog.Logger) (*app.Link, error) {
			ct, st := memory.NewPair(nil)
			ss, err := srv.Connect(context.Background(), st)
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() {
				ss.Close()
				ss.Wait()
			})
			return &app.Link{Transport: quietTasks{ct, done}}, nil
		}
	}, "--protocol", "2025-11-25", "--", "testserver")
	status, body := in.post(t, "task/call", `{"name":"work"}`)
	if status != http.StatusOK || !strings.Contains(body, `"taskId"`) {
		t.Fatalf("task/call: %d %s", status, body)
	}
	select {
	case <-done.c:
	case <-time.After(15 * time.Second):
		t.Fatalf("the client was not told the task's end within 15s")
	}
}
