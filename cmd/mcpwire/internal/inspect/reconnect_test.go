package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/transport"
)

// envRestartFail names a file: while it exists, the server of
// restartServer refuses to start.
const envRestartFail = "MCPWIRE_INSPECT_RESTART_FAIL"

// restartDelay is how long the server of restartServer takes to start:
// long enough for the reconnections of a test to overlap.
const restartDelay = 400 * time.Millisecond

// restartServer is the server of the reconnection tests: clitest's,
// slow to start and to exit once its input ends (so that one session's
// end overlaps the next one's start), and failing to start while the
// file envRestartFail names exists.
func restartServer() {
	time.Sleep(restartDelay)
	if f := os.Getenv(envRestartFail); f != "" {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintln(os.Stderr, "restart: told to fail")
			os.Exit(3)
		}
	}
	clitest.ServerMain()
	time.Sleep(restartDelay)
	os.Exit(0)
}

// post sends an operation of the page to the inspector.
func (in *inspection) post(t *testing.T, op, body string) (int, string) {
	t.Helper()
	return send(t, "POST", in.Base+"/api/"+op+"?token="+in.Token, body, map[string]string{"Origin": in.Base, "Content-Type": "application/json"})
}

// callEcho calls the test server's echo and fails the test unless it
// answers.
func (in *inspection) callEcho(t *testing.T, text string) {
	t.Helper()
	status, body := in.post(t, "call", `{"id":"echo-`+text+`","name":"echo","arguments":{"text":"`+text+`"}}`)
	if status != http.StatusOK || !strings.Contains(body, text) || strings.Contains(body, `"error"`) {
		t.Errorf("a call after the reconnections: %d %s", status, body)
	}
}

// state returns the state the inspector publishes.
func (in *inspection) state(t *testing.T) (st struct {
	Status string `json:"status"`
	Server struct {
		Transport string `json:"transport"`
	} `json:"server"`
	Ended      string            `json:"ended"`
	Connecting string            `json:"connecting"`
	Tools      []json.RawMessage `json:"tools"`
	ListErrors map[string]string `json:"listErrors"`
}) {
	t.Helper()
	status, body := send(t, "GET", in.Base+"/?token="+in.Token, "", nil)
	if status != http.StatusOK {
		t.Fatalf("the page: %d", status)
	}
	_, boot, ok := strings.Cut(body, `<script type="application/json" id="boot">`)
	boot, _, ok2 := strings.Cut(boot, "</script>")
	if !ok || !ok2 {
		t.Fatalf("the page has no state")
	}
	var b struct {
		State json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal([]byte(boot), &b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.State, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestConcurrentReconnectsKeepOneSession: Reconnect pressed in two tabs
// at once (or twice) makes one new session, which the page then uses;
// the other is refused while the first is under way. (Both opened a
// session, each ended the other's, and the page was left with a closed
// one: every call failed.)
func TestConcurrentReconnectsKeepOneSession(t *testing.T) {
	t.Setenv(envTestServer, "restart")
	in := inspect(t, nil, "--", os.Args[0])
	var wg sync.WaitGroup
	codes := make([]int, 3)
	for i := range codes {
		wg.Go(func() { codes[i], _ = in.post(t, "reconnect", `{}`) })
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
		default:
			t.Errorf("a reconnection answered %d", c)
		}
	}
	if ok == 0 {
		t.Errorf("no reconnection was made: %v", codes)
	}
	st := in.state(t)
	if st.Status != "connected" || len(st.Tools) == 0 || len(st.ListErrors) > 0 {
		t.Errorf("after the reconnections: status %q (%s), %d tools, list errors %v", st.Status, st.Ended, len(st.Tools), st.ListErrors)
	}
	in.callEcho(t, "after")
}

// TestReloadDuringReconnectKeepsTheSession: a page that goes away (a
// reload, a closed tab) while its reconnection is under way does not
// end the session: the reconnection goes on, and the page that comes
// back uses it. (The page's request bounded the new session's opening:
// its end cancelled it, and the inspector was left with no session.)
func TestReloadDuringReconnectKeepsTheSession(t *testing.T) {
	t.Setenv(envTestServer, "restart")
	in := inspect(t, nil, "--", os.Args[0])
	ctx, cancel := context.WithTimeout(context.Background(), restartDelay/4)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", in.Base+"/api/reconnect?token="+in.Token, strings.NewReader("{}"))
	req.Header.Set("Origin", in.Base)
	req.Header.Set("Content-Type", "application/json")
	if res, err := quick.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("the reconnection answered %d before the page went away", res.StatusCode)
	}
	// The page comes back; the reconnection ends in time.
	deadline := time.Now().Add(20 * time.Second)
	for st := in.state(t); (st.Connecting != "" || st.Status == "connecting") && time.Now().Before(deadline); st = in.state(t) {
		time.Sleep(50 * time.Millisecond)
	}
	if st := in.state(t); st.Status != "connected" || len(st.Tools) == 0 {
		t.Errorf("after a page left during its reconnection: status %q (%s), %d tools", st.Status, st.Ended, len(st.Tools))
	}
	in.callEcho(t, "back")
}

// TestFailedReconnectKeepsTheSession: when the new session cannot be
// opened (the server no longer starts), the page says why and goes on
// with the session it had. (The inspector had let the old session go
// before the new one was made: the page was left with none.)
func TestFailedReconnectKeepsTheSession(t *testing.T) {
	t.Setenv(envTestServer, "restart")
	fail := filepath.Join(t.TempDir(), "fail")
	t.Setenv(envRestartFail, fail)
	in := inspect(t, nil, "--", os.Args[0])
	if err := os.WriteFile(fail, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	status, body := in.post(t, "reconnect", `{}`)
	if status != http.StatusOK || !strings.Contains(body, "told to fail") {
		t.Errorf("a reconnection to a server that does not start: %d %s", status, body)
	}
	if st := in.state(t); st.Status != "connected" || len(st.Tools) == 0 {
		t.Errorf("after a failed reconnection: status %q (%s), %d tools", st.Status, st.Ended, len(st.Tools))
	}
	in.callEcho(t, "still")
}

// TestFailedReconnectKeepsItsTransport: the transport the page shows is
// that of the session open, not that of a connection being made. (The
// first frame of any connection set it: a reconnection that sent one
// frame over another transport and failed left the page saying the
// session it went on with was over that transport.)
func TestFailedReconnectKeepsItsTransport(t *testing.T) {
	srv, _ := probeServer(t)
	mem := clitest.MemoryTarget(t, srv)
	var n atomic.Int32
	in := inspect(t, func(a *app.App) {
		a.Connect = func(ctx context.Context, tg *app.Target, l *slog.Logger) (*app.Link, error) {
			tr := "first"
			if n.Add(1) > 1 {
				tr = "second"
			}
			tg.Observer.ObserveFrame(&transport.Frame{Time: time.Now(), Direction: transport.Sent, Transport: tr, Raw: []byte(`{"jsonrpc":"2.0","method":"x"}`)})
			if tr == "second" {
				return nil, errors.New("the second connection fails")
			}
			return mem(ctx, tg, l)
		}
	}, "--", "testserver")
	if st := in.state(t); st.Server.Transport != "first" {
		t.Fatalf("the first session's transport is %q", st.Server.Transport)
	}
	status, body := in.post(t, "reconnect", `{}`)
	if status != http.StatusOK || !strings.Contains(body, "the second connection fails") {
		t.Fatalf("reconnect: %d %.300s", status, body)
	}
	if st := in.state(t); st.Status != "connected" || st.Server.Transport != "first" {
		t.Errorf("after a failed reconnection: status %q, transport %q, want connected over %q", st.Status, st.Server.Transport, "first")
	}
}

// slowClose is a transport whose connections' Close waits for release:
// a server process that takes its time to exit.
type slowClose struct {
	transport.Transport
	release chan struct{}
}

func (s slowClose) Connect(ctx context.Context) (transport.Conn, error) {
	c, err := s.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return slowCloseConn{c, s.release}, nil
}

type slowCloseConn struct {
	transport.Conn
	release chan struct{}
}

func (c slowCloseConn) Close() error {
	<-c.release
	return c.Conn.Close()
}

// TestReconnectDoesNotWaitForTheOldServer: the new session is the
// page's as soon as it is made; the one open before is closed meanwhile,
// however long its server takes to exit. (Reconnect answered only once
// the old server had exited.)
func TestReconnectDoesNotWaitForTheOldServer(t *testing.T) {
	srv, _ := probeServer(t)
	mem := clitest.MemoryTarget(t, srv)
	release := make(chan struct{})
	var n atomic.Int32
	in := inspect(t, func(a *app.App) {
		a.Connect = func(ctx context.Context, tg *app.Target, l *slog.Logger) (*app.Link, error) {
			lk, err := mem(ctx, tg, l)
			if err == nil && n.Add(1) == 1 {
				lk.Transport = slowClose{lk.Transport, release}
			}
			return lk, err
		}
	}, "--", "testserver")
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the inspector's Close
	status, body := in.post(t, "reconnect", `{}`)
	once.Do(func() { close(release) })
	if status != http.StatusOK || strings.Contains(body, `"error"`) {
		t.Fatalf("reconnect while the old server is slow to exit: %d %.300s", status, body)
	}
	status, body = in.post(t, "call", `{"id":"after","name":"probe"}`)
	if status != http.StatusOK || !strings.Contains(body, "call 1") {
		t.Errorf("a call on the new session: %d %.300s", status, body)
	}
}
