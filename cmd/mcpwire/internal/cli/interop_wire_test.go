package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
)

// interopPeers returns the Node 22 binary, the reference server's entry
// point and the TypeScript SDK's folder, or skips the test without them
// (fails when MCPWIRE_REQUIRE_PEERS=1, as in CI).
func interopPeers(t *testing.T) (node, everything string) {
	node, everything = os.Getenv("NODE22"), os.Getenv("SERVER_EVERYTHING")
	if node == "" || everything == "" || os.Getenv("MCP_SDK_DIR") == "" {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal("NODE22, SERVER_EVERYTHING and MCP_SDK_DIR are not set: run eval \"$(scripts/install-peers.sh)\"")
		}
		t.Skip("NODE22, SERVER_EVERYTHING and MCP_SDK_DIR are not set; run eval \"$(scripts/install-peers.sh)\"")
	}
	return node, everything
}

// mcpwireProgram returns a path that runs this test binary as mcpwire
// (TestMain dispatches on the program's name).
func mcpwireProgram(t *testing.T) string {
	dir := t.TempDir()
	p := filepath.Join(dir, "mcpwire")
	if err := os.Symlink(os.Args[0], p); err != nil {
		t.Fatal(err)
	}
	return p
}

// runNode runs a script of testdata/interop with node and returns its
// stdout; msgLog, if not "", receives the client's message log.
func runNode(t *testing.T, ctx context.Context, node, msgLog string, args ...string) string {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "interop", args[0]))
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args[1:]...)...)
	cmd.Env = append(os.Environ(), "MESSAGE_LOG="+msgLog, "GORACE=atexit_sleep_ms=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// A logged is one message of the TypeScript client's log.
type logged struct {
	Dir    string          `json:"dir"`
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// checkRecording compares the TypeScript client's log of what it sent and
// received with the tap's recording: the same number of frames each way,
// with the same ids in the same order.
func checkRecording(t *testing.T, msgLog, recording string) []frames.Record {
	t.Helper()
	b, err := os.ReadFile(msgLog)
	if err != nil {
		t.Fatal(err)
	}
	var sent, received []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var l logged
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		id := string(l.ID)
		if l.Dir == "sent" {
			sent = append(sent, id)
		} else {
			received = append(received, id)
		}
	}
	f, err := os.Open(recording)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := frames.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var fromClient, fromServer []string
	for _, r := range recs {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(r.Message, &m)
		id := string(m.ID)
		if id == "" {
			id = "null"
		}
		if r.From == frames.FromClient {
			fromClient = append(fromClient, id)
		} else {
			fromServer = append(fromServer, id)
		}
	}
	if strings.Join(sent, " ") != strings.Join(fromClient, " ") {
		t.Errorf("the client sent %d frames (ids %v), the recording has %d from the client (ids %v)", len(sent), sent, len(fromClient), fromClient)
	}
	if strings.Join(received, " ") != strings.Join(fromServer, " ") {
		t.Errorf("the client received %d frames (ids %v), the recording has %d from the server (ids %v)", len(received), received, len(fromServer), fromServer)
	}
	if len(recs) < 10 {
		t.Errorf("only %d frames recorded", len(recs))
	}
	return recs
}

// mcpwireRun runs mcpwire with args and returns its stdout and exit code.
func mcpwireRun(t *testing.T, ctx context.Context, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mcpwire %s: %v", strings.Join(args, " "), err)
	}
	if stderr.Len() > 0 && code != 0 && code != 1 {
		t.Logf("mcpwire %s: stderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	return string(out), code
}

// TestTapBetweenTypeScriptSDKAndReferenceServer puts mcpwire tap between
// the official TypeScript SDK client and the reference server, over stdio
// and over Streamable HTTP: the client's results are the same as over a
// direct connection, and the recording holds every frame the client sent
// and received. A replay of the recording against the same server finds
// no difference; against one whose echo tool answers otherwise, it exits
// 1 and shows the difference.
func TestTapBetweenTypeScriptSDKAndReferenceServer(t *testing.T) {
	node, everything := interopPeers(t)
	bin := mcpwireProgram(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()

	t.Run("stdio", func(t *testing.T) {
		direct := runNode(t, ctx, node, "", "client.mjs", "stdio", node, everything, "stdio")
		rec, msgLog := filepath.Join(dir, "stdio.jsonl"), filepath.Join(dir, "stdio-messages.jsonl")
		tapped := runNode(t, ctx, node, msgLog, "client.mjs", "stdio", bin, "tap", "-q", "--record", rec, "--", node, everything, "stdio")
		if tapped != direct {
			t.Fatalf("through the tap the client got\n%s\ndirectly\n%s", tapped, direct)
		}
		checkRecording(t, msgLog, rec)

		out, code := mcpwireRun(t, ctx, bin, "replay", rec, "--", node, everything, "stdio")
		if code != 0 {
			t.Errorf("replay against the same server: exit %d\n%s", code, out)
		}
		changed, _ := filepath.Abs(filepath.Join("testdata", "interop", "changed-echo.mjs"))
		out, code = mcpwireRun(t, ctx, bin, "replay", rec, "--", node, changed)
		if code != 1 {
			t.Errorf("replay against a server whose echo differs: exit %d, want 1\n%s", code, out)
		}
		for _, want := range []string{"tools/call", "(echo): the response differs", "result.content[0].text",
			`- recorded: "Echo: hello through the tap"`, `+ now:      "Echo (changed): hello through the tap"`} {
			if !strings.Contains(out, want) {
				t.Errorf("the replay's report lacks %q:\n%s", want, out)
			}
		}
		if strings.Count(out, "differs") != 1 {
			t.Errorf("only echo should differ:\n%s", out)
		}
	})

	t.Run("streamable", func(t *testing.T) {
		port := freePort(t)
		srv := exec.CommandContext(ctx, node, everything, "streamableHttp")
		srv.Env = append(os.Environ(), "PORT="+port)
		var srvErr bytes.Buffer
		srv.Stderr = &srvErr
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { srv.Process.Kill(); srv.Wait() }()
		upstream := "http://127.0.0.1:" + port + "/mcp"
		waitListening(t, "127.0.0.1:"+port, &srvErr)

		rec, msgLog := filepath.Join(dir, "http.jsonl"), filepath.Join(dir, "http-messages.jsonl")
		tap := exec.CommandContext(ctx, bin, "tap", "-q", "--record", rec, "--listen", "127.0.0.1:0", "--upstream", upstream)
		tap.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
		stdout, err := tap.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := tap.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { tap.Process.Signal(os.Interrupt); tap.Wait() }()
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("the tap did not print its URL: %v", err)
		}
		tapURL := strings.TrimSpace(line)
		if !strings.HasSuffix(tapURL, "/mcp") {
			t.Fatalf("the tap serves %q, want the upstream's path /mcp", tapURL)
		}

		direct := runNode(t, ctx, node, "", "client.mjs", "http", upstream)
		tapped := runNode(t, ctx, node, msgLog, "client.mjs", "http", tapURL)
		if tapped != direct {
			t.Fatalf("through the tap the client got\n%s\ndirectly\n%s", tapped, direct)
		}
		checkRecording(t, msgLog, rec)
		out, code := mcpwireRun(t, ctx, bin, "replay", rec, "--url", upstream)
		if code != 0 {
			t.Errorf("replay against the same server: exit %d\n%s", code, out)
		}
	})
}

// freePort returns a free TCP port on the loopback interface.
func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

// waitListening waits until something accepts connections at addr.
func waitListening(t *testing.T, addr string, stderr *bytes.Buffer) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens on %s after 30s; server stderr:\n%s", addr, stderr.String())
}
