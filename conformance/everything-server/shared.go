package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// With -redis, the instances share their fixtures' state: after a
// trigger, the instance that ran it publishes the state on the store's
// bus, and the others make theirs the same (adding or removing the
// dynamic tool and prompt, which their servers announce to their own
// listens too; taking the watched resource's revision). A list change
// may so reach a client more than once, which clients tolerate: it only
// says "list again".

// fixturesTopic is the bus topic of the fixtures' state.
const fixturesTopic = "everything/fixtures"

// fixtureState is what the triggers change.
type fixtureState struct {
	DynamicTool   bool `json:"tool"`
	DynamicPrompt bool `json:"prompt"`
	Watched       int  `json:"watched"`
}

// sharedFixtures publishes and applies the fixtures' state.
type sharedFixtures struct {
	e   *everything
	bus store.Bus
	log *slog.Logger
}

// shareFixtures subscribes e to the other instances' fixture states; the
// subscription ends with the store.
func shareFixtures(e *everything, st store.Store, logger *slog.Logger) *sharedFixtures {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	sf := &sharedFixtures{e: e, bus: st.Bus(), log: logger}
	sf.bus.Subscribe(fixturesTopic, sf.apply)
	return sf
}

// publishLocked sends the state (e.mu held); nil sf does nothing.
func (sf *sharedFixtures) publishLocked() {
	if sf == nil {
		return
	}
	e := sf.e
	b, _ := json.Marshal(fixtureState{DynamicTool: e.dynamicTool, DynamicPrompt: e.dynamicPrompt, Watched: e.watchedRevision})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := sf.bus.Publish(ctx, fixturesTopic, b); err != nil {
		sf.log.Warn("the other instances were not told of a fixture change", "error", err)
	}
}

// apply makes this instance's fixtures what another instance published.
func (sf *sharedFixtures) apply(msg []byte) {
	var st fixtureState
	if json.Unmarshal(msg, &st) != nil {
		return
	}
	e := sf.e
	e.mu.Lock()
	defer e.mu.Unlock()
	e.setDynamicToolLocked(st.DynamicTool)
	e.setDynamicPromptLocked(st.DynamicPrompt)
	e.watchedRevision = max(e.watchedRevision, st.Watched)
}

// streamedProgressArgs are the arguments of test_streamed_progress.
type streamedProgressArgs struct {
	Steps   int  `json:"steps"`             // progress notifications, 1 to 1000
	DelayMs int  `json:"delayMs,omitempty"` // between them, up to 1000
	Poll    bool `json:"poll,omitempty"`    // close the response stream first (SEP-1699)
}

// addScaleOutTools adds test_streamed_progress, the long call of the
// scale-out tests: it reports progress steps times, every delayMs, and
// with poll closes its response stream first, so that the client follows
// the call with GET and Last-Event-ID, on any instance.
func (e *everything) addScaleOutTools() error {
	return server.AddTool(e.srv, &mcp.Tool{
		Name:        "test_streamed_progress",
		Description: "Reports progress steps times, delayMs apart; with poll, closes its response stream first so that the client resumes it",
	}, func(ctx context.Context, r *server.Request, in streamedProgressArgs) (string, error) {
		steps, delay := min(max(in.Steps, 1), 1000), time.Duration(min(max(in.DelayMs, 0), 1000))*time.Millisecond
		if in.Poll {
			streamable.CloseStream(ctx)
		}
		for i := 1; i <= steps; i++ {
			if err := pause(ctx, delay); err != nil {
				return "", err
			}
			if err := r.Progress(ctx, float64(i), float64(steps), ""); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("%d steps done", steps), nil
	})
}
