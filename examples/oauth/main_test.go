package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcptest"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestExample builds the example and runs it on a free port. Without a
// token, the endpoint answers 401 with a challenge that leads to its
// metadata; with a forged one, 401 invalid_token. A client on package
// auth's Transport discovers the authorization server, registers, gets a
// token through the authorization code grant with PKCE (headless: the
// example grants at once), calls the tools as the example's user in both
// eras, and steps up to notes:write when notes_add asks for it. SIGINT
// stops the example, which must exit 0.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), "oauth")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-user", "bob")
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
	endpoint, _, _ := strings.Cut(waitLine(t, lines, "oauth: serving MCP at "), " ")

	base := &http.Transport{}
	defer base.CloseIdleConnections()
	for _, tc := range []struct{ authorization, want string }{
		{"", `resource_metadata="` + strings.TrimSuffix(endpoint, "/mcp") + `/.well-known/oauth-protected-resource/mcp"`},
		{"Bearer forged.token.here", `error="invalid_token"`},
	} {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.authorization != "" {
			req.Header.Set("Authorization", tc.authorization)
		}
		resp, err := base.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), tc.want) {
			t.Errorf("Authorization %q: %s, WWW-Authenticate %q; want 401 with %s", tc.authorization, resp.Status, resp.Header.Get("WWW-Authenticate"), tc.want)
		}
	}

	headless := &auth.HeadlessAuthorizer{HTTPClient: &http.Client{
		Transport:     base,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	tr, err := auth.NewTransport(base, &auth.ClientOptions{
		Authorizer:        headless,
		AllowLoopbackHTTP: true,
		HTTPClient:        &http.Client{Transport: base, Timeout: 30 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: tr}
	for i, v := range []mcp.Version{mcp.Latest, mcp.LatestLegacy} {
		t.Run(string(v), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sess, err := client.New(mcp.Implementation{Name: "oauth-test", Version: "1"}, &client.Options{Version: v}).
				Connect(ctx, streamable.NewTransport(endpoint, &streamable.ClientOptions{HTTPClient: hc}))
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if who := mcptest.CallText(t, sess, "whoami", nil); !strings.HasPrefix(who, "bob, through client ") || !strings.Contains(who, scopeRead) {
				t.Errorf("whoami: %q", who)
			}
			if got := mcptest.CallText(t, sess, "notes_add", NoteArgs{Text: "note " + string(v)}); got != "noted for bob ("+string(rune('1'+i))+" notes)" {
				t.Errorf("notes_add: %q", got)
			}
			if got := mcptest.CallText(t, sess, "notes", nil); !strings.Contains(got, "- note "+string(v)) {
				t.Errorf("notes: %q", got)
			}
			if who := mcptest.CallText(t, sess, "whoami", nil); !strings.Contains(who, scopeWrite) {
				t.Errorf("after the step-up, whoami: %q", who)
			}
		})
	}
	// A tools/call whose params have the wrong type is the server's to
	// answer, in JSON-RPC, not the middleware's (issue 18: it answered
	// HTTP 400 with an OAuth error body, and mcpwire check failed
	// jsonrpc.invalid-params on this example).
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}},"name":42}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		ID    int `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil || answer.ID != 1 || answer.Error.Code != -32602 {
		t.Errorf("tools/call with {\"name\":42}: %s, %+v, %v; want the server's -32602", resp.Status, answer, err)
	}
	tr.CloseIdleConnections()

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitLine(t, lines, "oauth: shutting down")
	for range lines {
	}
	logged.Wait()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the example did not exit cleanly after SIGINT: %v", err)
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
