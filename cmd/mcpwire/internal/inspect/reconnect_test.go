package inspect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
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
	Status     string            `json:"status"`
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
