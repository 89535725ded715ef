package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// testServerEnv makes the test binary the stdio server of the tests
// (testServer) instead of running the tests.
const testServerEnv = "MCPWIRE_BRIDGE_TEST_SERVER"

// TestMain runs the tests, checking that they leave no goroutine behind,
// or serves as the tests' stdio server.
func TestMain(m *testing.M) {
	if os.Getenv(testServerEnv) != "" {
		os.Exit(runTestServer())
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// deadline bounds every wait of these tests: only a failure reaches it.
const deadline = 60 * time.Second

// testCommand returns the command of the tests' stdio server.
func testCommand() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), testServerEnv+"=1")
	return cmd
}

// The tests' stdio server: small tools that show which process serves a
// request, crash it, hold a call until told, and count cancellations.
type testTools struct {
	gate      chan struct{} // closed by release
	gateOnce  sync.Once
	cancelled atomic.Int64
}

type (
	noArgs   struct{}
	textArgs struct {
		Text string `json:"text"`
	}
	stepsArgs struct {
		First int `json:"first" jsonschema:"steps before the gate"`
		Total int `json:"total" jsonschema:"steps in all"`
	}
	tagArgs struct {
		Tag string `json:"tag"`
		N   int    `json:"n"`
	}
)

func runTestServer() int {
	tt := &testTools{gate: make(chan struct{})}
	srv := server.New(mcp.Implementation{Name: "bridge-test", Version: "1.0.0"}, nil)
	err := errors.Join(
		server.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *server.Request, in textArgs) (string, error) {
			return in.Text, nil
		}),
		server.AddTool(srv, &mcp.Tool{Name: "pid"}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			return fmt.Sprint(os.Getpid()), nil
		}),
		server.AddTool(srv, &mcp.Tool{Name: "crash"}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			fmt.Fprintln(os.Stderr, "fatal: crashing on purpose")
			os.Exit(3)
			return "", nil
		}),
		// steps reports progress First times, waits for release, then
		// reports the rest of Total.
		server.AddTool(srv, &mcp.Tool{Name: "steps"}, func(ctx context.Context, r *server.Request, in stepsArgs) (string, error) {
			for i := 1; i <= in.Total; i++ {
				if i == in.First+1 {
					select {
					case <-tt.gate:
					case <-ctx.Done():
						return "", ctx.Err()
					}
				}
				if err := r.Progress(ctx, float64(i), float64(in.Total), fmt.Sprintf("step %d", i)); err != nil {
					return "", err
				}
			}
			return "all steps done", nil
		}),
		server.AddTool(srv, &mcp.Tool{Name: "release"}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			tt.gateOnce.Do(func() { close(tt.gate) })
			return "released", nil
		}),
		// tagged reports N progress notifications and N log messages that
		// carry Tag, and answers Tag.
		server.AddTool(srv, &mcp.Tool{Name: "tagged"}, func(ctx context.Context, r *server.Request, in tagArgs) (string, error) {
			for i := 1; i <= in.N; i++ {
				if err := r.Progress(ctx, float64(i), float64(in.N), in.Tag); err != nil {
					return "", err
				}
				if err := r.Log(ctx, mcp.LevelInfo, "tagged", in.Tag); err != nil {
					return "", err
				}
			}
			return in.Tag, nil
		}),
		// hang reports progress once, then waits to be cancelled.
		server.AddTool(srv, &mcp.Tool{Name: "hang"}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			if err := r.Progress(ctx, 1, 0, "hanging"); err != nil {
				return "", err
			}
			<-ctx.Done()
			tt.cancelled.Add(1)
			return "", ctx.Err()
		}),
		server.AddTool(srv, &mcp.Tool{Name: "cancellations"}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			return fmt.Sprint(tt.cancelled.Load()), nil
		}),
		// slow reports progress, then answers after 200 ms: a call in
		// flight for a while.
		server.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, r *server.Request, _ noArgs) (string, error) {
			if err := r.Progress(ctx, 1, 2, "started"); err != nil {
				return "", err
			}
			select {
			case <-time.After(200 * time.Millisecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return "slow done", nil
		}),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := srv.Run(context.Background(), stdio.New(nil)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// buildDir holds the programs the tests build; removed by TestMain.
var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// everythingServer returns the path of the conformance everything-server,
// built once for all the tests.
func everythingServer(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "bridge-test"); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(buildDir, "everything-server"), "../../../../conformance/everything-server").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building the everything-server: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "everything-server")
}

// eventually waits until cond holds, failing the test at the deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("still not %s after %s", what, deadline)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
