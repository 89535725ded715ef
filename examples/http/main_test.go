package main

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestExample builds the example, runs it on a free port, uses both of
// its tools in both eras with a real client over HTTP (typed structured
// output, log messages, progress, a question to the user), and stops it
// with SIGINT: it must shut down and exit 0.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), "http")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 16)
	var logged sync.WaitGroup
	logged.Add(1)
	go func() {
		defer logged.Done()
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	url := waitLine(t, lines, "http: serving MCP at ")

	for _, v := range []mcp.Version{mcp.Latest, mcp.LatestLegacy} {
		t.Run(string(v), func(t *testing.T) { useServer(t, url, v) })
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitLine(t, lines, "http: shutting down")
	for range lines { // the rest of stderr, to its end
	}
	logged.Wait()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the example did not exit cleanly after SIGINT: %v", err)
	}
}

// useServer connects to the example in revision v and uses its tools.
func useServer(t *testing.T, url string, v mcp.Version) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	logs := make(chan string, 4)
	sess, err := client.New(mcp.Implementation{Name: "example-test", Version: "1"}, &client.Options{
		Version: v,
		OnLog:   func(ctx context.Context, p *mcp.LoggingMessageParams) { logs <- string(p.Data) },
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if !strings.Contains(p.Message, "Chez Nous") || !strings.Contains(string(p.RequestedSchema), `"guests"`) {
				return nil, errors.New("unexpected form: " + p.Message)
			}
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada", "guests": 3, "time": "19:00"}}, nil
		},
	}).Connect(ctx, streamable.NewTransport(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.ProtocolVersion() != v {
		t.Fatalf("speaks %s, want %s", sess.ProtocolVersion(), v)
	}

	var names []string
	for tool, err := range sess.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Name == "forecast" && !strings.Contains(string(tool.OutputSchema), `"high"`) {
			t.Errorf("forecast's output schema: %s", tool.OutputSchema)
		}
	}
	if strings.Join(names, ",") != "forecast,book" {
		t.Errorf("tools %v", names)
	}

	if !sess.IsModern() {
		if err := sess.SetLogLevel(ctx, mcp.LevelInfo); err != nil {
			t.Fatal(err)
		}
	}
	var progress []string
	var mu sync.Mutex
	pctx := client.WithProgress(client.WithLogLevel(ctx, mcp.LevelInfo), func(p mcp.ProgressParams) {
		mu.Lock()
		progress = append(progress, p.Message)
		mu.Unlock()
	})
	f, err := client.CallTool[Forecast](pctx, sess, "forecast", ForecastArgs{City: "Paris"})
	if err != nil || f.City != "Paris" || f.Low != f.High-8 || f.Sky == "" {
		t.Errorf("forecast: %+v, %v", f, err)
	}
	mu.Lock()
	if strings.Join(progress, ",") != "asking the sky,done" {
		t.Errorf("progress %q", progress)
	}
	mu.Unlock()
	select {
	case l := <-logs:
		if l != `"looking up Paris"` {
			t.Errorf("log %s", l)
		}
	default:
		t.Error("no log message arrived before the result")
	}
	if _, err := client.CallTool[Forecast](ctx, sess, "forecast", ForecastArgs{}); err == nil || !strings.Contains(err.Error(), "which city?") {
		t.Errorf("forecast without a city: %v", err)
	}

	got, err := client.CallTool[string](ctx, sess, "book", BookArgs{Restaurant: "Chez Nous"})
	if want := "Booked a table for 3 at Chez Nous, 19:00, inside, in the name of Ada."; err != nil || got != want {
		t.Errorf("book: %q, %v; want %q", got, err, want)
	}
}

// waitLine returns the rest of the first line of lines that starts with
// prefix, within a generous deadline.
func waitLine(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the example's stderr ended before %q", prefix)
			}
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				return rest
			}
		case <-deadline:
			t.Fatalf("the example did not say %q", prefix)
		}
	}
}
