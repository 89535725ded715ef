package inspect

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// The tests of the page run in a real browser: Debian's chromium,
// headless, driven with chromedp. One browser serves every test of the
// package (each in its own tab); TestMain stops it, then checks that no
// goroutine is left.

// envTestServer makes the test binary the test server of package
// clitest, over stdio.
const envTestServer = "MCPWIRE_INSPECT_TESTSERVER"

var screenshots = flag.String("screenshots", "", "write the screenshots of the main views (PNG) into this directory, such as ../../../../docs")

func TestMain(m *testing.M) {
	switch os.Getenv(envTestServer) { // the test binary is the server of TestServerEnds
	case "1":
		clitest.ServerMain()
		os.Exit(0)
	case "slow-exit":
		slowExitServer()
	case "restart":
		restartServer()
	case "hostile":
		hostileViewsServer()
	case "flood":
		floodServer()
	}
	flag.Parse()
	code := m.Run()
	stopBrowser()
	removeBuilt()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

var shared struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab, parent of the tests' tabs
	stop   func()
	err    error
	dir    string
	binary sync.Once
	server string // the everything-server, built
	berr   error
}

// chromium returns the browser to test with, or "" when there is none.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserTab returns a new tab of the shared browser, closed at the end
// of the test. Without a browser the test is skipped, unless the peers
// are required (CI, where .ci/run installs chromium).
func browserTab(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	shared.once.Do(func() {
		path := chromium()
		if path == "" {
			shared.err = fmt.Errorf("no chromium on PATH (apt-get install chromium)")
			return
		}
		dir, err := os.MkdirTemp("", "mcpwire-inspect-browser-")
		if err != nil {
			shared.err = err
			return
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(path),
			chromedp.Flag("headless", true),
			chromedp.Flag("no-sandbox", true),
			chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-quic", true),
			chromedp.NoFirstRun,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("hide-scrollbars", true),
			chromedp.Flag("force-color-profile", "srgb"),
			// A name that resolves to 127.0.0.1, as DNS rebinding makes one.
			chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"),
			chromedp.UserDataDir(dir),
			chromedp.WindowSize(1440, 900),
		)
		ctx, cancel := chromedp.NewContext(actx)
		if err := chromedp.Do(ctx); err != nil {
			cancel()
			cancelAlloc()
			os.RemoveAll(dir)
			shared.err = fmt.Errorf("starting chromium: %w", err)
			return
		}
		shared.ctx = ctx
		shared.stop = func() {
			cancel()
			cancelAlloc()
			os.RemoveAll(dir)
		}
	})
	if shared.err != nil {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal(shared.err)
		}
		t.Skip(shared.err)
	}
	ctx, cancel := chromedp.NewContext(shared.ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func stopBrowser() {
	if shared.stop != nil {
		shared.stop()
	}
}

// everythingServer returns the project's everything-server, built once.
func everythingServer(t *testing.T) string {
	t.Helper()
	shared.binary.Do(func() {
		dir, err := os.MkdirTemp("", "mcpwire-inspect-bin-")
		if err != nil {
			shared.berr = err
			return
		}
		shared.dir = dir
		shared.server = filepath.Join(dir, "everything-server")
		if out, err := exec.Command("go", "build", "-o", shared.server, "../../../../conformance/everything-server").CombinedOutput(); err != nil {
			shared.berr = fmt.Errorf("building the everything-server: %v\n%s", err, out)
		}
	})
	if shared.berr != nil {
		t.Fatal(shared.berr)
	}
	return shared.server
}

func removeBuilt() {
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// An inspection is mcpwire inspect running in the test's process.
type inspection struct {
	URL    string // the page's URL, as printed
	Base   string // http://127.0.0.1:PORT
	Token  string
	stderr *lockedBuffer
	done   chan int
}

// inspect runs "mcpwire inspect --no-browser ARGS..." until the end of the
// test, and returns once it has printed the page's URL. setup, if not
// nil, adjusts the app first (its Connect, for an in-process server).
func inspect(t *testing.T, setup func(a *app.App), args ...string) *inspection {
	t.Helper()
	out, w := io.Pipe()
	in := &inspection{stderr: &lockedBuffer{}, done: make(chan int, 1)}
	a := app.New(strings.NewReader(""), w, in.stderr)
	store := filepath.Join(t.TempDir(), "tokens.json") // never the user's
	a.Getenv = func(k string) string {
		if k == app.EnvTokens {
			return store
		}
		return os.Getenv(k)
	}
	a.OpenBrowser = func(context.Context, string) error {
		t.Errorf("inspect opened a browser despite --no-browser")
		return nil
	}
	if setup != nil {
		setup(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		code := a.Execute(ctx, a.NewRoot(Family()), append([]string{"inspect", "--no-browser"}, args...))
		w.Close()
		in.done <- code
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-in.done:
		case <-time.After(30 * time.Second):
			t.Errorf("mcpwire inspect did not stop within 30s of its interruption")
		}
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		} else {
			line <- ""
		}
		io.Copy(io.Discard, out) // nothing else is written, but never block the writer
	}()
	select {
	case in.URL = <-line:
	case <-time.After(60 * time.Second):
		t.Fatalf("mcpwire inspect printed no URL within 60s; stderr:\n%s", in.stderr)
	}
	if in.URL == "" {
		code := <-in.done
		t.Fatalf("mcpwire inspect exited %d without a URL; stderr:\n%s", code, in.stderr)
	}
	base, token, ok := strings.Cut(in.URL, "/?token=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("the first line of stdout is %q, want http://127.0.0.1:PORT/?token=...", in.URL)
	}
	in.Base, in.Token = base, token
	return in
}

// lockedBuffer is a buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
